//===- verify_bench.cpp - how long the verifier takes per kernel ---------===//
//
// One benchmark per shipped template configuration and per corpus kernel
// (test/verifier/corpus): lowering happens once, outside the timed region;
// each iteration runs the whole verification of the kernel (symbolic
// execution, every Z3 query, and the interpreter replay of any finding), as
// `argus-gen verify` and the library builder do. Report the median of the
// repetitions:
//
//   argus_verify_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
//===----------------------------------------------------------------------===//
#include "argus/Dialect/Argus.h"
#include "argus/Lowering/LowerToArgus.h"
#include "argus/Verify/Verifier.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

using namespace argus;

namespace {

struct Lowered {
  std::string name;
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Lowered> &kernels() {
  static std::vector<Lowered> all;
  return all;
}

void addKernel(const std::string &name, const std::string &path, const lowering::Specialization &spec) {
  mlir::DialectRegistry registry;
  registerArgusDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  auto lowered = lowering::compileKernelSource(readFile(path), path, *context, spec);
  if (auto *f = std::get_if<lowering::LoweringFailure>(&lowered)) {
    std::cerr << "skipping " << path << ": " << f->message << "\n";
    return;
  }
  kernels().push_back({name, std::move(context), std::move(std::get<mlir::OwningOpRef<mlir::ModuleOp>>(lowered))});
}

void verifyOnce(benchmark::State &state, Lowered *k) {
  bool proved = false;
  for (auto _ : state) {
    verify::VerifyResult r = verify::verifyModule(*k->module);
    proved = r.proved();
    benchmark::DoNotOptimize(proved);
  }
  state.counters["proved"] = proved ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  const std::string root = ARGUS_SOURCE_DIR;
  for (const char *ta : {"f32", "bf16"}) {
    lowering::Specialization spec;
    spec.constants["TA"] = std::string(ta);
    addKernel(std::string("template/gemm_tn/") + ta, root + "/templates/gemm/gemm_tn.argus", spec);
  }
  std::vector<std::filesystem::path> files;
  for (auto &e : std::filesystem::directory_iterator(root + "/test/verifier/corpus"))
    if (e.path().extension() == ".argus")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto &f : files)
    addKernel("corpus/" + f.stem().string(), f.string(), {});
  for (Lowered &k : kernels())
    benchmark::RegisterBenchmark(k.name.c_str(), verifyOnce, &k)->Unit(benchmark::kMillisecond)->Iterations(1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
