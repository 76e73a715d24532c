//===- GeneratedGemms.cpp - GPU GEMM kernels generated from the template ---===//
#include "GeneratedGemms.h"

#include "argus/Dialect/Argus.h"
#include "argus/Emit/Compiler.h"
#include "argus/Emit/KernelInstance.h"
#include "argus/Emit/LibraryBuilder.h"

namespace fs = std::filesystem;

namespace argus::emit {

namespace {
const char *const kGemmTemplate = "templates/gemm/gemm_tn_cdna.argus";
}

std::string emitGeneratedGemms(const fs::path &home, const fs::path &srcDir, const std::vector<GeneratedGemm> &gemms,
                               const std::string &target, const std::string &extension, const std::string &cacheDir) {
  const std::string templatePath = (home / kGemmTemplate).string();
  std::string source, error;
  if (!readTextFile(templatePath, source, error))
    return "the GEMM template: " + error;
  mlir::DialectRegistry registry;
  registerArgusDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading(); // one kernel at a time; no thread pool to spin up
  for (const GeneratedGemm &g : gemms) {
    lowering::Specialization spec;
    spec.constants = {{"BM", int64_t(g.bm)}, {"BN", int64_t(g.bn)}, {"WM", int64_t(g.wm)}, {"WN", int64_t(g.wn)}};
    if (g.f16)
      spec.constants.insert({{"T", std::string("f16")}, {"TC", std::string("f16")}});
    llvm::Expected<std::string> code =
        instantiateKernelCached(context, templatePath, source, spec, g.symbol, target, cacheDir);
    if (!code)
      return "generating GEMM kernel " + g.symbol + ": " + llvm::toString(code.takeError());
    if (!writeIfChanged((srcDir / (g.symbol + extension)).string(), *code, error))
      return error;
  }
  return "";
}

nlohmann::json generatedGemmsJson(const std::vector<GeneratedGemm> &gemms) {
  nlohmann::json all = nlohmann::json::array();
  for (const GeneratedGemm &g : gemms)
    all.push_back({{"symbol", g.symbol},
                   {"template", kGemmTemplate},
                   {"set", {{"BM", g.bm}, {"BN", g.bn}, {"WM", g.wm}, {"WN", g.wn}, {"T", g.f16 ? "f16" : "bf16"}}},
                   {"proved", true}});
  return all;
}

} // namespace argus::emit
