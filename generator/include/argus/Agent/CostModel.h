//===- CostModel.h - modelled kernel time where none is measured -*- C++ -*-===//
//
// A roofline with tile-efficiency terms: a candidate's time is the larger of
// its compute time and its memory time, plus a fixed cost per program
// instance, where
//  - compute counts the padded work of whole tiles (rows past M are masked
//    FMAs) at the peak rate scaled by a register-blocking efficiency (a
//    micro-kernel of r rows and c vectors does r*c FMAs per r + c loads), the
//    wave quantisation of instances over threads and a per-k-step cost;
//  - memory counts the operand traffic the tiling implies (activations read
//    once per column tile, weights once per row tile) at the measured
//    bandwidth.
// It is used where the target is not on this machine (its rewards are then
// recorded as modelled), and as the planner's prior. `calibrate` fits its
// three scales to measurements in least squares of log time.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_AGENT_COSTMODEL_H
#define ARGUS_AGENT_COSTMODEL_H

#include "argus/Agent/Knowledge.h"

namespace argus::agent {

/// The machine's limits: peak arithmetic of the space's dtype, sustained
/// memory bandwidth, and threads (CPU) or compute units (GPU).
struct Roofs {
  double flopsPerSecond = 0;
  double bytesPerSecond = 0;
  double threads = 1;
};

/// One measured candidate, for calibration.
struct Sample {
  const Space *space = nullptr;
  Features features;
  Point point;
  double seconds = 0;
};

class CostModel {
public:
  explicit CostModel(Roofs roofs) : roofs_(roofs) {}

  /// Modelled seconds of one call of `point` at the configuration `features`.
  double seconds(const Space &space, const Features &features, const Point &point) const;
  /// The configuration's floor: its useful flops at peak or its compulsory
  /// bytes at full bandwidth, whichever is longer.
  double floorSeconds(const Space &space, const Features &features) const;

  /// Fits the compute, memory and per-instance scales to `samples` (needs at
  /// least three); returns the root-mean-square error of log time after.
  double calibrate(const std::vector<Sample> &samples);
  int calibratedOn() const { return calibratedOn_; }

private:
  struct Work {
    double flops = 0, usefulFlops = 0, bytes = 0, compulsoryBytes = 0, instances = 1, efficiency = 1;
  };
  Work work(const Space &space, const Features &features, const Point &point) const;

  Roofs roofs_;
  double computeScale_ = 1, memoryScale_ = 1, instanceSeconds_ = 2e-7;
  int calibratedOn_ = 0;
};

} // namespace argus::agent

#endif // ARGUS_AGENT_COSTMODEL_H
