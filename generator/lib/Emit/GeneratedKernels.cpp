//===- GeneratedKernels.cpp - GPU kernels generated from templates --------===//
#include "GeneratedKernels.h"

#include "argus/Dialect/Argus.h"
#include "argus/Emit/Compiler.h"
#include "argus/Emit/KernelInstance.h"
#include "argus/Emit/LibraryBuilder.h"

#include <map>

namespace fs = std::filesystem;

namespace argus::emit {

GeneratedKernel GeneratedGemm::kernel() const {
  GeneratedKernel k{symbol, "templates/gemm/gemm_tn_cdna.argus", {}};
  k.spec.constants = {{"BM", int64_t(bm)}, {"BN", int64_t(bn)}, {"WM", int64_t(wm)}, {"WN", int64_t(wn)}};
  if (f16) // bf16 is the template's default: a bf16 instance sets what the tests' instances set
    k.spec.constants.insert({{"T", std::string("f16")}, {"TC", std::string("f16")}});
  return k;
}

GeneratedKernel GeneratedPrefill::kernel() const {
  GeneratedKernel k{symbol, "templates/attention/attention_prefill_cdna.argus", {}, /*optional=*/true};
  k.spec.constants = {{"GROUP", int64_t(group)}, {"D", int64_t(headDim)}, {"DV", int64_t(valueDim)}};
  if (f16)
    k.spec.constants.insert({"T", std::string("f16")});
  return k;
}

GeneratedKernel GeneratedDecode::kernel() const {
  GeneratedKernel k{symbol, "templates/attention/attention_decode_cdna.argus", {}, /*optional=*/true};
  k.spec.constants = {{"GROUP", int64_t(group)}, {"D", int64_t(headDim)}, {"DV", int64_t(valueDim)},
                      {"PAGE", int64_t(pageSize)}};
  if (f16)
    k.spec.constants.insert({"T", std::string("f16")});
  return k;
}

std::string emitGeneratedKernels(const fs::path &home, const fs::path &srcDir,
                                 const std::vector<GeneratedKernel> &kernels, const std::string &target,
                                 const std::string &extension, const std::string &cacheDir,
                                 std::vector<LeftOutKernel> *leftOut) {
  mlir::DialectRegistry registry;
  registerArgusDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading(); // one kernel at a time; no thread pool to spin up
  std::map<std::string, std::string> sources; // template path -> its text
  for (const GeneratedKernel &k : kernels) {
    const std::string templatePath = (home / k.templatePath).string();
    auto [source, fresh] = sources.try_emplace(templatePath);
    std::string error;
    if (fresh && !readTextFile(templatePath, source->second, error))
      return "the template of " + k.symbol + ": " + error;
    llvm::Expected<std::string> code =
        instantiateKernelCached(context, templatePath, source->second, k.spec, k.symbol, target, cacheDir);
    if (!code) {
      const std::string why = llvm::toString(code.takeError());
      if (!k.optional || !leftOut)
        return "generating kernel " + k.symbol + ": " + why;
      leftOut->push_back({k.symbol, why});
      continue;
    }
    if (!writeIfChanged((srcDir / (k.symbol + extension)).string(), *code, error))
      return error;
  }
  return "";
}

nlohmann::json generatedKernelsJson(const std::vector<GeneratedKernel> &kernels) {
  nlohmann::json all = nlohmann::json::array();
  for (const GeneratedKernel &k : kernels) {
    nlohmann::json set = nlohmann::json::object();
    for (const auto &[name, value] : k.spec.constants)
      std::visit([&, &name = name](const auto &v) { set[name] = v; }, value);
    all.push_back({{"symbol", k.symbol}, {"template", k.templatePath}, {"set", set}, {"proved", true}});
  }
  return all;
}

} // namespace argus::emit
