//===- CudaLibraryBuilder.cpp - catalog in, cuda-sm90a library out --------===//
//
// The catalog's GEMMs are grouped and bucketed as for the CPU (planGemms), and
// each bucket gets the Hopper configuration chooseGemmConfig picks for its
// largest m: a rule fitted to H100 and H200 sweeps, so that a library builds on a
// machine without a GPU. What those Hopper kernels cannot take (f16, operands
// TMA cannot address) runs on GEMM kernels generated from
// templates/gemm/gemm_tn_cdna.argus for warps (GeneratedKernels.h). The tables
// (argus_cuda_registry.h), which include the generated units, are emitted as
// one .cu file and compiled by nvcc with the CUDA runtime
// (dist/runtime/cuda/sources.txt); the library links the CUDA runtime
// statically and no libcuda, so it loads on any machine.
//
//===----------------------------------------------------------------------===//
#include "argus/Emit/CudaLibraryBuilder.h"

#include "argus/Catalog/Catalog.h"
#include "argus/Emit/Compiler.h"
#include "argus/Emit/GemmPlan.h"
#include "GeneratedKernels.h"
#include "LibraryFiles.h"

#include "argus_sm90_schedule.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <tuple>
#include <sstream>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace argus::emit {

bool isCudaTarget(const std::string &target) { return target == "cuda-sm90a"; }

std::string nvccCompiler() {
  for (const char *variable : {"ARGUS_NVCC", "CUDACXX"})
    if (const char *value = std::getenv(variable); value && *value)
      return value;
  std::error_code ec;
  if (fs::exists("/usr/local/cuda/bin/nvcc", ec))
    return "/usr/local/cuda/bin/nvcc";
  return "nvcc";
}

