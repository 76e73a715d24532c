//===- KernelInstance.cpp - template instance to CPU C++ or HIP C++ -------===//
#include "argus/Emit/KernelInstance.h"

#include <cctype>

#include "argus/Backend/CodegenCpu.h"
#include "argus/Backend/CodegenGpu.h"
#include "argus/Dialect/Argus.h"
#include "argus/Verify/Verifier.h"

#include "argus/Emit/Compiler.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace argus::emit {

mlir::func::FuncOp findKernel(mlir::ModuleOp module) {
  for (auto fn : module.getOps<mlir::func::FuncOp>())
    if (fn->hasAttr(kernel_attr::kKernel))
      return fn;
  return {};
}

std::string replacementSymbolSuffix(const std::string &replacement) {
  if (replacement.empty()) return "";
  std::string stem = replacement.substr(replacement.find_last_of('/') + 1);
  stem = stem.substr(0, stem.find('.'));
  std::string suffix = "_x";
  for (char c : stem)
    if (std::isalnum(static_cast<unsigned char>(c))) suffix += c;
  return suffix;
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
  llvm::Expected<std::string> code = codegen::isGpuTarget(target)
                                         ? codegen::emitGpuKernel(kernel, symbol, target)
                                         : codegen::emitCpuKernel(kernel, symbol, codegen::CpuTarget{target});
  if (!code)
    return {Outcome::Failed, llvm::toString(code.takeError()), ""};
  return {Outcome::Proved, "", std::move(*code)};
}

llvm::Expected<std::string> instantiateKernel(mlir::MLIRContext &context, const std::string &path,
                                                 const std::string &source, const lowering::Specialization &spec,
                                                 const std::string &symbol, const std::string &target) {
  VerifiedInstance instance = instantiateVerified(context, path, source, spec, symbol, target);
  if (instance.outcome != VerifiedInstance::Outcome::Proved)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), instance.detail);
  return std::move(instance.code);
}

namespace {

/// Hash of the running executable: the code that lowers, proves and emits.
const std::string &generatorIdentity() {
  static const std::string id = [] {
    std::string bytes, error;
    return readTextFile("/proc/self/exe", bytes, error) ? contentHash(bytes) : std::string();
  }();
  return id;
}

std::string specializationText(const lowering::Specialization &spec) {
  std::ostringstream os;
  for (const auto &[name, value] : spec.constants) {
    os << name << "=";
    std::visit([&](const auto &v) { os << v; }, value);
    os << ";";
  }
  for (const auto &[name, size] : spec.dims) os << name << ":" << size << ";";
  return os.str();
}

} // namespace

llvm::Expected<std::string> instantiateKernelCached(mlir::MLIRContext &context, const std::string &path,
                                                       const std::string &source,
                                                       const lowering::Specialization &spec,
                                                       const std::string &symbol, const std::string &target,
                                                       const std::string &cacheDir) {
  if (cacheDir.empty() || generatorIdentity().empty())
    return instantiateKernel(context, path, source, spec, symbol, target);
  const std::string key = contentHash(generatorIdentity() + "\n" + path + "\n" + source + "\n" +
                                      specializationText(spec) + "\n" + symbol + "\n" + target);
  const fs::path cached = fs::path(cacheDir) / "instances" / (key + ".cpp");
  std::string code, ignored;
  if (readTextFile(cached.string(), code, ignored)) return code;
  llvm::Expected<std::string> fresh = instantiateKernel(context, path, source, spec, symbol, target);
  if (!fresh) return fresh.takeError();
  // Only proved instances get here. Written whole, then renamed: a reader
  // never sees half a source.
  std::error_code ec;
  fs::create_directories(cached.parent_path(), ec);
  fs::path tmp = cached;
  tmp += ".tmp" + std::to_string(getpid());
  std::ofstream(tmp, std::ios::binary) << *fresh;
  fs::rename(tmp, cached, ec);
  return fresh;
}

} // namespace argus::emit
