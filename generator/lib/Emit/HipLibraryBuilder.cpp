//===- HipLibraryBuilder.cpp - catalog in, hip library out -----------------===//
//
// The catalog's GEMMs are grouped and bucketed as for the CPU (planGemms);
// each bucket gets the CDNA kernel shape chooseGemmShape picks for its
// largest m. The GEMM kernels are generated: every shape of kGemmShapes, bf16
// and (where the shape says so) f16, is an instance of templates/gemm/gemm_tn_cdna.argus that is
// proved and emitted by the HIP backend. So are the attention kernels: one
// instance of templates/attention/attention_prefill_cdna.argus (varlen
// prefill) per catalog attention configuration (GQA group, head dims) and one
// of templates/attention/attention_decode_cdna.argus (paged decode) per
// configuration and page size, bf16 and f16; and the whole MoE pipeline,
// route, align (three steps), gather, expert GEMMs and combine:
// templates/moe/moe_route.argus, moe_align_{offsets,rows,choice_row}.argus,
// moe_gather.argus, moe_{gate_up,down}_cdna.argus and moe_combine.argus,
// which serve every shape. No kernel is hand-written. Three things are
// compiled:
//   the code object   argus_hip_code_object.hip (the generated units) by
//                     clang-22 for the target's GPU, inspected
//                     (CodeObject.h) before it is accepted;
//   its embedding     a generated C++ byte array, with the dispatch tables
//                     (argus_hip_registry.h) and each generated kernel's
//                     launcher (argus_hip_gemm_launch.h);
//   the runtime       dist/runtime/hip/sources.txt, by the host compiler.
// The library links only libdl, so it loads on any Linux machine.
//
//===----------------------------------------------------------------------===//
#include "argus/Emit/HipLibraryBuilder.h"

#include "argus/Catalog/Catalog.h"
#include "argus/Emit/AttentionPlan.h"
#include "argus/Emit/CodeObject.h"
#include "argus/Emit/Compiler.h"
#include "argus/Emit/GemmPlan.h"
#include "GeneratedKernels.h"
#include "LibraryFiles.h"

#include "argus_hip_schedule.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <variant>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace argus::emit {

std::string hipArch(const std::string &target) {
  if (target == "hip-gfx942") return "gfx942";
  if (target == "hip-gfx90a") return "gfx90a";
  return "";
}

