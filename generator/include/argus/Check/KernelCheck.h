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

#include "argus/Backend/CodegenCpu.h"
#include "argus/Lowering/LowerToArgus.h"
#include "argus/Reference/KernelHarness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <variant>
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
  std::string target = codegen::defaultCpuTarget();        // for Engine::Cpu
  uint64_t seed = 1;
  std::string workDir;                      // for Engine::Cpu builds; empty = a temp dir
};

struct CheckReport {
  bool passed = false;
  std::string error;         // set when the check could not run at all
  std::string reference;     // reference used
  std::vector<ref::TensorCheck> tensors;
  std::string summary() const;
};

CheckReport runAndCheck(const CheckOptions &options);

/// The parameters of a lowered kernel with run-time sizes for its symbolic
/// dims and values for its scalars (default 1; f32 scalars rounded), in the
/// harness's terms; a string saying what is missing or wrong otherwise.
std::variant<std::vector<ref::HarnessArg>, std::string>
describeArguments(mlir::func::FuncOp kernel, const std::map<std::string, int64_t> &sizes,
                  const std::map<std::string, double> &scalars);

/// The reference `kernel` names, checked against its parameter names.
std::variant<const ref::Reference *, std::string> kernelReference(mlir::func::FuncOp kernel);

} // namespace argus::check

#endif // ARGUS_CHECK_KERNELCHECK_H
