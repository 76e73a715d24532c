//===- KernelMeasure.h - check and time candidates of any kernel -*- C++ -*-===//
//
// A sweep's measurements of one configuration of a kernel that names a
// float64 reference (attention, the MoE tiers): every candidate runs on the
// same fresh random arguments (KernelHarness: inputs reset, pure outputs
// poisoned before each candidate), every tensor is compared with the
// reference in full, then the call is timed. In a child process
// (ProbeProcess.h): a candidate that crashes or hangs costs its own result.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TUNING_KERNELMEASURE_H
#define ARGUS_TUNING_KERNELMEASURE_H

#include "argus/Reference/KernelHarness.h"
#include "argus/Tuning/ProbeProcess.h"

#include <string>
#include <vector>

namespace argus::tuning {

struct KernelProbe {
  std::string library; // shared object holding the kernel
  std::string symbol;  // its argus_cpu_kernel_fn entry point
};

/// Measures every probe on `args` (the reference's parameters); `onResult`
/// as in measureGemms. "" on success, else why nothing could be measured.
std::string measureKernels(const ref::Reference &reference, const std::vector<ref::HarnessArg> &args,
                           const std::vector<KernelProbe> &probes, const MeasureOptions &options,
                           const std::function<void(size_t, const Measurement &)> &onResult);

} // namespace argus::tuning

#endif // ARGUS_TUNING_KERNELMEASURE_H