namespace {

struct HipGroup {
  const GemmGroup *group;
  std::vector<GpuBucket> buckets;
  std::vector<int> shapes;  // per bucket, an index into hip::kGemmShapes
};

int shapeIndex(const hip::GemmShape &s) {
  for (int i = 0; i < hip::kGemmShapeCount; ++i)
    if (hip::kGemmShapes[i] == s)
      return i;
  return -1;
}

std::vector<HipGroup> planHipGemms(const GemmPlan &plan, const std::string &arch) {
  std::vector<HipGroup> groups;
  for (const GemmGroup &g : plan.groups) {
    HipGroup hipGroup{&g, {}, {}};
    for (int64_t bound : g.bucketBounds) {
      const hip::GemmShape s = hip::chooseGemmShape(bound, g.n, hip::computeUnits(arch == "gfx942"));
      char symbol[48];
      hip::gemmKernelSymbol(s, /*f16=*/false, symbol);
      hipGroup.shapes.push_back(shapeIndex(s));
      hipGroup.buckets.push_back({bound, std::string(symbol) + "_" + joinedOps(g.ops) + "_m" + std::to_string(bound),
                                  {{"kernel_symbol", symbol}, {"BM", s.bm}, {"BN", s.bn}, {"waves", s.waves()}}});
    }
    groups.push_back(std::move(hipGroup));
  }
  return groups;
}

/// Every GEMM kernel of the code object: each shape of kGemmShapes in bf16,
/// and in f16 where the shape says so.
std::vector<GeneratedGemm> libraryGemms() {
  std::vector<GeneratedGemm> gemms;
  for (const hip::GemmShape &s : hip::kGemmShapes)
    for (bool f16 : {false, true}) {
      if (f16 && !s.inF16)
        continue;
      char symbol[48];
      hip::gemmKernelSymbol(s, f16, symbol);
      gemms.push_back({symbol, s.bm, s.bn, s.wm, s.wn, f16});
    }
  return gemms;
}

/// The generated MoE kernels in pipeline order (argus_hip_moe_kernels'), each
/// with the function of argus_gpu_generated_moe.h that fills its parameters.
const std::vector<GeneratedMoe> &libraryMoe() {
  static const std::vector<GeneratedMoe> moe = {
      {"argus_hip_moe_route", "templates/moe/moe_route.argus", "generatedRouteParams"},
      {"argus_hip_moe_align_offsets", "templates/moe/moe_align_offsets.argus", "generatedAlignOffsetsParams"},
      {"argus_hip_moe_align_rows", "templates/moe/moe_align_rows.argus", "generatedAlignRowsParams"},
      {"argus_hip_moe_align_choice_row", "templates/moe/moe_align_choice_row.argus",
       "generatedAlignChoiceRowParams"},
      {"argus_hip_moe_gather", "templates/moe/moe_gather.argus", "generatedGatherParams"},
      {"argus_hip_moe_gate_up", "templates/moe/moe_gate_up_cdna.argus", "generatedGateUpParams"},
      {"argus_hip_moe_down", "templates/moe/moe_down_cdna.argus", "generatedDownParams"},
      {"argus_hip_moe_combine", "templates/moe/moe_combine.argus", "generatedCombineParams"}};
  return moe;
}

/// Adds `item` unless one of `items` has its symbol (several catalog ops share a configuration).
template <class Item>
void addOnce(std::vector<Item> &items, Item item) {
  if (std::none_of(items.begin(), items.end(), [&](const Item &i) { return i.symbol == item.symbol; }))
    items.push_back(std::move(item));
}

/// A prefill kernel, bf16 and f16, per attention configuration of the catalog.
std::vector<GeneratedPrefill> libraryPrefills(const catalog::Catalog &cat) {
  std::vector<GeneratedPrefill> prefills;
  for (const AttentionKernel &k : planAttention(catalog::expand(cat))) {
    if (k.kind != AttentionKind::Prefill || !k.inCatalog)
      continue;
    for (bool f16 : {false, true}) // argus_hip_prefill[_f16]_g<GROUP>_d<D>_<DV>, as test/hip names its instances
      addOnce(prefills, {std::string("argus_hip_prefill_") + (f16 ? "f16_" : "") + "g" + std::to_string(k.group) +
                             "_d" + std::to_string(k.headDim) + "_" + std::to_string(k.vHeadDim),
                         int(k.group), int(k.headDim), int(k.vHeadDim), f16});
  }
  return prefills;
}

/// A decode kernel, bf16 and f16, per attention configuration of the catalog.
std::vector<GeneratedDecode> libraryDecodes(const catalog::Catalog &cat) {
  std::vector<GeneratedDecode> decodes;
  for (const AttentionKernel &k : planAttention(catalog::expand(cat))) {
    if (k.kind != AttentionKind::Decode || !k.inCatalog)
      continue;
    for (bool f16 : {false, true}) // argus_hip_decode[_f16]_g<GROUP>_d<D>_<DV>_p<PAGE>, likewise
      addOnce(decodes, {std::string("argus_hip_decode_") + (f16 ? "f16_" : "") + "g" + std::to_string(k.group) +
                            "_d" + std::to_string(k.headDim) + "_" + std::to_string(k.vHeadDim) + "_p" +
                            std::to_string(k.pageSize),
                        int(k.group), int(k.headDim), int(k.vHeadDim), int(k.pageSize), f16});
  }
  return decodes;
}

/// `items` without those `leftOut` names.
template <class Item>
void dropLeftOut(std::vector<Item> &items, const std::vector<LeftOutKernel> &leftOut) {
  items.erase(std::remove_if(items.begin(), items.end(),
                             [&](const Item &item) {
                               return std::any_of(leftOut.begin(), leftOut.end(),
                                                  [&](const LeftOutKernel &k) { return k.symbol == item.symbol; });
                             }),
              items.end());
}

/// The unit clang compiles into the code object: the generated kernels.
std::string codeObjectSource(const std::vector<GeneratedKernel> &generated, const std::string &target) {
  std::ostringstream os;
  os << "// Generated by argus-gen: every kernel of this " << target << " library's code object. Do not edit.\n";
  for (const GeneratedKernel &k : generated)
    os << "#include \"" << k.symbol << ".hip\"\n";
  return os.str();
}

json manifestFor(const catalog::Catalog &cat, const BuildOptions &opt, const fs::path &home,
                 const std::vector<HipGroup> &groups,
                 const std::vector<GeneratedKernel> &generated, const CodeObjectInfo &code,
                 const std::vector<LeftOutKernel> &leftOut) {
  json gemmGroups = json::array(), kernels = json::array(), leftOutJson = json::array();
  for (const LeftOutKernel &k : leftOut)
    leftOutJson.push_back({{"symbol", k.symbol}, {"why", k.why}});
  for (const HipGroup &g : groups)
    gemmGroups.push_back(gpuGemmGroupJson(g.group->ops, g.group->n, g.group->k, g.buckets));
  for (const KernelResources &k : code.kernels)
    kernels.push_back(k.toJson());
  json manifest = manifestHeader(cat, opt.target);
  manifest.update({{"tuning", "CDNA kernel shapes by rule (chooseGemmShape: occupancy, not measured; no AMD GPU has "
                              "run these kernels); other shapes by the same rule at run time"},
                   {"code_object", {{"target", code.target}, {"kernels", kernels}}},
                   {"generated_kernels", generatedKernelsJson(home, generated)},
                   {"left_out_kernels", leftOutJson},
                   {"gemm_groups", gemmGroups}});
  return manifest;
}

std::string tablesSource(const std::vector<HipGroup> &groups, const std::vector<GeneratedGemm> &gemms,
                         const std::vector<GeneratedPrefill> &prefills, const std::vector<GeneratedDecode> &decodes,
                         const std::string &target,
                         const std::string &arch, const std::string &codeObject, const std::string &manifest) {
  std::ostringstream os;
  os << "// Generated by argus-gen: dispatch tables and code object of this " << target
     << " library. Do not edit.\n#include \"argus_hip_attention_launch.h\"\n#include \"argus_hip_gemm_launch.h\"\n"
     << "#include \"argus_hip_moe_launch.h\"\n"
     << "#include \"argus_hip_registry.h\"\n\n"
     << "// The generated kernels' parameter structs and launch functions (host code only).\n"
     << "#define ARGUS_GPU_LAUNCH_ONLY 1\n";
  for (const GeneratedGemm &g : gemms)
    os << "#include \"" << g.symbol << ".hip\"\n";
  for (const GeneratedKernel &k : kernelsOf(prefills))
    os << "#include \"" << k.symbol << ".hip\"\n";
  for (const GeneratedKernel &k : kernelsOf(decodes))
    os << "#include \"" << k.symbol << ".hip\"\n";
  for (const GeneratedMoe &m : libraryMoe())
    os << "#include \"" << m.symbol << ".hip\"\n";
  os << "\n";
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string prefix = "group" + std::to_string(i);
    os << gpuBucketArrays(prefix, groups[i].buckets) << "static const int32_t " << prefix << "_shapes[] = {";
    for (size_t b = 0; b < groups[i].shapes.size(); ++b)
      os << (b ? ", " : "") << groups[i].shapes[b];
    os << "};\n\n";
  }
  os << "extern \"C\" {\nconst argus_hip_gemm_group argus_hip_gemm_groups[] = {\n";
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string prefix = "group" + std::to_string(i);
    os << "  {" << groups[i].group->n << ", " << groups[i].group->k << ", " << groups[i].buckets.size() << ", "
       << prefix << "_bounds, " << prefix << "_shapes, " << prefix << "_names},  // " << joinedOps(groups[i].group->ops)
       << "\n";
  }
  if (groups.empty())
    os << "  {0, 0, 0, nullptr, nullptr, nullptr},  // placeholder, count is 0\n";
  os << "};\nconst int32_t argus_hip_gemm_group_count = " << groups.size() << ";\n\n"
     << "const argus_hip_gemm_kernel argus_hip_gemm_kernels[] = {\n";
  for (const GeneratedGemm &g : gemms)
    os << "  {" << shapeIndex({g.bm, g.bn, g.wm, g.wn}) << ", " << int(g.f16) << ", " << cString(g.symbol) << ", &argus_rt::launchGeneratedGemm<"
       << g.symbol << "_params, " << g.symbol << "_launch>},\n";
  os << "};\nconst int32_t argus_hip_gemm_kernel_count = " << gemms.size() << ";\n\n"
     << "const argus_hip_prefill_kernel argus_hip_prefill_kernels[] = {\n";
  for (const GeneratedPrefill &p : prefills)
    os << "  {" << int(p.f16) << ", " << p.group << ", " << p.headDim << ", " << p.valueDim << ", " << cString(p.symbol)
       << ", &argus_rt::launchGeneratedAttention<" << p.symbol << "_params, " << p.symbol
       << "_launch, argus_attention_prefill_args>},\n";
  if (prefills.empty())
    os << "  {0, 0, 0, 0, nullptr, nullptr},  // placeholder, count is 0\n";
  os << "};\nconst int32_t argus_hip_prefill_kernel_count = " << prefills.size() << ";\n\n"
     << "const argus_hip_decode_kernel argus_hip_decode_kernels[] = {\n";
  for (const GeneratedDecode &d : decodes)
    os << "  {" << int(d.f16) << ", " << d.group << ", " << d.headDim << ", " << d.valueDim << ", " << d.pageSize << ", "
       << cString(d.symbol) << ", &argus_rt::launchGeneratedAttention<" << d.symbol << "_params, " << d.symbol
       << "_launch, argus_attention_decode_args>},\n";
  if (decodes.empty())
    os << "  {0, 0, 0, 0, 0, nullptr, nullptr},  // placeholder, count is 0\n";
  os << "};\nconst int32_t argus_hip_decode_kernel_count = " << decodes.size() << ";\n\n"
     << "const argus_hip_moe_kernel argus_hip_moe_kernels[" << libraryMoe().size() << "] = {\n";
  for (const GeneratedMoe &m : libraryMoe())
    os << "  {" << cString(m.symbol) << ", &argus_rt::launchGeneratedMoe<" << m.symbol << "_params, " << m.symbol
       << "_launch, &argus_rt::" << m.fillParams << "<" << m.symbol << "_params>>},\n";
  os << "};\n"
     << "const char argus_hip_arch[] = " << cString(arch) << ";\n"
     << "const char argus_generated_target[] = " << cString(target) << ";\n"
     << "const char argus_generated_version[] = " << cString(kLibraryVersion) << ";\n"
     << "const char argus_generated_manifest[] =\n" << cString(manifest) << ";\n"
     << "alignas(4096) const unsigned char argus_hip_code_object[] = {";
  for (size_t i = 0; i < codeObject.size(); ++i)
    os << (i % 24 ? "" : "\n ") << unsigned(static_cast<unsigned char>(codeObject[i])) << ",";
  os << "\n};\nconst uint64_t argus_hip_code_object_size = " << codeObject.size() << ";\n}\n";
  return os.str();
}

} // namespace

