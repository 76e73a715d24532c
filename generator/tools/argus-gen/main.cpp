//===- main.cpp - argus-gen: the Argus command-line driver ----------------===//
//
//   argus-gen lower FILE.argus [--kernel K] [--set BM=64,TA=bf16] [--pin N=4096]
//   argus-gen emit-cpu FILE.argus [...same...] [--symbol NAME] [--target cpu-avx512]
//   argus-gen emit FILE.argus [...same...] [--symbol NAME] --target cpu-avx512|cpu-avx2|hip-gfx942|hip-gfx90a|cuda-sm90a
//   argus-gen run FILE.argus --shape M=7,N=33,K=100 [--arg beta=0] [--engine interp|cpu]
//   argus-gen verify FILE.argus [--json] [--bank-conflicts warn|error|off] [--skip race,...]
//   argus-gen shapes CATALOG.yaml
//   argus-gen build --catalog CATALOG.yaml [--target cpu-avx512] --out DIR [--jobs N] [--budget N] [--db F] [--retune]
//   argus-gen package --out DIR [--dest DIR]
//   argus-gen db list|export DB
//
// Exit status: 0 success, 1 a check failed or input was refused, 2 usage.
//
//===----------------------------------------------------------------------===//
#include "BuildCommand.h"
#include "DbCommand.h"
#include "Options.h"

#include "argus/Backend/CodegenCpu.h"
#include "argus/Catalog/Catalog.h"
#include "argus/Catalog/OpConfig.h"
#include "argus/Check/KernelCheck.h"
#include "argus/Dialect/Argus.h"
#include "argus/Emit/KernelInstance.h"
#include "argus/Emit/Package.h"
#include "argus/Tuning/Sweep.h"
#include "argus/Verify/Verifier.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <unistd.h>

using namespace argus;

namespace {

struct KernelFlags {
  std::string file, kernel, set, pin;
  void add(CLI::App *cmd) {
    cmd->add_option("file", file, "DSL source (.argus)")->required();
    cmd->add_option("--kernel", kernel, "kernel to use when the file defines several");
    cmd->add_option("--set", set, "compile-time values, e.g. BM=64,TA=bf16");
    cmd->add_option("--pin", pin, "pin symbolic dimensions to static sizes, e.g. N=4096,K=4096");
  }
  bool specialization(lowering::Specialization &spec, std::string &error) const {
    return tools::parseConstants(set, spec, error) && tools::parseIntList(pin, "--pin", spec.dims, error);
  }
};

int fail(const std::string &message) {
  std::cerr << message << (message.empty() || message.back() != '\n' ? "\n" : "");
  return 1;
}

int lowerCommand(const KernelFlags &flags, bool emitCpu, const std::string &symbol, const std::string &target) {
  lowering::Specialization spec;
  std::string error, source;
  if (!flags.specialization(spec, error) || !emit::readTextFile(flags.file, source, error))
    return fail("argus-gen: " + error);
  mlir::DialectRegistry registry;
  registerArgusDialects(registry);
  mlir::MLIRContext context(registry);
  if (emitCpu) {
    llvm::Expected<std::string> code = emit::instantiateKernel(context, flags.file, source, spec, symbol, target);
    if (!code) return fail(llvm::toString(code.takeError()));
    std::cout << *code;
    return 0;
  }
  auto lowered = lowering::compileKernelSource(source, flags.file, context, spec, flags.kernel);
  if (auto *f = std::get_if<lowering::LoweringFailure>(&lowered)) return fail(f->message);
  std::get<mlir::OwningOpRef<mlir::ModuleOp>>(lowered)->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}

struct VerifyFlags {
  KernelFlags kernel;
  bool json = false, noReplay = false;
  std::string bank = "warn", skip;
  int window = 4;
  unsigned resourceLimit = verify::VerifyOptions{}.queryResourceLimit;
  unsigned timeoutMs = verify::VerifyOptions{}.queryTimeoutMs;
};

int verifyCommand(const VerifyFlags &flags) {
  lowering::Specialization spec;
  std::string error, source;
  if (!flags.kernel.specialization(spec, error) || !emit::readTextFile(flags.kernel.file, source, error))
    return fail("argus-gen: " + error);
  verify::VerifyOptions options;
  options.replay = !flags.noReplay;
  options.loopWindow = flags.window;
  options.queryResourceLimit = flags.resourceLimit;
  options.queryTimeoutMs = flags.timeoutMs;
  options.bankConflicts = flags.bank == "error" ? verify::VerifyOptions::BankMode::Error
                          : flags.bank == "off" ? verify::VerifyOptions::BankMode::Off
                                                : verify::VerifyOptions::BankMode::Warn;
  std::map<std::string, bool *> switches = {
      {"tag-assertion", &options.tagAssertions}, {"uninitialized-read", &options.uninitializedReads},
      {"out-of-bounds", &options.inBounds},      {"race", &options.races},
      {"write-once", &options.writeOnce}};
  std::string rest = flags.skip;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string name = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    auto it = switches.find(name);
    if (it == switches.end())
      return fail("argus-gen verify: unknown check '" + name +
                  "' in --skip; expected tag-assertion, uninitialized-read, out-of-bounds, race or write-once");
    *it->second = false;
  }
  mlir::DialectRegistry registry;
  registerArgusDialects(registry);
  mlir::MLIRContext context(registry);
  auto lowered = lowering::compileKernelSource(source, flags.kernel.file, context, spec, flags.kernel.kernel);
  if (auto *f = std::get_if<lowering::LoweringFailure>(&lowered)) return fail(f->message);
  verify::VerifyResult result = verify::verifyModule(*std::get<mlir::OwningOpRef<mlir::ModuleOp>>(lowered), options);
  std::cout << (flags.json ? verify::resultToJson(result) + "\n" : verify::formatResult(result));
  return result.proved() ? 0 : 1;
}

