//===- CodegenTestSupport.cpp - parse, emit, compile and load CPU kernels -===//
#include "CodegenTestSupport.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>
#include <omp.h>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace argus::codegen::testing {

std::string sourcePath(const std::string &relative) {
  return std::string(ARGUS_SOURCE_DIR) + "/" + relative;
}

std::unique_ptr<mlir::MLIRContext> makeContext(bool allowUnregistered) {
  mlir::DialectRegistry registry;
  argus::registerArgusDialects(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  ctx->allowUnregisteredDialects(allowUnregistered);
  return ctx;
}

mlir::OwningOpRef<mlir::ModuleOp> parseFile(mlir::MLIRContext &ctx, const std::string &path) {
  return mlir::parseSourceFile<mlir::ModuleOp>(path, &ctx);
}

mlir::OwningOpRef<mlir::ModuleOp> parseText(mlir::MLIRContext &ctx, const std::string &text,
                                            const std::string &bufferName) {
  mlir::ParserConfig config(&ctx);
  return mlir::parseSourceString<mlir::ModuleOp>(text, config, bufferName);
}

mlir::func::FuncOp lookupFunc(mlir::ModuleOp module, const std::string &name) {
  return module.lookupSymbol<mlir::func::FuncOp>(name);
}

std::string emitFromFile(const std::string &path, const std::string &kernel, const std::string &symbol,
                         const CpuTarget &target) {
  auto ctx = makeContext();
  auto module = parseFile(*ctx, sourcePath(path));
  if (!module) {
    ADD_FAILURE() << "cannot parse " << path;
    return "";
  }
  mlir::func::FuncOp f = lookupFunc(*module, kernel);
  if (!f) {
    ADD_FAILURE() << "no function @" << kernel << " in " << path;
    return "";
  }
  llvm::Expected<std::string> cpp = emitCpuKernel(f, symbol, target);
  if (!cpp) {
    ADD_FAILURE() << llvm::toString(cpp.takeError());
    return "";
  }
  return *cpp;
}

llvm::Expected<std::unique_ptr<LoadedKernel>>
LoadedKernel::compile(const std::string &source, const std::string &symbol, const CpuTarget &target) {
  auto error = [](const std::string &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  // Kernel libraries depend on libgomp. Using it here makes the test binary
  // load it for good: if only a kernel library held it, dlclose() would unmap
  // it under its idle worker threads.
  (void)omp_get_max_threads();
  char dirTemplate[] = "/tmp/argus-codegen-XXXXXX";
  if (!mkdtemp(dirTemplate))
    return error("cannot create a temporary directory");
  std::unique_ptr<LoadedKernel> k(new LoadedKernel());
  k->dir = dirTemplate;
  std::string cpp = k->dir + "/kernel.cpp", so = k->dir + "/kernel.so", log = k->dir + "/log.txt";
  std::ofstream(cpp) << source;
  std::string cmd = "g++";
  for (const std::string &flag : cpuCompileFlags(target))
    cmd += " " + flag;
  cmd += " -shared -I" + sourcePath("dist/runtime/cpu") + " -I" + sourcePath("dist/runtime") + " " + cpp +
         " -o " + so + " > " + log + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::stringstream out;
    out << std::ifstream(log).rdbuf();
    return error("g++ failed: " + cmd + "\n" + out.str() + "\n--- source ---\n" + source);
  }
  k->handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!k->handle)
    return error(std::string("dlopen failed: ") + dlerror());
  k->fn = reinterpret_cast<argus_cpu_kernel_fn>(dlsym(k->handle, symbol.c_str()));
  if (!k->fn)
    return error("symbol " + symbol + " not found in " + so);
  return std::move(k);
}

LoadedKernel::~LoadedKernel() {
  if (handle)
    dlclose(handle);
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
}

std::unique_ptr<LoadedKernel> buildKernel(const std::string &path, const std::string &kernel,
                                          const CpuTarget &target) {
  std::string symbol = kernel + "_cpu";
  std::string source = emitFromFile(path, kernel, symbol, target);
  if (source.empty())
    return nullptr;
  auto k = LoadedKernel::compile(source, symbol, target);
  if (!k) {
    ADD_FAILURE() << llvm::toString(k.takeError());
    return nullptr;
  }
  return std::move(*k);
}

argus_cpu_arg tensorArg(void *data, std::initializer_list<int64_t> shape,
                        std::initializer_list<int64_t> stride) {
  argus_cpu_arg a{};
  a.tensor.data = data;
  int i = 0;
  for (int64_t s : shape)
    a.tensor.shape[i++] = s;
  i = 0;
  for (int64_t s : stride)
    a.tensor.stride[i++] = s;
  return a;
}

argus_cpu_arg floatArg(double v) {
  argus_cpu_arg a{};
  a.f = v;
  return a;
}

argus_cpu_arg intArg(int64_t v) {
  argus_cpu_arg a{};
  a.i = v;
  return a;
}

} // namespace argus::codegen::testing