namespace {

// H100 and H200 have 132 SMs; the rule only compares tile counts against it.
constexpr int kMultiprocessors = 132;

std::string launcherName(const sm90::GemmConfig &c) {
  if (c.schedule == sm90::GemmSchedule::Rows)
    return "argus::sm90::launchArgusGemmRows<" + std::to_string(c.bm / 8) + ", " + std::to_string(c.split) + ">";
  return "argus::sm90::launchArgusGemm<" +
         std::string(c.schedule == sm90::GemmSchedule::Persistent ? "true" : "false") + ", " + std::to_string(c.bm) +
         ", " + std::to_string(c.bn) + ", " + std::to_string(c.stages) + ", " + std::to_string(c.split) + ">";
}

nlohmann::json configJson(const sm90::GemmConfig &c) {
  if (c.schedule == sm90::GemmSchedule::Rows)
    return {{"schedule", "rows"},
            {"tokens", c.bm},
            {"weight_rows", c.bn},
            {"warps", sm90::kRowsWarps},
            {"unroll", c.stages},
            {"split", c.split}};
  return {{"schedule", c.schedule == sm90::GemmSchedule::Persistent ? "persistent" : "split-k"},
          {"BM", c.bm},
          {"BN", c.bn},
          {"stages", c.stages},
          {"split", c.split}};
}

struct CudaGroup {
  const GemmGroup *group;
  std::vector<GpuBucket> buckets;
  std::vector<sm90::GemmConfig> configs;  // per bucket
};

std::vector<CudaGroup> planCudaGemms(const GemmPlan &plan) {
  std::vector<CudaGroup> groups;
  for (const GemmGroup &g : plan.groups) {
    CudaGroup cuda{&g, {}, {}};
    for (int64_t bound : g.bucketBounds) {
      const sm90::GemmConfig config = sm90::chooseGemmConfig(bound, g.n, g.k, kMultiprocessors);
      cuda.configs.push_back(config);
      cuda.buckets.push_back({bound, "argus_sm90_" + joinedOps(g.ops) + "_m" + std::to_string(bound) + "_" +
                                         sm90::gemmConfigName(config), configJson(config)});
    }
    groups.push_back(std::move(cuda));
  }
  return groups;
}

/// The generated fallback kernels: a decode tile and a larger one, bf16 and f16, on warps
/// (mma.sync). Both keep every register in nvcc 13 (README, "The CUDA backend").
std::vector<GeneratedGemm> fallbackGemms() {
  std::vector<GeneratedGemm> gemms;
  for (bool f16 : {false, true})
    for (auto [bm, bn, wm, wn] : {std::tuple{32, 64, 1, 2}, std::tuple{64, 128, 2, 2}})
      gemms.push_back({std::string("argus_cuda_gemm_") + (f16 ? "f16_" : "") + std::to_string(bm) + "x" +
                           std::to_string(bn) + "_w" + std::to_string(wm) + "x" + std::to_string(wn),
                       bm, bn, wm, wn, f16});
  return gemms;
}

json manifestFor(const catalog::Catalog &cat, const BuildOptions &opt, const fs::path &home,
                 const std::vector<CudaGroup> &groups, const std::vector<GeneratedGemm> &gemms) {
  json gemmGroups = json::array();
  for (const CudaGroup &g : groups)
    gemmGroups.push_back(gpuGemmGroupJson(g.group->ops, g.group->n, g.group->k, g.buckets));
  json manifest = manifestHeader(cat, opt.target);
  manifest.update({{"tuning", "Hopper configurations by rule (chooseGemmConfig, fitted to the sweeps "
                              "bench/results/cuda-gemm-h100.jsonl and cuda-gemm-h200-decode-rows.jsonl); other "
                              "shapes by the same rule at run time"},
                   {"gemm_groups", gemmGroups},
                   {"generated_kernels", generatedKernelsJson(home, kernelsOf(gemms))}});
  return manifest;
}

std::string tablesSource(const std::vector<CudaGroup> &groups, const std::vector<GeneratedGemm> &gemms,
                         const std::string &manifest) {
  std::ostringstream os;
  os << "// Generated by argus-gen: dispatch tables of this cuda-sm90a library. Do not edit.\n"
     << "#include \"argus_cuda_generated_gemm.h\"\n#include \"argus_cuda_launch.h\"\n"
     << "#include \"argus_cuda_registry.h\"\n\n// The generated GEMM kernels (beside this file).\n";
  for (const GeneratedGemm &g : gemms)
    os << "#include \"" << g.symbol << ".cuh\"\n";
  os << "\n";
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string prefix = "group" + std::to_string(i);
    os << gpuBucketArrays(prefix, groups[i].buckets) << "static const argus_cuda_gemm_launcher " << prefix
       << "_launchers[] = {";
    for (size_t b = 0; b < groups[i].configs.size(); ++b)
      os << (b ? ",\n    " : "\n    ") << launcherName(groups[i].configs[b]);
    os << "};\n\n";
  }
  os << "extern \"C\" {\nconst argus_cuda_gemm_group argus_cuda_gemm_groups[] = {\n";
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string prefix = "group" + std::to_string(i);
    os << "  {" << groups[i].group->n << ", " << groups[i].group->k << ", " << groups[i].buckets.size() << ", "
       << prefix << "_bounds, " << prefix << "_launchers, " << prefix << "_names},  //";
    for (const std::string &op : groups[i].group->ops)
      os << " " << op;
    os << "\n";
  }
  if (groups.empty())
    os << "  {0, 0, 0, nullptr, nullptr, nullptr},  // placeholder, count is 0\n";
  os << "};\nconst int32_t argus_cuda_gemm_group_count = " << groups.size() << ";\n\n"
     << "const argus_cuda_generated_gemm argus_cuda_generated_gemms[] = {\n";
  for (const GeneratedGemm &g : gemms)
    os << "  {" << g.bm << ", " << g.bn << ", " << int(g.f16) << ", " << cString(g.symbol)
       << ", &argus_rt::launchGeneratedGemm<" << g.symbol << "_params, " << g.symbol << "_launch, " << g.symbol
       << ">},\n";
  os << "};\nconst int32_t argus_cuda_generated_gemm_count = " << gemms.size() << ";\n"
     << "const char argus_generated_version[] = " << cString(kLibraryVersion) << ";\n"
     << "const char argus_generated_target[] = \"cuda-sm90a\";\n"
     << "const char argus_generated_manifest[] =\n" << cString(manifest) << ";\n}\n";
  return os.str();
}

} // namespace

