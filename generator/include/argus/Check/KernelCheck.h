//===- KernelCheck.h - run a kernel on random data, compare to float64 -----===//
//
// `argus-gen run`: lowers a DSL kernel, allocates every tensor argument from
// the given symbolic sizes, fills inputs with fresh random values (never
// zeros), poisons pure outputs with NaN, runs the kernel in the interpreter
// or compiled by the CPU backend, and compares every tensor with the float64
// reference the kernel names (inputs must come back unchanged).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_CHECK_KERNELCHECK_H
#define ARGUS_CHECK_KERNELCHECK_H

#include "argus/Lowering/LowerToArgus.h"

#include <map>
#include <string>
#include <vector>

namespace argus::check {

enum class Engine { Interpreter, Cpu };

struct CheckOptions {
  std::string path;                         // the .argus file
  std::string kernel;                       // empty: the file's only kernel
  lowering::Specialization specialization;  // const/dtype values and pinned dims
  std::map<std::string, int64_t> sizes;     // run-time sizes of symbolic dims
  std::map<std::string, double> scalars;    // scalar arguments (default 1)
  Engine engine = Engine::Interpreter;
  std::string target = "cpu-avx512";        // for Engine::Cpu
  uint64_t seed = 1;
  std::string workDir;                      // for Engine::Cpu builds; empty = a temp dir
};

struct TensorResult {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  double tolerance = 0;
  double maxError = 0;      // relative, see argus::ref::compare
  int64_t mismatches = 0;
  int64_t unwritten = 0;
  std::string firstMismatch; // "C[3, 17]: expected 0.25, got nan"
};

struct CheckReport {
  bool passed = false;
  std::string error;         // set when the check could not run at all
  std::string reference;     // reference used
  std::vector<TensorResult> tensors;
  std::string summary() const;
};

CheckReport runAndCheck(const CheckOptions &options);

} // namespace argus::check

#endif // ARGUS_CHECK_KERNELCHECK_H
