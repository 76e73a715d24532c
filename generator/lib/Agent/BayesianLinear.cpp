//===- BayesianLinear.cpp - Bayesian linear regression, small and dense ---===//
#include "BayesianLinear.h"

#include <algorithm>
#include <cmath>

namespace argus::agent::detail {

double standardNormal(std::mt19937_64 &rng) {
  // Box-Muller on two uniforms in (0, 1].
  auto uniform = [&] { return (double(rng() >> 11) + 1.0) * 0x1.0p-53; };
  const double u = uniform(), v = uniform();
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
}

void BayesianLinear::add(std::vector<double> x, double y) {
  xs_.push_back(std::move(x));
  ys_.push_back(y);
}

void BayesianLinear::fit() {
  const size_t d = prior_.size();
  // Noise: residual variance around the prior's fit, from the data, kept
  // within sane bounds so a few rows neither freeze nor flood the model.
  auto solve = [&](double noise) {
    std::vector<double> a(d * d, 0), b(d, 0);
    for (size_t i = 0; i < d; ++i) {
      a[i * d + i] = precision_;
      b[i] = precision_ * prior_[i];
    }
    for (size_t r = 0; r < ys_.size(); ++r)
      for (size_t i = 0; i < d; ++i) {
        b[i] += xs_[r][i] * ys_[r] / noise;
        for (size_t j = 0; j <= i; ++j) a[i * d + j] += xs_[r][i] * xs_[r][j] / noise;
      }
    // Cholesky A = L Lᵀ (lower triangle of `a` holds A).
    std::vector<double> l(d * d, 0);
    for (size_t i = 0; i < d; ++i)
      for (size_t j = 0; j <= i; ++j) {
        double s = a[i * d + j];
        for (size_t k = 0; k < j; ++k) s -= l[i * d + k] * l[j * d + k];
        l[i * d + j] = i == j ? std::sqrt(std::max(s, 1e-12)) : s / l[j * d + j];
      }
    // Mean: solve L z = b, then Lᵀ m = z.
    std::vector<double> z(d), m(d);
    for (size_t i = 0; i < d; ++i) {
      double s = b[i];
      for (size_t k = 0; k < i; ++k) s -= l[i * d + k] * z[k];
      z[i] = s / l[i * d + i];
    }
    for (size_t i = d; i-- > 0;) {
      double s = z[i];
      for (size_t k = i + 1; k < d; ++k) s -= l[k * d + i] * m[k];
      m[i] = s / l[i * d + i];
    }
    mean_ = std::move(m);
    cholesky_ = std::move(l);
  };
  solve(noise_);
  if (ys_.size() >= 4) {
    double sum = 0;
    for (size_t r = 0; r < ys_.size(); ++r) {
      double e = ys_[r] - mean(xs_[r]);
      sum += e * e;
    }
    noise_ = std::clamp(sum / double(ys_.size()), 0.0025, 1.0);
    solve(noise_);
  }
}

double BayesianLinear::mean(const std::vector<double> &x) const {
  const std::vector<double> &w = mean_.empty() ? prior_ : mean_;
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += w[i] * x[i];
  return s;
}

std::vector<double> BayesianLinear::sample(std::mt19937_64 &rng) const {
  const size_t d = prior_.size();
  std::vector<double> z(d);
  for (double &v : z) v = standardNormal(rng);
  if (cholesky_.empty()) { // no fit yet: the prior
    std::vector<double> w = prior_;
    for (size_t i = 0; i < d; ++i) w[i] += z[i] / std::sqrt(precision_);
    return w;
  }
  // w = mean + L⁻ᵀ z has covariance (L Lᵀ)⁻¹.
  std::vector<double> u(d);
  for (size_t i = d; i-- > 0;) {
    double s = z[i];
    for (size_t k = i + 1; k < d; ++k) s -= cholesky_[k * d + i] * u[k];
    u[i] = s / cholesky_[i * d + i];
  }
  for (size_t i = 0; i < d; ++i) u[i] += mean_[i];
  return u;
}

} // namespace argus::agent::detail