std::variant<BuildReport, std::string> buildCudaLibrary(const BuildOptions &opt, const catalog::Catalog &cat) {
  const auto start = std::chrono::steady_clock::now();
  const GemmPlan plan = planGemms(catalog::expand(cat));
  for (const GemmGroup &g : plan.groups)
    if (g.types.a != "bf16" || g.types.c != "bf16")
      return "the cuda-sm90a target builds bf16 GEMMs; catalog " + cat.path + " has " + g.types.a + " -> " + g.types.c;
  const std::vector<CudaGroup> groups = planCudaGemms(plan);

  const std::string nvcc = nvccCompiler();
  std::string version;
  if (runCommand({nvcc, "--version"}, version) != 0)
    return "the cuda-sm90a target needs nvcc from CUDA 12 or newer (set ARGUS_NVCC or CUDACXX); running '" + nvcc +
           " --version' failed:\n" + version;

  const fs::path home(opt.homeDir.empty() ? defaultHomeDir() : opt.homeDir), runtimeDir = home / "dist" / "runtime";
  const fs::path out(opt.outDir), srcDir = out / "src", objDir = out / "obj";
  if (std::string failure = createBuildDirs(out); !failure.empty())
    return failure;
  const std::string cacheDir = opt.cacheDir.empty() ? (out / ".cache").string() : opt.cacheDir;
  const std::vector<GeneratedGemm> gemms = fallbackGemms();
  if (std::string failure = emitGeneratedKernels(home, srcDir, kernelsOf(gemms), opt.target, ".cuh", cacheDir); !failure.empty())
    return failure;
  const std::string manifest = manifestFor(cat, opt, home, groups, gemms).dump(2) + "\n";
  std::string error;
  if (!writeIfChanged((out / "manifest.json").string(), manifest, error) ||
      !writeIfChanged((srcDir / "argus_cuda_tables.cu").string(), tablesSource(groups, gemms, manifest), error))
    return error;
  if (opt.log)
    opt.log("catalog " + cat.model + ": " + std::to_string(groups.size()) + " GEMM shapes for cuda-sm90a");

  const std::vector<std::string> flags = {"-O2", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a",
                                          "-Xcompiler", "-fPIC,-fvisibility=hidden,-fvisibility-inlines-hidden",
                                          "-I" + (home / "dist" / "include").string(), "-I" + runtimeDir.string(),
                                          "-I" + (runtimeDir / "gpu").string(), "-I" + (runtimeDir / "cuda").string(),
                                          "-I" + srcDir.string()};
  std::vector<CompileJob> jobs = {
      {(srcDir / "argus_cuda_tables.cu").string(), (objDir / "argus_cuda_tables.o").string(), flags, nvcc}};
  std::vector<std::string> runtime = runtimeSources(runtimeDir / "cuda" / "sources.txt", runtimeDir, error);
  if (runtime.empty())
    return "no CUDA runtime sources: " + error;
  for (const std::string &src : runtime)
    jobs.push_back({src, (objDir / ("runtime_" + fs::path(src).stem().string() + ".o")).string(), flags, nvcc});
  CompileStats stats;
  if (std::string failure = compileAll(jobs, opt.jobs, cacheDir, stats); !failure.empty())
    return failure;

  BuildReport report;
  if (std::string failure = linkLibrary({nvcc, "-shared", "-Xlinker", std::string("-soname=") + kLibrarySoname, "-Xlinker",
                                         "--version-script=" + (runtimeDir / "argus_exports.map").string()},
                                        jobs, home, out, cat, opt.target, manifest, report.libraryPath);
      !failure.empty())
    return failure;

  for (const CudaGroup &g : groups)
    report.kernels += int(g.buckets.size());
  report.tunedKernels = report.kernels;
  report.groups = int(groups.size());
  report.compiled = stats.compiled;
  report.fromCache = stats.fromCache;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

} // namespace argus::emit
