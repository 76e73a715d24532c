//===- LowerToArgus.h - DSL syntax tree to the argus dialect ----*- C++ -*-===//
//
// Gives the DSL its meaning: resolves names, folds compile-time constants,
// checks shapes and types, and builds `func.func` kernels in the argus
// dialect (plus arith/scf). A kernel is specialised on the way: its `const`
// and `dtype` parameters take their defaults or the values given, and any
// symbolic dimension may be pinned to a static size.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LOWERING_LOWERTOARGUS_H
#define ARGUS_LOWERING_LOWERTOARGUS_H

#include "argus/Frontend/AST.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace argus::lowering {

/// Values given to a kernel's compile-time parameters and dimensions.
struct Specialization {
  /// `const` parameters (BM=64) as integers or floats, `dtype` parameters
  /// (TA=bf16) as dtype names.
  std::map<std::string, std::variant<int64_t, double, std::string>> constants;
  /// Symbolic tensor dimensions pinned to a static size (N=4096).
  std::map<std::string, int64_t> dims;
};

/// What went wrong, already formatted as `file:line:col: error: ...` with
/// the source line and a caret.
struct LoweringFailure {
  std::string message;
};

/// Lowers the kernel named `kernelName` (or the only `@kernel` of the file
/// when empty) into a new module holding the kernel and its grid function.
/// `source` is the file's text, used to format diagnostics.
std::variant<mlir::OwningOpRef<mlir::ModuleOp>, LoweringFailure>
lowerKernel(const dsl::Module &module, std::string_view source, mlir::MLIRContext &context,
            const Specialization &specialization, const std::string &kernelName = "");

/// Parses and lowers a file in one step (parse errors come back the same way).
std::variant<mlir::OwningOpRef<mlir::ModuleOp>, LoweringFailure>
compileKernelSource(std::string_view source, const std::string &path, mlir::MLIRContext &context,
                    const Specialization &specialization, const std::string &kernelName = "");

/// Names of the `@kernel` functions defined in a parsed module, in order.
std::vector<std::string> kernelNames(const dsl::Module &module);

} // namespace argus::lowering

#endif // ARGUS_LOWERING_LOWERTOARGUS_H
