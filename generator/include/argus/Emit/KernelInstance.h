//===- KernelInstance.h - one template instance down to target code --*- C++ -*-===//
//
// DSL file + specialisation → argus module → CPU C++ source. Shared by
// `argus-gen build`, `argus-gen emit-cpu` and `argus-gen run --engine cpu`.
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

/// Lowers `source` (the text of `path`) with `spec` and emits C++ for
/// `target` defining `symbol`; the error carries the formatted diagnostics.
llvm::Expected<std::string> instantiateCpuKernel(mlir::MLIRContext &context, const std::string &path,
                                                 const std::string &source, const lowering::Specialization &spec,
                                                 const std::string &symbol, const std::string &target);

} // namespace argus::emit

#endif // ARGUS_EMIT_KERNELINSTANCE_H
