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

/// The text of the template at `path`, read once (`texts` keeps it); null,
/// with `error`, when it cannot be read.
static const std::string *templateText(std::map<std::string, std::string> &texts, const std::string &path,
                                       std::string &error) {
  auto [text, fresh] = texts.try_emplace(path);
  if (fresh && !readTextFile(path, text->second, error)) {
    texts.erase(text);
    return nullptr;
  }
  return &text->second;
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
    std::string error;
    const std::string *source = templateText(sources, templatePath, error);
    if (!source)
      return "the template of " + k.symbol + ": " + error;
    llvm::Expected<std::string> code =
        instantiateKernelCached(context, templatePath, *source, k.spec, k.symbol, target, cacheDir);
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

/// Every const and dtype parameter of the kernel `source` lowers to under
/// `spec` (lowering's argus.constants); null where it does not lower (the
/// build that emitted the kernel has said why).
static nlohmann::json resolvedParameters(mlir::MLIRContext &context, const std::string &source, const std::string &path,
                                         const lowering::Specialization &spec) {
  auto lowered = lowering::compileKernelSource(source, path, context, spec);
  if (std::holds_alternative<lowering::LoweringFailure>(lowered))
    return nullptr;
  nlohmann::json resolved = nlohmann::json::object();
  std::get<mlir::OwningOpRef<mlir::ModuleOp>>(lowered)->walk([&](mlir::func::FuncOp f) {
    auto constants = f->getAttrOfType<mlir::DictionaryAttr>(kernel_attr::kConstants);
    if (!f->hasAttr(kernel_attr::kKernel) || !constants)
      return;
    for (mlir::NamedAttribute c : constants) {
      const std::string name = c.getName().str();
      if (auto b = mlir::dyn_cast<mlir::BoolAttr>(c.getValue()))
        resolved[name] = b.getValue();
      else if (auto i = mlir::dyn_cast<mlir::IntegerAttr>(c.getValue()))
        resolved[name] = i.getInt();
      else if (auto x = mlir::dyn_cast<mlir::FloatAttr>(c.getValue()))
        resolved[name] = x.getValueAsDouble();
      else if (auto s = mlir::dyn_cast<mlir::StringAttr>(c.getValue()))
        resolved[name] = s.str();
    }
  });
  return resolved;
}

nlohmann::json generatedKernelsJson(const fs::path &home, const std::vector<GeneratedKernel> &kernels) {
  mlir::DialectRegistry registry;
  registerArgusDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  std::map<std::string, std::string> sources; // template path -> its text
  nlohmann::json all = nlohmann::json::array();
  for (const GeneratedKernel &k : kernels) {
    nlohmann::json set = nlohmann::json::object();
    for (const auto &[name, value] : k.spec.constants)
      std::visit([&, &name = name](const auto &v) { set[name] = v; }, value);
    const std::string templatePath = (home / k.templatePath).string();
    std::string error;
    nlohmann::json parameters = nullptr;
    if (const std::string *source = templateText(sources, templatePath, error))
      parameters = resolvedParameters(context, *source, templatePath, k.spec);
    all.push_back({{"symbol", k.symbol}, {"template", k.templatePath}, {"set", set}, {"parameters", parameters},
                   {"proved", true}});
  }
  return all;
}

} // namespace argus::emit
