//===- GemmMeasure.h - check and time compiled GEMM candidates --*- C++ -*-===//
//
// A sweep's measurements of one GEMM shape (n, k, dtypes): each probe is a
// compiled candidate (a shared object and its symbol) run at m rows on fresh
// random inputs with its output poisoned first. Every output element must be
// written; sampled rows (first, middle, last and a random one, all columns)
// must match a float64 reference within the dtype's tolerance; then the call
// is timed (median of several samples, all threads).
//
// The probes run in a child process (ProbeProcess.h): a candidate that
// crashes or hangs costs its own result, not the sweep.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TUNING_GEMMMEASURE_H
#define ARGUS_TUNING_GEMMMEASURE_H

#include "argus/Emit/GemmPlan.h"
#include "argus/Tuning/ProbeProcess.h"

#include <functional>
#include <string>
#include <vector>

namespace argus::tuning {

struct GemmProbe {
  std::string library; // shared object holding the kernel
  std::string symbol;  // its argus_cpu_kernel_fn entry point
  int64_t m = 0;       // rows to run
};

/// Measures every probe of one GEMM shape; `onResult(i, m)` is called in
/// this process for probe i as soon as its result arrives (in order). "" on
/// success, else why the measurements could not run at all.
std::string measureGemms(int64_t n, int64_t k, const emit::GemmTypes &types, const std::vector<GemmProbe> &probes,
                         const MeasureOptions &options,
                         const std::function<void(size_t, const Measurement &)> &onResult);

} // namespace argus::tuning

#endif // ARGUS_TUNING_GEMMMEASURE_H
