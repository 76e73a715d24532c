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

VerifiedInstance instantiateVerified(mlir::MLIRContext &context, const std::string &path, const std::string &source,
                                     const lowering::Specialization &spec, const std::string &symbol,
                                     const std::string &target) {
  using Outcome = VerifiedInstance::Outcome;
  auto lowered = lowering::compileKernelSource(source, path, context, spec);
  if (auto *failure = std::get_if<lowering::LoweringFailure>(&lowered))
    return {Outcome::Failed, failure->message, ""};
  auto &module = std::get<mlir::OwningOpRef<mlir::ModuleOp>>(lowered);
  mlir::func::FuncOp kernel = findKernel(*module);
  if (!kernel)
    return {Outcome::Failed, path + ": no kernel after lowering", ""};
  // Every instance is proved before it is compiled: a kernel the verifier
  // cannot prove never reaches a library.
  verify::KernelReport proof = verify::verifyKernel(kernel);
  if (!proof.proved_all())
    return {Outcome::Refuted,
            path + ": the verifier refused kernel '" + proof.kernel + "':\n" +
                verify::formatResult(verify::VerifyResult{{proof}}),
            ""};
  llvm::Expected<std::string> code = codegen::emitCpuKernel(kernel, symbol, codegen::CpuTarget{target});
  if (!code)
    return {Outcome::Failed, llvm::toString(code.takeError()), ""};
  return {Outcome::Proved, "", std::move(*code)};
}

llvm::Expected<std::string> instantiateCpuKernel(mlir::MLIRContext &context, const std::string &path,
                                                 const std::string &source, const lowering::Specialization &spec,
                                                 const std::string &symbol, const std::string &target) {
  VerifiedInstance instance = instantiateVerified(context, path, source, spec, symbol, target);
  if (instance.outcome != VerifiedInstance::Outcome::Proved)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), instance.detail);
  return std::move(instance.code);
}

} // namespace argus::emit
