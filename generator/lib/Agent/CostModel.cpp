//===- CostModel.cpp - modelled kernel time where none is measured --------===//
#include "argus/Agent/CostModel.h"

#include <algorithm>
#include <cmath>

namespace argus::agent {

namespace {

double get(const Features &f, const Point &p, const char *name, double fallback) {
  if (auto it = p.find(name); it != p.end()) return double(it->second);
  if (auto it = f.find(name); it != f.end()) return it->second;
  return fallback;
}

double cdiv(double a, double b) { return std::ceil(a / std::max(b, 1.0)); }

/// FMAs per operand load of a register-blocked micro-kernel: `rows` broadcast
/// rows times `vectors` 16-lane column vectors, held to a register file of 32.
double blockingEfficiency(double rows, double columns) {
  double r = std::min(rows, 8.0), c = std::clamp(columns / 16, 1.0, 4.0);
  return r * c / (r * c + 0.5 * (r + c));
}

} // namespace

CostModel::Work CostModel::work(const Space &space, const Features &f, const Point &p) const {
  Work w;
  const double elem = get(f, p, "ELEM", 2);
  if (space.family == "attention") {
    const double sq = get(f, p, "SQ", 1), skv = get(f, p, "SKV", 1), d = get(f, p, "D", 128),
                 group = get(f, p, "GROUP", 1), bq = get(f, p, "BQ", 64), bkv = get(f, p, "BKV", 64);
    // Causal: about half the score matrix, in whole BQ x BKV blocks.
    const double qTiles = cdiv(sq, bq), pairs = 0.5 * qTiles * (cdiv(skv, bkv) + 1);
    w.usefulFlops = 2 * sq * skv * d * group;
    w.flops = 4 * pairs * bq * bkv * d * group;
    w.bytes = qTiles * skv * d * elem * 2 * 0.5 + sq * d * elem * group * 2;
    w.compulsoryBytes = skv * d * elem * 2 + sq * d * elem * group * 2;
    w.instances = qTiles * group;
    w.efficiency = blockingEfficiency(bq, bkv) * bkv / (bkv + 32);
  } else {
    // GEMM and MoE expert GEMMs: M x N outputs over K.
    const double m = get(f, p, "M", 1), n = get(f, p, "N", 1), k = get(f, p, "K", 1), bm = get(f, p, "BM", 128),
                 bn = get(f, p, "BN", 128), bk = get(f, p, "BK", 64);
    const double rowTiles = cdiv(m, bm), colTiles = cdiv(n, bn);
    w.usefulFlops = 2 * m * n * k;
    w.flops = 2 * rowTiles * bm * colTiles * bn * k;
    w.bytes = m * k * elem * colTiles + n * k * elem * rowTiles + m * n * 4;
    w.compulsoryBytes = (m + n) * k * elem + m * n * 4;
    w.instances = rowTiles * colTiles;
    w.efficiency = blockingEfficiency(bm, bn) * bk / (bk + 16);
  }
  return w;
}

double CostModel::seconds(const Space &space, const Features &features, const Point &point) const {
  const Work w = work(space, features, point);
  const double threads = std::max(roofs_.threads, 1.0);
  const double waves = std::ceil(w.instances / threads);
  const double quantisation = w.instances / (waves * threads);
  const double compute = w.flops / (roofs_.flopsPerSecond * computeScale_ * w.efficiency * quantisation);
  const double memory = w.bytes / (roofs_.bytesPerSecond * memoryScale_);
  return std::max(compute, memory) + waves * instanceSeconds_;
}

double CostModel::floorSeconds(const Space &space, const Features &features) const {
  const Work w = work(space, features, {});
  return std::max(w.usefulFlops / roofs_.flopsPerSecond, w.compulsoryBytes / roofs_.bytesPerSecond);
}

double CostModel::calibrate(const std::vector<Sample> &samples) {
  auto error = [&](const CostModel &m) {
    double sum = 0;
    for (const Sample &s : samples) {
      double e = std::log(m.seconds(*s.space, s.features, s.point) / s.seconds);
      sum += e * e;
    }
    return samples.empty() ? 0.0 : std::sqrt(sum / double(samples.size()));
  };
  if (samples.size() < 3) return error(*this);
  // Coordinate descent over log scales, halving the step: three smooth,
  // positive scales need nothing cleverer.
  CostModel best = *this;
  double bestError = error(best);
  for (double step = 2.0; step > 0.01; step /= 2)
    for (bool improved = true; improved;) {
      improved = false;
      for (double *scale : {&best.computeScale_, &best.memoryScale_, &best.instanceSeconds_})
        for (double factor : {std::exp(step), std::exp(-step)}) {
          CostModel trial = best;
          double *slot = scale == &best.computeScale_   ? &trial.computeScale_
                         : scale == &best.memoryScale_ ? &trial.memoryScale_
                                                       : &trial.instanceSeconds_;
          *slot *= factor;
          double e = error(trial);
          if (e < bestError - 1e-12) {
            best = trial;
            bestError = e;
            improved = true;
          }
        }
    }
  *this = best;
  calibratedOn_ = int(samples.size());
  return bestError;
}

} // namespace argus::agent
