//===- BayesianLinear.h - Bayesian linear regression, small and dense -*- C++ -*-===//
//
// Internal to ArgusAgent: the planner's reward model. Weights have a Gaussian
// prior N(prior, I / precision) and observations Gaussian noise of variance
// `noise`; the posterior is refitted from all rows (tens of features,
// hundreds of rows: a Cholesky factorisation per refit costs microseconds).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_AGENT_BAYESIANLINEAR_H
#define ARGUS_LIB_AGENT_BAYESIANLINEAR_H

#include <random>
#include <vector>

namespace argus::agent::detail {

class BayesianLinear {
public:
  BayesianLinear(std::vector<double> prior, double precision) : prior_(std::move(prior)), precision_(precision) {}

  void add(std::vector<double> x, double y);
  size_t rows() const { return ys_.size(); }
  /// Refits the posterior (and the noise variance from the residuals).
  void fit();
  double mean(const std::vector<double> &x) const;
  /// Weights drawn from the posterior (Thompson sampling).
  std::vector<double> sample(std::mt19937_64 &rng) const;

private:
  std::vector<double> prior_;
  double precision_, noise_ = 0.25;
  std::vector<std::vector<double>> xs_;
  std::vector<double> ys_;
  std::vector<double> mean_;      // posterior mean
  std::vector<double> cholesky_;  // lower factor L of the posterior precision, row-major
};

/// A standard normal draw from the generator alone (the same on every
/// standard library, unlike std::normal_distribution).
double standardNormal(std::mt19937_64 &rng);

} // namespace argus::agent::detail

#endif // ARGUS_LIB_AGENT_BAYESIANLINEAR_H
