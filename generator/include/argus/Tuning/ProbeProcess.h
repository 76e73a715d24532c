//===- ProbeProcess.h - measure candidates in a disposable process -*- C++ -*-===//
//
// What every measurement of a sweep shares: the candidates ("probes") run in
// a forked child process that reports each result on a pipe as it has it, so
// a candidate that crashes or hangs costs its own result (recorded as a
// failure) and not the sweep; the parent starts a new child for the probes
// after it. Also the timing rule of every measurement.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TUNING_PROBEPROCESS_H
#define ARGUS_TUNING_PROBEPROCESS_H

#include <cstdint>
#include <functional>
#include <string>

namespace argus::tuning {

/// The outcome of running one candidate.
struct Measurement {
  bool correct = false;
  double maxError = 0;
  double seconds = 0;   // median time of one call; 0 when it did not run correctly
  std::string detail;   // why it is not correct (mismatch, unwritten elements, crash)
};

struct MeasureOptions {
  int threads = 0;              // OpenMP threads per call (0 = all)
  uint64_t seed = 1;            // of the random inputs
  double timeoutSeconds = 300;  // a probe silent this long is killed
};

/// The child's side: measures probes `first`, `first + 1`, ... of the set in
/// order, calling `begin(i)` before running probe i and `result(i, m)` after.
/// It may throw: the message ends the whole measurement.
using ProbeBody = std::function<void(size_t first, const std::function<void(size_t)> &begin,
                                     const std::function<void(size_t, const Measurement &)> &result)>;

/// Runs `count` probes through `body` in child processes; `onResult(i, m)`
/// is called here for each probe, in order, as soon as its result arrives. A
/// probe that takes its child down gets a failed result saying so ("crashed"
/// or "ran longer than N s", followed by `where(i)`, e.g. "at m = 64").
/// "" on success, else why the measurements could not run at all.
std::string runProbesIsolated(size_t count, const ProbeBody &body, double timeoutSeconds,
                              const std::function<std::string(size_t)> &where,
                              const std::function<void(size_t, const Measurement &)> &onResult);

/// Median seconds per call of `call`: after one warm-up call, samples of
/// enough calls to last ~2 ms each, 3 to 9 of them within about a second.
double medianCallSeconds(const std::function<void()> &call);

} // namespace argus::tuning

#endif // ARGUS_TUNING_PROBEPROCESS_H