int shapesCommand(const std::string &path) {
  catalog::Result<catalog::Catalog> cat = catalog::loadCatalog(path);
  if (!cat) return fail(cat.error().format());
  std::vector<catalog::OpConfig> configs = catalog::expand(cat.value());
  std::cout << cat->model << " (" << catalog::dtypeName(cat->dtype) << ", catalog hash " << cat->content_hash
            << "): " << configs.size() << " op configurations\n";
  for (const catalog::OpConfig &c : configs)
    std::cout << "  " << c.describe() << "\n";
  return 0;
}

} // namespace

int runMain(int argc, char **argv);

int main(int argc, char **argv) {
  try {
    return runMain(argc, argv);
  } catch (const std::exception &e) { // last resort: every expected failure returns an error
    std::cerr << "argus-gen: internal error: " << e.what() << "\n";
    return 1;
  }
}

int runMain(int argc, char **argv) {
  CLI::App app{"argus-gen: ahead-of-time kernel library generator"};
  app.require_subcommand(1);

  KernelFlags lowerFlags;
  CLI::App *lower = app.add_subcommand("lower", "print a kernel lowered to the argus MLIR dialect");
  lowerFlags.add(lower);

  KernelFlags emitFlags;
  std::string symbol = "argus_kernel", emitTarget = codegen::defaultCpuTarget();
  CLI::App *emitCpu = app.add_subcommand("emit-cpu", "print the C++ the CPU backend generates for a kernel");
  emitFlags.add(emitCpu);
  emitCpu->add_option("--symbol", symbol, "C symbol of the kernel entry point");
  emitCpu->add_option("--target", emitTarget, "cpu-avx512 or cpu-avx2 (default: the one this machine runs best)");
  CLI::App *emitAny = app.add_subcommand("emit", "print the source a backend generates for a kernel: C++ for "
                                                 "cpu-* targets, HIP C++ for hip-gfx942 / hip-gfx90a, CUDA C++ for cuda-sm90a");
  emitFlags.add(emitAny);
  emitAny->add_option("--symbol", symbol, "C symbol of the kernel entry point");
  emitAny->add_option("--target", emitTarget, "cpu-avx512, cpu-avx2, hip-gfx942, hip-gfx90a or cuda-sm90a")->required();

  KernelFlags runFlags;
  std::string shape, scalarArgs, engine = "interp", runTarget = codegen::defaultCpuTarget();
  uint64_t seed = 1;
  CLI::App *run = app.add_subcommand("run", "run a kernel on random inputs and compare with a float64 reference");
  runFlags.add(run);
  run->add_option("--shape", shape, "run-time sizes of the symbolic dimensions, e.g. M=7,N=33,K=100")->required();
  run->add_option("--arg", scalarArgs, "scalar arguments, e.g. alpha=0.5,beta=0 (default 1)");
  run->add_option("--engine", engine, "interp (the reference interpreter) or cpu (the compiled CPU backend)")
      ->check(CLI::IsMember({"interp", "cpu"}));
  run->add_option("--target", runTarget, "CPU target for --engine cpu");
  run->add_option("--seed", seed, "random seed for the inputs");

  VerifyFlags verifyFlags;
  CLI::App *verifyCmd = app.add_subcommand("verify", "prove a kernel's tag assertions and built-in properties, "
                                                      "or print concrete counterexamples");
  verifyFlags.kernel.add(verifyCmd);
  verifyCmd->add_flag("--json", verifyFlags.json, "print the result as JSON (for the agent)");
  verifyCmd->add_flag("--no-replay", verifyFlags.noReplay, "do not replay counterexamples in the interpreter");
  verifyCmd->add_option("--bank-conflicts", verifyFlags.bank, "warn (default), error or off")
      ->check(CLI::IsMember({"warn", "error", "off"}));
  verifyCmd->add_option("--skip", verifyFlags.skip,
                        "checks to skip: tag-assertion,uninitialized-read,out-of-bounds,race,write-once");
  verifyCmd->add_option("--loop-window", verifyFlags.window, "earlier loop iterations tracked exactly")
      ->check(CLI::Range(1, 64));
  verifyCmd->add_option("--rlimit", verifyFlags.resourceLimit,
                        "Z3 work limit per query, in its deterministic resource units (0: none)");
  verifyCmd->add_option("--timeout-ms", verifyFlags.timeoutMs, "Z3 wall-clock limit per query (a backstop)");

  std::string shapesPath;
  CLI::App *shapes = app.add_subcommand("shapes", "list the op configurations a catalog expands to");
  shapes->add_option("catalog", shapesPath, "catalog YAML")->required();

  tools::BuildFlags buildFlags;
  emit::BuildOptions &build = buildFlags.build;
  CLI::App *buildCmd = app.add_subcommand("build", "generate libargus_kernels.so for a catalog");
  buildCmd->add_option("--catalog", build.catalogPath, "model catalog (shapes/*.yaml)")->required();
  buildCmd->add_option("--target", build.target, "cpu-avx512, cpu-avx2 (default: the one this machine runs best), "
                                                  "cuda-sm90a (bf16 GEMMs, needs nvcc), hip-gfx942 or hip-gfx90a");
  buildCmd->add_option("--out", build.outDir, "output directory")->required();
  buildCmd->add_option("--jobs", build.jobs, "parallel compiler processes")->check(CLI::Range(1, 256));
  buildCmd->add_option("--home", build.homeDir, "the Argus tree (templates/, dist/); default $ARGUS_HOME or the source tree");
  buildCmd->add_option("--cache", build.cacheDir, "object cache directory (default OUT/.cache)");
  buildCmd->add_option("--budget", buildFlags.budget,
                       "candidates tried per configuration, the rule's tiles first (default 4; 0: tiles by rule, no sweep)")
      ->check(CLI::Range(0, 4096));
  buildCmd->add_option("--agent", buildFlags.agent,
                       "who proposes candidates: rule (its tiles and nearest neighbours), planner (in-context RL over "
                       "templates/knowledge), random, grid, exhaustive (every admitted point), or llm (a chat model "
                       "proposes kernels; needs --endpoint and --model)")
      ->check(CLI::IsMember(tuning::sweepAgents()));
  buildCmd->add_option("--seed", buildFlags.seed, "seed of the planner and random search (default 1)");
  buildCmd->add_option("--endpoint", buildFlags.llm.endpoint,
                       "--agent llm: an OpenAI-compatible chat-completions endpoint, e.g. http://127.0.0.1:8000/v1 "
                       "(key from $ARGUS_LLM_API_KEY or $OPENAI_API_KEY)");
  buildCmd->add_option("--model", buildFlags.llm.model, "--agent llm: the model name the endpoint serves");
  buildCmd->add_option("--llm-timeout", buildFlags.llm.timeoutSeconds,
                       "--agent llm: seconds one request may take (default 120)")
      ->check(CLI::Range(1.0, 3600.0));
  buildCmd->add_option("--search-seconds", buildFlags.searchSeconds,
                       "time limit of one configuration's search (default none)")
      ->check(CLI::Range(0.0, 1e6));
  buildCmd->add_option("--db", buildFlags.dbPath, "tuning database (default OUT/tuning.db); a rerun resumes it");
  buildCmd->add_flag("--retune", buildFlags.retune,
                     "discard a tuning database made for another generator version, target or device");

  std::string packageOut, packageDest;
  CLI::App *packageCmd = app.add_subcommand(
      "package", "pack a built library as argus-kernels-<model>-<target>-<version>.tar.gz and .deb");
  packageCmd->add_option("--out", packageOut, "output directory of argus-gen build")->required();
  packageCmd->add_option("--dest", packageDest, "where the packages go (default: the --out directory)");

  std::string dbAction = "list", dbPath;
  CLI::App *dbCmd = app.add_subcommand("db", "list or export a tuning database");
  dbCmd->add_option("action", dbAction, "list (per op configuration: candidates and the best) or export (JSON)")
      ->check(CLI::IsMember({"list", "export"}))
      ->required();
  dbCmd->add_option("database", dbPath, "tuning database file")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  if (*lower) return lowerCommand(lowerFlags, false, "", "");
  if (*emitCpu || *emitAny) return lowerCommand(emitFlags, true, symbol, emitTarget);
  if (*shapes) return shapesCommand(shapesPath);
  if (*packageCmd) {
    auto packed = emit::makePackages(packageOut, packageDest.empty() ? packageOut : packageDest);
    if (auto *error = std::get_if<std::string>(&packed)) return fail("argus-gen package: " + *error);
    const emit::PackageReport &p = std::get<emit::PackageReport>(packed);
    std::cout << "packaged " << p.name << "\n  " << p.tarball << "\n  " << p.deb << "\n";
    return 0;
  }
  if (*dbCmd) {
    std::string error = tools::dbCommand(dbAction, dbPath, std::cout);
    return error.empty() ? 0 : fail("argus-gen db: " + error);
  }
  if (*verifyCmd) return verifyCommand(verifyFlags);
  if (*run) {
    check::CheckOptions opt;
    opt.path = runFlags.file;
    opt.kernel = runFlags.kernel;
    opt.engine = engine == "cpu" ? check::Engine::Cpu : check::Engine::Interpreter;
    opt.target = runTarget;
    opt.seed = seed;
    std::string error;
    if (!runFlags.specialization(opt.specialization, error) ||
        !tools::parseIntList(shape, "--shape", opt.sizes, error) ||
        !tools::parseFloatList(scalarArgs, "--arg", opt.scalars, error))
      return fail("argus-gen run: " + error);
    check::CheckReport report = check::runAndCheck(opt);
    std::cout << report.summary();
    return report.passed ? 0 : 1;
  }
  if (*buildCmd) {
    std::string error = tools::buildCommand(buildFlags, std::cout, isatty(1));
    return error.empty() ? 0 : fail("argus-gen build: " + error);
  }
  return 2;
}
