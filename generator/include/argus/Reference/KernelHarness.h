//===- KernelHarness.h - a kernel's arguments and their float64 check -*- C++ -*-===//
//
// Everything around one run of a kernel that names a reference: its tensors
// filled with fresh random values (never zeros) and arranged where not every
// value is meaningful (block tables, lengths), its pure outputs poisoned with
// NaN, and after the run every tensor compared with the float64 reference
// (inputs must come back unchanged). `argus-gen run` checks one kernel with
// it; a sweep checks and then times each candidate with it, resetting the
// arguments before every candidate.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_REFERENCE_KERNELHARNESS_H
#define ARGUS_REFERENCE_KERNELHARNESS_H

#include "argus/Reference/References.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace argus::ref {

/// One kernel parameter: a tensor of `type` and `shape`, or a scalar.
struct HarnessArg {
  std::string name;
  bool isTensor = false;
  ElementType type = ElementType::F32;
  std::vector<int64_t> shape;
  double scalar = 0;
};

/// One tensor compared with the reference.
struct TensorCheck {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  double tolerance = 0;
  double maxError = 0;      // relative, see compare()
  int64_t mismatches = 0;
  int64_t unwritten = 0;
  std::string firstMismatch; // "C[3, 17]: expected 0.25, got nan"
};

class KernelHarness {
public:
  /// The arguments of `reference`'s kernel with these tensors and scalars,
  /// filled from `seed`; "" on success, else why they do not fit.
  std::string prepare(const Reference &reference, std::vector<HarnessArg> args, uint64_t seed);

  const std::vector<HarnessArg> &args() const { return args_; }
  /// The tensor of argument i, null for a scalar.
  HostTensor *tensor(size_t i) { return tensorOf_[i] < 0 ? nullptr : &tensors_[size_t(tensorOf_[i])]; }
  /// The arguments in the CPU calling convention (views of the tensors).
  std::vector<argus_cpu_arg> cpuArgs();

  /// Puts the inputs back as prepared and poisons the pure outputs again,
  /// for the next kernel to run on the same arguments.
  void reset();

  /// Compares every tensor with the reference (computed on the first call);
  /// true when all match.
  bool compare(std::vector<TensorCheck> &checks);

private:
  const Reference *reference_ = nullptr;
  std::vector<HarnessArg> args_;
  std::vector<HostTensor> tensors_;
  std::vector<int> tensorOf_;                  // argument -> tensors_ index, -1 for scalars
  std::vector<std::optional<HostTensor>> initial_; // per tensor: its prepared values, unless a pure output
  std::vector<RefArg> expected_;               // the reference's arguments, computed lazily
  std::map<std::string, std::vector<double>> magnitudes_; // of outputs the reference scales (Reference::magnitudes)
  bool computed_ = false;
};

} // namespace argus::ref

#endif // ARGUS_REFERENCE_KERNELHARNESS_H
