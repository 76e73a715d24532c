//===- KernelMeasure.cpp - check and time candidates of any kernel --------===//
#include "argus/Tuning/KernelMeasure.h"

#include <algorithm>
#include <dlfcn.h>
#include <stdexcept>

namespace argus::tuning {

namespace {

/// Why `checks` failed, as one line: the first tensor with a defect.
std::string describeFailure(const std::vector<ref::TensorCheck> &checks) {
  for (const ref::TensorCheck &t : checks) {
    if (t.unwritten)
      return std::to_string(t.unwritten) + " elements of " + t.name + " never written";
    if (t.mismatches)
      return t.firstMismatch + " (" + std::to_string(t.mismatches) + " elements beyond tolerance " +
             std::to_string(t.tolerance) + ")";
  }
  return "";
}

} // namespace

std::string measureKernels(const ref::Reference &reference, const std::vector<ref::HarnessArg> &args,
                           const std::vector<KernelProbe> &probes, const MeasureOptions &opt,
                           const std::function<void(size_t, const Measurement &)> &onResult) {
  auto body = [&](size_t first, const std::function<void(size_t)> &begin,
                  const std::function<void(size_t, const Measurement &)> &result) {
    ref::KernelHarness harness;
    if (std::string error = harness.prepare(reference, args, opt.seed); !error.empty())
      throw std::runtime_error(error);
    for (size_t i = first; i < probes.size(); ++i) {
      begin(i);
      Measurement r;
      void *handle = dlopen(probes[i].library.c_str(), RTLD_NOW | RTLD_LOCAL);
      auto fn = handle ? reinterpret_cast<argus_cpu_kernel_fn>(dlsym(handle, probes[i].symbol.c_str())) : nullptr;
      if (!fn) {
        r.detail = std::string("cannot load the candidate: ") + dlerror();
        result(i, r);
        continue;
      }
      harness.reset();
      std::vector<argus_cpu_arg> callArgs = harness.cpuArgs();
      fn(callArgs.data(), opt.threads);
      std::vector<ref::TensorCheck> checks;
      r.correct = harness.compare(checks);
      for (const ref::TensorCheck &t : checks) r.maxError = std::max(r.maxError, t.maxError);
      if (r.correct) r.seconds = medianCallSeconds([&] { fn(callArgs.data(), opt.threads); });
      else r.detail = describeFailure(checks);
      result(i, r);
    }
  };
  return runProbesIsolated(probes.size(), body, opt.timeoutSeconds, [](size_t) { return std::string(); }, onResult);
}

} // namespace argus::tuning
