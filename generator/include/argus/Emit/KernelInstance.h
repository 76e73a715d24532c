//===- KernelInstance.h - one template instance down to target code --*- C++ -*-===//
//
// DSL file + specialisation → argus module → CPU C++ source (cpu-* targets)
// or HIP C++ source (hip-gfx942, hip-gfx90a). Shared by `argus-gen build`,
// `argus-gen emit-cpu` / `emit` and `argus-gen run --engine cpu`.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_KERNELINSTANCE_H
#define ARGUS_EMIT_KERNELINSTANCE_H

#include "argus/Lowering/LowerToArgus.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include "llvm/Support/Error.h"

namespace argus::emit {

/// The kernel function (`argus.kernel`) of a lowered module.
mlir::func::FuncOp findKernel(mlir::ModuleOp module);

/// Reads a whole file; false (with `error` set) when it cannot.
bool readTextFile(const std::string &path, std::string &text, std::string &error);

/// A kernel that replaces a family's template (an LLM's, kept in the tuning
/// database as "llm/<hash>.argus") gives its instances this symbol suffix:
/// "" for none, else "_x" and the name's letters and digits, so they never
/// collide with the template's.
std::string replacementSymbolSuffix(const std::string &replacement);

/// What became of one template instance on its way to target code.
struct VerifiedInstance {
  enum class Outcome { Proved, Refuted, Failed };
  Outcome outcome = Outcome::Failed;
  std::string detail; // Refuted: the verifier's findings; Failed: the error
  std::string code;   // the emitted source, when proved and emitted
};

/// Lowers `source` (the text of `path`) with `spec`, proves it, and emits
/// C++ for `target` defining `symbol` (the CPU backend, or the HIP backend
/// for a hip-* target). Refuted: the verifier found a
/// counterexample or could not prove a property; Failed: lowering or
/// emission refused the instance (e.g. its tiles exceed the stack budget).
VerifiedInstance instantiateVerified(mlir::MLIRContext &context, const std::string &path, const std::string &source,
                                     const lowering::Specialization &spec, const std::string &symbol,
                                     const std::string &target);

/// instantiateVerified for a kernel that must succeed: anything but a
/// proved, emitted instance is an error carrying the diagnostics.
llvm::Expected<std::string> instantiateKernel(mlir::MLIRContext &context, const std::string &path,
                                                 const std::string &source, const lowering::Specialization &spec,
                                                 const std::string &symbol, const std::string &target);

/// instantiateKernel through a cache of proved instances in `cacheDir`
/// (empty: none), keyed by this generator's own executable, the template's
/// path and text, the specialisation, the symbol and the target: a rebuild
/// reuses what an earlier run of the same generator lowered and proved.
llvm::Expected<std::string> instantiateKernelCached(mlir::MLIRContext &context, const std::string &path,
                                                       const std::string &source,
                                                       const lowering::Specialization &spec,
                                                       const std::string &symbol, const std::string &target,
                                                       const std::string &cacheDir);

} // namespace argus::emit

#endif // ARGUS_EMIT_KERNELINSTANCE_H
