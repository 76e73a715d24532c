//===- KernelInstance.cpp - template instance to CPU C++ ------------------===//
#include "argus/Emit/KernelInstance.h"

#include "argus/Backend/CodegenCpu.h"
#include "argus/Dialect/Argus.h"
#include "argus/Verify/Verifier.h"

#include <fstream>
#include <sstream>

namespace argus::emit {

mlir::func::FuncOp findKernel(mlir::ModuleOp module) {
  for (auto fn : module.getOps<mlir::func::FuncOp>())
    if (fn->hasAttr(kernel_attr::kKernel))
      return fn;
  return {};
}

bool readTextFile(const std::string &path, std::string &text, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

llvm::Expected<std::string> instantiateCpuKernel(mlir::MLIRContext &context, const std::string &path,
                                                 const std::string &source, const lowering::Specialization &spec,
                                                 const std::string &symbol, const std::string &target) {
  auto lowered = lowering::compileKernelSource(source, path, context, spec);
  if (auto *failure = std::get_if<lowering::LoweringFailure>(&lowered))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), failure->message);
  auto &module = std::get<mlir::OwningOpRef<mlir::ModuleOp>>(lowered);
  mlir::func::FuncOp kernel = findKernel(*module);
  if (!kernel)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), path + ": no kernel after lowering");
  // Every instance is proved before it is compiled: a kernel the verifier
  // cannot prove never reaches a library.
  verify::KernelReport proof = verify::verifyKernel(kernel);
  if (!proof.proved_all())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": the verifier refused kernel '" + proof.kernel + "':\n" +
                                       verify::formatResult(verify::VerifyResult{{proof}}));
  return codegen::emitCpuKernel(kernel, symbol, codegen::CpuTarget{target});
}

} // namespace argus::emit