std::variant<BuildReport, std::string> buildHipLibrary(const BuildOptions &opt, const catalog::Catalog &cat) {
  const auto start = std::chrono::steady_clock::now();
  const std::string arch = hipArch(opt.target);
  const GemmPlan plan = planGemms(catalog::expand(cat));
  for (const GemmGroup &g : plan.groups)
    if (g.types.a != "bf16" || g.types.c != "bf16")
      return "the " + opt.target + " target builds bf16 GEMMs; catalog " + cat.path + " has " + g.types.a + " -> " +
             g.types.c;
  const std::vector<HipGroup> groups = planHipGemms(plan, arch);

  const std::string clang = llvmTool("clang++"), objdump = llvmTool("llvm-objdump");
  std::string version;
  if (runCommand({clang, "--version"}, version) != 0)
    return "the " + opt.target + " target needs clang++ 22 with the AMDGPU back end (Debian's clang-22; or set "
           "ARGUS_HIP_CLANG); running '" + clang + " --version' failed:\n" + version;

  const fs::path home(opt.homeDir.empty() ? defaultHomeDir() : opt.homeDir), runtimeDir = home / "dist" / "runtime";
  const fs::path out(opt.outDir), srcDir = out / "src", objDir = out / "obj";
  if (std::string failure = createBuildDirs(out); !failure.empty())
    return failure;
  const std::string cacheDir = opt.cacheDir.empty() ? (out / ".cache").string() : opt.cacheDir;
  CompileStats stats;

  // The code object: device code only, code-object version 5 (ROCm 5.5 and newer load it).
  const std::vector<GeneratedGemm> gemms = libraryGemms();
  std::vector<GeneratedPrefill> prefills = libraryPrefills(cat);
  std::vector<GeneratedDecode> decodes = libraryDecodes(cat);
  // An attention kernel the build cannot make for this processor (its
  // template refuses the configuration, or its code breaks the resource
  // budget) is left out: its calls get ARGUS_ERROR_UNSUPPORTED, and the
  // manifest and the log say why. GEMMs cannot be left out.
  std::vector<LeftOutKernel> leftOut;
  std::vector<GeneratedKernel> generated;
  const auto assemble = [&] {
    generated = kernelsOf(gemms);
    for (const std::vector<GeneratedKernel> &more : {kernelsOf(prefills), kernelsOf(decodes), kernelsOf(libraryMoe())})
      generated.insert(generated.end(), more.begin(), more.end());
  };
  const auto leaveOut = [&](size_t from) { // leftOut[from...] are new
    if (opt.log)
      for (size_t i = from; i < leftOut.size(); ++i)
        opt.log("left out " + leftOut[i].symbol + " (its calls are ARGUS_ERROR_UNSUPPORTED): " + leftOut[i].why);
    dropLeftOut(prefills, leftOut);
    dropLeftOut(decodes, leftOut);
    assemble();
  };
  assemble();
  if (std::string failure = emitGeneratedKernels(home, srcDir, generated, opt.target, ".hip", cacheDir, &leftOut);
      !failure.empty())
    return failure;
  leaveOut(0);
  std::string error;
  const fs::path codeObjectSourcePath = srcDir / "argus_hip_code_object.hip";
  const fs::path codeObjectPath = objDir / ("argus_hip_" + arch + ".co");
  const std::vector<CompileJob> device = {
      {codeObjectSourcePath.string(),
       codeObjectPath.string(),
       {"-x", "hip", "--offload-arch=" + arch, "-nogpulib", "-nogpuinc", "--offload-device-only",
        "--no-gpu-bundle-output", "-mcode-object-version=5", "-O3", "-std=c++17", "-I" + runtimeDir.string(),
        "-I" + (runtimeDir / "hip").string(), "-I" + srcDir.string()},
       clang}};
  const auto compileCodeObject = [&]() -> std::variant<CodeObjectInfo, std::string> {
    std::string failure;
    if (!writeIfChanged(codeObjectSourcePath.string(), codeObjectSource(generated, opt.target), failure))
      return failure;
    if (failure = compileAll(device, 1, cacheDir, stats); !failure.empty())
      return "compiling the " + arch + " code object: " + failure;
    return inspectCodeObject(codeObjectPath.string(), objdump);
  };
  auto inspected = compileCodeObject();
  if (auto *failure = std::get_if<std::string>(&inspected))
    return *failure;
  const size_t emissionLeftOut = leftOut.size();
  for (const KernelResources &k : std::get<CodeObjectInfo>(inspected).kernels) {
    const bool optional = std::any_of(generated.begin(), generated.end(),
                                      [&](const GeneratedKernel &g) { return g.symbol == k.name && g.optional; });
    if (std::string problem = resourceProblems(k); !problem.empty() && optional)
      leftOut.push_back({k.name, problem});
  }
  if (leftOut.size() > emissionLeftOut) {
    leaveOut(emissionLeftOut);
    inspected = compileCodeObject();
    if (auto *failure = std::get_if<std::string>(&inspected))
      return *failure;
  }
  const CodeObjectInfo &code = std::get<CodeObjectInfo>(inspected);
  if (code.arch != arch)
    return "the code object is for '" + code.arch + "', not " + arch;
  for (const KernelResources &k : code.kernels)
    if (std::string problem = resourceProblems(k); !problem.empty())
      return "a kernel of the " + arch + " code object does not keep its resource budget: " + problem;
  std::ifstream file(codeObjectPath, std::ios::binary);
  const std::string codeObject{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};

  const std::string manifest = manifestFor(cat, opt, home, groups, generated, code, leftOut).dump(2) + "\n";
  if (!writeIfChanged((out / "manifest.json").string(), manifest, error) ||
      !writeIfChanged((srcDir / "argus_hip_tables.cpp").string(),
                      tablesSource(groups, gemms, prefills, decodes, opt.target, arch, codeObject, manifest), error))
    return error;
  if (opt.log)
    opt.log("catalog " + cat.model + ": " + std::to_string(groups.size()) + " GEMM shapes for " + opt.target + ", " +
            std::to_string(code.kernels.size()) + " kernels in a " + std::to_string(codeObject.size()) +
            "-byte code object");

  const std::vector<std::string> flags = {"-O2", "-std=c++17", "-fPIC", "-fvisibility=hidden",
                                          "-fvisibility-inlines-hidden", "-I" + (home / "dist" / "include").string(),
                                          "-I" + runtimeDir.string(), "-I" + (runtimeDir / "gpu").string(),
                                          "-I" + (runtimeDir / "hip").string(), "-I" + srcDir.string()};
  std::vector<CompileJob> jobs = {
      {(srcDir / "argus_hip_tables.cpp").string(), (objDir / "argus_hip_tables.o").string(), flags}};
  std::vector<std::string> runtime = runtimeSources(runtimeDir / "hip" / "sources.txt", runtimeDir, error);
  if (runtime.empty())
    return "no HIP runtime sources: " + error;
  for (const std::string &src : runtime)
    jobs.push_back({src, (objDir / ("runtime_" + fs::path(src).stem().string() + ".o")).string(), flags});
  if (std::string failure = compileAll(jobs, opt.jobs, cacheDir, stats); !failure.empty())
    return failure;

  BuildReport report;
  if (std::string failure = linkLibrary({cxxCompiler(), "-shared", std::string("-Wl,-soname,") + kLibrarySoname,
                                         "-Wl,--version-script=" + (runtimeDir / "argus_exports.map").string(),
                                         "-ldl"},
                                        jobs, home, out, cat, opt.target, manifest, report.libraryPath);
      !failure.empty())
    return failure;

  for (const HipGroup &g : groups)
    report.kernels += int(g.buckets.size());
  report.tunedKernels = 0;  // by rule: nothing was timed
  report.groups = int(groups.size());
  report.compiled = stats.compiled;
  report.fromCache = stats.fromCache;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

} // namespace argus::emit
