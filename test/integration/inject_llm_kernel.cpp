//===- inject_llm_kernel.cpp - make a model's kernel a database's best ----===//
//
// inject_llm_kernel DB TEMPLATE N K M
//
// Test set-up for integration.library_ships_llm_kernel: records, for the
// bf16 GEMM N x K measured at M rows, a kernel "of the model's" (TEMPLATE's
// text with a comment added, as a chat model's reply would be) at the tiles
// of the database's best, proved, correct and twice as fast, with its text,
// as an `--agent llm` sweep records one. Prints the library symbol that
// kernel must get: the library built from the database then has to ship it.
//
//===----------------------------------------------------------------------===//
#include "argus/Emit/GemmPlan.h"
#include "argus/Emit/KernelInstance.h"
#include "argus/Tuning/Sweep.h"

#include <iostream>

using namespace argus;

int main(int argc, char **argv) {
  if (argc != 6) {
    std::cerr << "usage: inject_llm_kernel DB TEMPLATE N K M\n";
    return 2;
  }
  auto opened = tuning::TuningDb::openExisting(argv[1]);
  if (auto *e = std::get_if<std::string>(&opened)) {
    std::cerr << *e << "\n";
    return 1;
  }
  tuning::TuningDb &db = *std::get<std::unique_ptr<tuning::TuningDb>>(opened);
  std::string text, error;
  if (!emit::readTextFile(argv[2], text, error)) {
    std::cerr << error << "\n";
    return 1;
  }
  const std::string marker = "acc = zeros((BM, BN), f32)";
  if (text.find(marker) == std::string::npos) {
    std::cerr << "the template has no '" << marker << "'\n";
    return 1;
  }
  text.replace(text.find(marker), marker.size(), marker + "  # the model's");
  const emit::GemmTypes types{"bf16", "bf16"};
  const int64_t n = std::stoll(argv[3]), k = std::stoll(argv[4]), m = std::stoll(argv[5]);
  std::optional<tuning::CandidateResult> best = db.best("gemm", tuning::gemmShapeKey(types, n, k, m));
  emit::GemmKernel kernel{"", n, k, types, {}, {}};
  if (!best || !tuning::parseGemmParameters(best->key.parameters, kernel.tiles)) {
    std::cerr << "the database has no usable GEMM result at N=" << n << " K=" << k << " M=" << m << "\n";
    return 1;
  }
  tuning::CandidateResult fromModel = *best;
  fromModel.key.templatePath = "llm/injected0test.argus";
  fromModel.key.techniques = "llm:scripted";
  fromModel.seconds = best->seconds / 2;
  if (std::string e = db.storeSource(fromModel.key.templatePath, text); !e.empty()) error = e;
  if (std::string e = db.record(fromModel); !e.empty()) error = e;
  if (!error.empty()) {
    std::cerr << error << "\n";
    return 1;
  }
  kernel.tiles.kernel = fromModel.key.templatePath;
  std::cout << emit::gemmKernelSymbol(kernel) << "\n";
  return 0;
}
