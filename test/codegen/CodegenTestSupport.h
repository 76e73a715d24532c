//===- CodegenTestSupport.h - parse, emit, compile and load CPU kernels ---===//
//
// The CPU backend's tests come in pairs, like Halide's AOT tests: emit C++
// for a kernel, compile it with the system g++ and cpuCompileFlags into a
// shared library in a temporary directory, dlopen it and call the symbol.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_CODEGEN_SUPPORT_H
#define ARGUS_TEST_CODEGEN_SUPPORT_H

#include "argus/Backend/CodegenCpu.h"
#include "argus/Dialect/Argus.h"

#include "argus_cpu_abi.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace argus::codegen::testing {

/// Absolute path of a file under the source tree.
std::string sourcePath(const std::string &relative);

/// A context with the argus dialects (and optionally unregistered ones).
std::unique_ptr<mlir::MLIRContext> makeContext(bool allowUnregistered = false);
mlir::OwningOpRef<mlir::ModuleOp> parseFile(mlir::MLIRContext &ctx, const std::string &path);
mlir::OwningOpRef<mlir::ModuleOp> parseText(mlir::MLIRContext &ctx, const std::string &text,
                                            const std::string &bufferName);
mlir::func::FuncOp lookupFunc(mlir::ModuleOp module, const std::string &name);

/// Emits `kernel` of the MLIR file at `path` (relative to the source tree);
/// fails the calling test on error.
std::string emitFromFile(const std::string &path, const std::string &kernel,
                         const std::string &symbol, const CpuTarget &target = {});

/// A generated kernel compiled into a shared library and loaded.
class LoadedKernel {
public:
  /// Compiles `source` with g++ and cpuCompileFlags(target); an error holds
  /// the compiler output and the source.
  static llvm::Expected<std::unique_ptr<LoadedKernel>>
  compile(const std::string &source, const std::string &symbol, const CpuTarget &target);
  ~LoadedKernel();

  void operator()(const std::vector<argus_cpu_arg> &args, int numThreads) const {
    fn(args.data(), numThreads);
  }

private:
  LoadedKernel() = default;
  argus_cpu_kernel_fn fn = nullptr;
  void *handle = nullptr;
  std::string dir;
};

/// Emit + compile + load; fails the calling test (and returns null) on error.
std::unique_ptr<LoadedKernel> buildKernel(const std::string &path, const std::string &kernel,
                                          const CpuTarget &target = {});

argus_cpu_arg tensorArg(void *data, std::initializer_list<int64_t> shape,
                        std::initializer_list<int64_t> stride);
argus_cpu_arg floatArg(double v);
argus_cpu_arg intArg(int64_t v);

} // namespace argus::codegen::testing

#endif // ARGUS_TEST_CODEGEN_SUPPORT_H
