//===- LibraryBuilder.cpp - catalog in, libargus_kernels.so out -----------===//
#include "argus/Emit/LibraryBuilder.h"

#include "argus/Backend/CodegenCpu.h"
#include "argus/Catalog/Catalog.h"
#include "argus/Catalog/OpConfig.h"
#include "argus/Dialect/Argus.h"
#include "argus/Emit/AttentionPlan.h"
#include "argus/Emit/Compiler.h"
#include "argus/Emit/CudaLibraryBuilder.h"
#include "argus/Emit/GemmPlan.h"
#include "argus/Emit/HipLibraryBuilder.h"
#include "argus/Emit/KernelInstance.h"
#include "argus/Emit/MoePlan.h"
#include "LibraryFiles.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

namespace fs = std::filesystem;
using json = nlohmann::json;

#ifndef ARGUS_SOURCE_DIR
#define ARGUS_SOURCE_DIR "."
#endif

namespace argus::emit {

std::string defaultHomeDir() {
  const char *home = std::getenv("ARGUS_HOME");
  return home && *home ? home : ARGUS_SOURCE_DIR;
}

bool writeIfChanged(const std::string &path, const std::string &text, std::string &error) {
  std::string existing, ignored;
  if (readTextFile(path, existing, ignored) && existing == text)
    return true;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close(); // a full disk may only show when the data is flushed
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

std::vector<std::string> kernelCompileFlags(const std::string &homeDir, const std::string &target) {
  fs::path home(homeDir), runtimeDir = home / "dist" / "runtime";
  std::vector<std::string> flags = codegen::cpuCompileFlags(codegen::CpuTarget{target});
  for (const fs::path &inc : {runtimeDir, runtimeDir / "cpu", home / "dist" / "include"})
    flags.push_back("-I" + inc.string());
  flags.push_back("-fvisibility=hidden");
  return flags;
}

namespace {

/// CPU features a target's kernels execute (names of dist/runtime/argus_isa.h).
std::string targetIsa(const std::string &target) {
  if (target == "cpu-avx512") return "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,fma,f16c";
  if (target == "cpu-avx2") return "avx2,fma,f16c";
  return "";
}

std::string dtypeEnum(const std::string &t) {
  if (t == "f32") return "ARGUS_DTYPE_F32";
  if (t == "f16") return "ARGUS_DTYPE_F16";
  if (t == "bf16") return "ARGUS_DTYPE_BF16";
  if (t == "fp8") return "ARGUS_DTYPE_FP8_E4M3";
  assert(false && "GEMM plans only hold f32, f16, bf16 and fp8 types");
  return "ARGUS_DTYPE_F32";
}

/// Ops whose entry points have no kernel in this library.
json unsupportedOps(const std::vector<AttentionKernel> &attention) {
  json ops = json::array();
  for (AttentionKind kind : {AttentionKind::Prefill, AttentionKind::Decode})
    if (std::none_of(attention.begin(), attention.end(), [&](const AttentionKernel &k) { return k.kind == kind; }))
      ops.push_back(kind == AttentionKind::Prefill ? "attention_prefill" : "attention_decode");
  return ops;
}

json attentionManifest(const std::vector<AttentionKernel> &attention) {
  json kernels = json::array();
  for (const AttentionKernel &k : attention) {
    json entry = {{"symbol", k.symbol},
                  {"op", k.kind == AttentionKind::Prefill ? "attention_prefill" : "attention_decode"},
                  {"template", k.templatePath()},
                  {"dtype", k.dtype},
                  {"head_dim", k.headDim},
                  {"v_head_dim", k.vHeadDim},
                  {"group", k.group},
                  {"serves", k.ops}};
    if (k.kind == AttentionKind::Decode) entry["page_size"] = k.pageSize;
    if (!k.inCatalog) entry["generic"] = true;
    kernels.push_back(entry);
  }
  return kernels;
}

json moeManifest(const std::vector<MoeEntry> &moe) {
  json entries = json::array();
  for (const MoeEntry &e : moe) {
    json tiers = json::array();
    for (const MoeTier &t : e.tiers) {
      json tier = {{"gate_up", t.gateUp.symbol}, {"down", t.down.symbol}, {"block_rows", t.blockRows}};
      if (!t.gateUpPlain.symbol.empty()) tier["gate_up_plain"] = t.gateUpPlain.symbol; // absent: gate_up
      if (!t.downPlain.symbol.empty()) tier["down_plain"] = t.downPlain.symbol;
      if (!t.gateUpTransposed.symbol.empty()) tier["gate_up_transposed"] = t.gateUpTransposed.symbol;
      if (!t.downTransposed.symbol.empty()) tier["down_transposed"] = t.downTransposed.symbol;
      if (t.maxRows != INT64_MAX) tier["max_rows"] = t.maxRows; // absent: any number of rows
      tiers.push_back(tier);
    }
    json entry = {{"name", e.name},
                  {"dtype", e.dtype},
                  {"decode_rows", kMoeDecodeRows},
                  {"tiers", tiers},
                  {"serves", e.ops}};
    if (e.hidden > 0) {
      entry["hidden"] = e.hidden;
      entry["intermediate"] = e.intermediate;
      entry["num_experts"] = e.numExperts;
      entry["top_k"] = e.topK;
    } else {
      entry["generic"] = true;
    }
    entries.push_back(entry);
  }
  return entries;
}

json manifestFor(const catalog::Catalog &cat, const BuildOptions &opt, const GemmPlan &plan,
                 const std::vector<AttentionKernel> &attention, const std::vector<MoeEntry> &moe) {
  json kernels = json::array();
  for (const GemmKernel &k : plan.kernels) {
    json entry = {{"symbol", k.symbol},
                  {"op", "gemm"},
                  {"template", k.templatePath()},
                  {"a_type", k.types.a},
                  {"b_type", k.types.a},
                  {"c_type", k.types.c},
                  {"tiles", {{"BM", k.tiles.bm}, {"BN", k.tiles.bn}, {"BK", k.tiles.bk}}},
                  {"serves", k.ops}};
    if (k.n > 0) {
      entry["n"] = k.n;
      entry["k"] = k.k;
    } else {
      entry["fallback"] = true;
    }
    kernels.push_back(entry);
  }
  auto groupJson = [&](const GemmGroup &g) {
    json buckets = json::array();
    int64_t lo = 1;
    for (size_t i = 0; i < g.bucketBounds.size(); ++i) {
      bool last = i + 1 == g.bucketBounds.size();
      buckets.push_back({{"m_min", lo},
                         {"m_max", last ? json(nullptr) : json(g.bucketBounds[i])},
                         {"kernel", plan.kernels[g.kernelPerBucket[i]].symbol}});
      lo = g.bucketBounds[i] + 1;
    }
    json entry = {{"a_type", g.types.a}, {"c_type", g.types.c}, {"buckets", buckets}};
    if (g.n > 0) {
      entry["ops"] = g.ops;
      entry["n"] = g.n;
      entry["k"] = g.k;
    }
    return entry;
  };
  json groups = json::array(), fallbacks = json::array();
  for (const GemmGroup &g : plan.groups)
    groups.push_back(groupJson(g));
  for (const GemmGroup &g : plan.fallbacks)
    fallbacks.push_back(groupJson(g));
  json manifest = manifestHeader(cat, opt.target);
  manifest.update({{"isa", targetIsa(opt.target)},
                   {"tuning", opt.tuning},
                   {"gemm_groups", groups},
                   {"gemm_fallbacks", fallbacks},
                   {"kernels", kernels},
                   {"attention_kernels", attentionManifest(attention)},
                   {"moe", moeManifest(moe)},
                   {"unsupported_ops", unsupportedOps(attention)}});
  return manifest;
}

/// The table `name` of `kind` kernels (argus_registry.h) and its `countName`.
void attentionTable(std::ostringstream &os, const std::vector<AttentionKernel> &attention, AttentionKind kind,
                    const char *name, const char *countName) {
  os << "const argus_attention_kernel " << name << "[] = {\n";
  int32_t count = 0;
  for (const AttentionKernel &k : attention) {
    if (k.kind != kind)
      continue;
    os << "  {" << dtypeEnum(k.dtype) << ", " << k.headDim << ", " << k.vHeadDim << ", " << k.group << ", "
       << k.pageSize << ", "
       << (k.inCatalog ? 1 : 0) << ", " << k.symbol << ", " << cString(k.symbol) << "},\n";
    ++count;
  }
  if (count == 0)
    os << "  {ARGUS_DTYPE_F32, 0, 0, 0, 0, 0, 0, \"\"},  // placeholder, count is 0\n";
  os << "};\nconst int32_t " << countName << " = " << count << ";\n\n";
}

/// A kernel's symbol in a table, or NULL for none.
std::string symbolOrNull(const MoeKernel &k) { return k.symbol.empty() ? std::string("NULL") : k.symbol; }

/// The argus_moe_kernels table and its count.
void moeTable(std::ostringstream &os, const std::vector<MoeEntry> &moe, const std::string &target) {
  for (size_t i = 0; i < moe.size(); ++i) {
    os << "static const argus_moe_tier moe_tiers_" << i << "[] = {";
    for (const MoeTier &t : moe[i].tiers)
      os << "{" << (t.maxRows == INT64_MAX ? std::string("INT64_MAX") : std::to_string(t.maxRows)) << ", "
         << t.gateUp.symbol << ", " << t.down.symbol << ", " << t.blockRows << ", " << symbolOrNull(t.gateUpPlain)
         << ", " << symbolOrNull(t.downPlain) << ", " << symbolOrNull(t.gateUpTransposed) << ", " << symbolOrNull(t.downTransposed)
         << "}, ";
    os << "};\n";
  }
  os << "const argus_moe_kernel argus_moe_kernels[] = {\n";
  for (size_t i = 0; i < moe.size(); ++i) {
    const MoeEntry &e = moe[i];
    os << "  {" << dtypeEnum(e.dtype) << ", " << e.hidden << ", " << e.intermediate << ", " << (e.inCatalog ? 1 : 0)
       << ", " << kMoeDecodeRows << ", " << e.tiers.size() << ", moe_tiers_" << i << ", " << cString(e.name) << ", "
       << (moeKernelsSkipPaddingRows(e.dtype, target) ? 1 : 0) << "},\n";
  }
  if (moe.empty())
    os << "  {ARGUS_DTYPE_F32, 0, 0, 0, 0, 0, 0, \"\", 0},  // placeholder, count is 0\n";
  os << "};\nconst int32_t argus_moe_kernel_count = " << moe.size() << ";\n\n";
}

std::string tablesSource(const GemmPlan &plan, const std::vector<AttentionKernel> &attention,
                         const std::vector<MoeEntry> &moe, const std::string &manifest, const std::string &isa,
                         const std::string &target) {
  std::ostringstream os;
  os << "// Generated by argus-gen: dispatch tables of this library. Do not edit.\n"
     << "#include \"argus_registry.h\"\n\n";
  for (const GemmKernel &k : plan.kernels)
    os << "extern \"C\" void " << k.symbol << "(const argus_cpu_arg *, int);\n";
  for (const AttentionKernel &k : attention)
    os << "extern \"C\" void " << k.symbol << "(const argus_cpu_arg *, int);\n";
  for (const MoeEntry &e : moe)
    for (const MoeKernel *k : e.kernels())
      os << "extern \"C\" void " << k->symbol << "(const argus_cpu_arg *, int);\n";
  os << "\n";
  // Bucket bounds, kernels and names of each group and fallback.
  auto bucketArrays = [&](const std::string &prefix, const GemmGroup &grp) {
    os << "static const int64_t " << prefix << "_bounds[] = {";
    for (size_t i = 0; i < grp.bucketBounds.size(); ++i) os << (i ? ", " : "") << grp.bucketBounds[i];
    os << "};\nstatic const argus_cpu_kernel_fn " << prefix << "_kernels[] = {";
    for (size_t i = 0; i < grp.kernelPerBucket.size(); ++i)
      os << (i ? ", " : "") << plan.kernels[grp.kernelPerBucket[i]].symbol;
    os << "};\nstatic const char *const " << prefix << "_names[] = {";
    for (size_t i = 0; i < grp.kernelPerBucket.size(); ++i)
      os << (i ? ", " : "") << cString(plan.kernels[grp.kernelPerBucket[i]].symbol);
    os << "};\n";
  };
  auto bucketFields = [&](const std::string &prefix, const GemmGroup &grp) {
    os << grp.bucketBounds.size() << ", " << prefix << "_bounds, " << prefix << "_kernels, " << prefix << "_names}";
  };
  for (size_t g = 0; g < plan.groups.size(); ++g)
    bucketArrays("group" + std::to_string(g), plan.groups[g]);
  for (size_t f = 0; f < plan.fallbacks.size(); ++f)
    bucketArrays("fallback" + std::to_string(f), plan.fallbacks[f]);
  os << "\nextern \"C\" {\nconst argus_gemm_group argus_gemm_groups[] = {\n";
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const GemmGroup &grp = plan.groups[g];
    os << "  {" << grp.n << ", " << grp.k << ", " << dtypeEnum(grp.types.a) << ", " << dtypeEnum(grp.types.a) << ", "
       << dtypeEnum(grp.types.c) << ", ";
    bucketFields("group" + std::to_string(g), grp);
    os << ",  // ";
    for (const std::string &op : grp.ops) os << op << " ";
    os << "\n";
  }
  if (plan.groups.empty())
    os << "  {0, 0, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 0, 0, 0, 0},  // placeholder, count is 0\n";
  os << "};\nconst int32_t argus_gemm_group_count = " << plan.groups.size() << ";\n\n";
  os << "const argus_gemm_fallback argus_gemm_fallbacks[] = {\n";
  for (size_t f = 0; f < plan.fallbacks.size(); ++f) {
    const GemmGroup &fb = plan.fallbacks[f];
    os << "  {" << dtypeEnum(fb.types.a) << ", " << dtypeEnum(fb.types.a) << ", " << dtypeEnum(fb.types.c) << ", ";
    bucketFields("fallback" + std::to_string(f), fb);
    os << ",\n";
  }
  os << "};\nconst int32_t argus_gemm_fallback_count = " << plan.fallbacks.size() << ";\n\n";
  attentionTable(os, attention, AttentionKind::Prefill, "argus_prefill_kernels", "argus_prefill_kernel_count");
  attentionTable(os, attention, AttentionKind::Decode, "argus_decode_kernels", "argus_decode_kernel_count");
  moeTable(os, moe, target);
  os << "const char argus_generated_version[] = " << cString(kLibraryVersion) << ";\n";
  os << "const char argus_generated_isa[] = " << cString(isa) << ";\n";
  os << "const char argus_generated_manifest[] =\n" << cString(manifest) << ";\n}\n";
  return os.str();
}

} // namespace

std::variant<BuildReport, std::string> buildLibrary(const BuildOptions &opt) {
  auto start = std::chrono::steady_clock::now();
  auto log = [&](const std::string &line) {
    if (opt.log) opt.log(line);
  };
  if (!codegen::isCpuTarget(opt.target) && !isCudaTarget(opt.target) && hipArch(opt.target).empty())
    return "unsupported target '" + opt.target +
           "': argus-gen generates cpu-avx512, cpu-avx2, cuda-sm90a, hip-gfx942 and hip-gfx90a";
  if (opt.outDir.empty())
    return std::string("no output directory given (--out DIR)");

  catalog::Result<catalog::Catalog> loaded = catalog::loadCatalog(opt.catalogPath);
  if (!loaded)
    return loaded.error().format();
  const catalog::Catalog &cat = loaded.value();
  if (isCudaTarget(opt.target))
    return buildCudaLibrary(opt, cat);
  if (!hipArch(opt.target).empty())
    return buildHipLibrary(opt, cat);
  std::vector<catalog::OpConfig> configs = catalog::expand(cat);
  GemmPlan plan = planGemms(configs, opt.chooseGemmTiles, codegen::cpuTargetWidensBf16(opt.target));
  std::vector<AttentionKernel> attention = planAttention(configs, opt.chooseAttentionTiles);
  std::vector<MoeEntry> moe = planMoe(configs, opt.chooseMoeTiles, codegen::cpuTargetWidensBf16(opt.target));
  log("catalog " + cat.model + ": " + std::to_string(configs.size()) + " op configurations, " +
      std::to_string(plan.groups.size()) + " GEMM shapes, " + std::to_string(plan.kernels.size()) +
      " GEMM kernels, " + std::to_string(attention.size()) + " attention kernels, " +
      std::to_string(std::accumulate(moe.begin(), moe.end(), size_t(0),
                                     [](size_t n, const MoeEntry &e) { return n + e.kernels().size(); })) +
      " MoE kernels");

  // Every kernel instance: its template and specialisation.
  struct Instance {
    std::string symbol, templatePath;
    lowering::Specialization spec;
  };
  std::vector<Instance> instances;
  for (const GemmKernel &k : plan.kernels)
    instances.push_back({k.symbol, k.templatePath(), k.specialization()});
  for (const AttentionKernel &k : attention)
    instances.push_back({k.symbol, k.templatePath(), k.specialization()});
  for (const MoeEntry &e : moe)
    for (const MoeKernel *k : e.kernels())
      instances.push_back({k->symbol, k->templatePath, k->spec});

  fs::path home(opt.homeDir.empty() ? defaultHomeDir() : opt.homeDir);
  fs::path runtimeDir = home / "dist" / "runtime";
  fs::path out(opt.outDir);
  fs::path srcDir = out / "src", objDir = out / "obj", libDir = out / "lib", includeDir = out / "include";
  std::error_code ec;
  for (const fs::path &d : {srcDir / "kernels", objDir, libDir, includeDir}) {
    fs::create_directories(d, ec);
    if (ec) return "cannot create '" + d.string() + "': " + ec.message();
  }
  std::string error;
  std::map<std::string, std::string> templateTexts; // by path, read once
  for (const Instance &in : instances) {
    std::string &text = templateTexts[in.templatePath];
    if (!text.empty()) continue;
    if (auto source = opt.kernelSources.find(in.templatePath); source != opt.kernelSources.end())
      text = source->second;
    else if (!readTextFile((home / in.templatePath).string(), text, error))
      return error + " (is ARGUS_HOME or --home the Argus tree?)";
  }

  // --- Kernels: DSL → argus dialect → C++ (proved instances are cached too).
  const std::string cacheDir = opt.cacheDir.empty() ? (out / ".cache").string() : opt.cacheDir;
  mlir::DialectRegistry registry;
  registerArgusDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading(); // one kernel at a time; no thread pool to spin up
  std::vector<CompileJob> jobs;
  std::vector<std::string> kernelFlags = kernelCompileFlags(home.string(), opt.target);
  for (const Instance &in : instances) {
    llvm::Expected<std::string> code =
        instantiateKernelCached(context, (home / in.templatePath).string(), templateTexts[in.templatePath],
                                   in.spec, in.symbol, opt.target, cacheDir);
    if (!code)
      return "kernel " + in.symbol + ":\n" + llvm::toString(code.takeError());
    fs::path src = srcDir / "kernels" / (in.symbol + ".cpp");
    if (!writeIfChanged(src, *code, error))
      return error;
    jobs.push_back({src.string(), (objDir / (in.symbol + ".o")).string(), kernelFlags});
  }
  log("lowered " + std::to_string(instances.size()) + " kernels to C++");

  // --- Tables and manifest.
  std::string manifest = manifestFor(cat, opt, plan, attention, moe).dump(2) + "\n";
  if (!writeIfChanged(out / "manifest.json", manifest, error) ||
      !writeIfChanged(srcDir / "argus_tables.cpp", tablesSource(plan, attention, moe, manifest, targetIsa(opt.target), opt.target), error))
    return error;
  std::vector<std::string> runtimeFlags = {"-O2", "-std=c++17", "-fPIC", "-fvisibility=hidden",
                                           "-fvisibility-inlines-hidden", "-fopenmp",
                                           "-I" + (home / "dist" / "include").string(), "-I" + runtimeDir.string()};
  jobs.push_back({(srcDir / "argus_tables.cpp").string(), (objDir / "argus_tables.o").string(), runtimeFlags});
  std::vector<std::string> runtime = runtimeSources(runtimeDir / "sources.txt", runtimeDir, error);
  if (runtime.empty())
    return "no runtime sources: " + error;
  for (const std::string &src : runtime)
    jobs.push_back({src, (objDir / ("runtime_" + fs::path(src).stem().string() + ".o")).string(), runtimeFlags});

  // --- Compile and link.
  CompileStats stats;
  size_t done = 0;
  std::string failure = compileAll(jobs, opt.jobs, cacheDir, stats, [&](const std::string &) {
    if (++done % 10 == 0 || done == jobs.size())
      log("compiled " + std::to_string(done) + "/" + std::to_string(jobs.size()));
  });
  if (!failure.empty())
    return failure;

  std::string library;
  if (std::string error = linkLibrary({cxxCompiler(), "-shared", "-fopenmp", std::string("-Wl,-soname,") + kLibrarySoname,
                                       "-Wl,--version-script=" + (runtimeDir / "argus_exports.map").string()},
                                      jobs, home, out, cat, opt.target, manifest, library);
      !error.empty())
    return error;

  BuildReport report;
  report.libraryPath = library;
  report.kernels = static_cast<int>(instances.size());
  report.fallbacks = static_cast<int>(std::count_if(plan.kernels.begin(), plan.kernels.end(),
                                                    [](const GemmKernel &k) { return k.n == 0; })) +
                     static_cast<int>(std::count_if(attention.begin(), attention.end(),
                                                    [](const AttentionKernel &k) { return !k.inCatalog; })) +
                     std::accumulate(moe.begin(), moe.end(), 0, [](int sum, const MoeEntry &e) {
                       return sum + (e.inCatalog ? 0 : static_cast<int>(e.kernels().size()));
                     });
  report.tunedKernels = report.kernels - report.fallbacks;
  report.groups = static_cast<int>(plan.groups.size());
  report.compiled = stats.compiled;
  report.fromCache = stats.fromCache;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

} // namespace argus::emit
