//===- MoeTemplateTest.cpp - the fused gate/up expert template vs float64 -===//
//
// templates/moe/moe_gate_up.argus (H = silu(X·Wgᵀ) * (X·Wuᵀ)) and its
// transposed form moe_gate_up_t.argus (Ht = Hᵀ, the weights as the row
// operand) on ragged shapes, the small and large tiles the library uses,
// with N and K pinned as for a catalog configuration and symbolic as for
// the generic kernels, in the interpreter and compiled by the CPU backend;
// the output is poisoned first.
//
//===----------------------------------------------------------------------===//
#include "argus/Check/KernelCheck.h"

#include <gtest/gtest.h>

using namespace argus;

namespace {

struct GateUpCase {
  const char *name;
  bool transposed;
  check::Engine engine;
  const char *dtype;
  int64_t m, n, k;
  int64_t bm, bk;
  bool pinned;
};

// Transposed: bm tiles the weight rows (n), the tokens (m) take 64-column tiles.
const GateUpCase kCases[] = {
    {"InterpF32", false, check::Engine::Interpreter, "f32", 7, 45, 100, 4, 32, false},
    {"InterpBf16Pinned", false, check::Engine::Interpreter, "bf16", 9, 70, 64, 4, 64, true},
    {"CpuBf16Small", false, check::Engine::Cpu, "bf16", 3, 130, 300, 4, 256, false},
    {"CpuBf16LargePinned", false, check::Engine::Cpu, "bf16", 70, 200, 520, 32, 256, true},
    {"CpuF32", false, check::Engine::Cpu, "f32", 33, 65, 129, 32, 128, false},
    {"CpuF16", false, check::Engine::Cpu, "f16", 5, 64, 96, 4, 32, false},
    {"TransposedInterpBf16", true, check::Engine::Interpreter, "bf16", 37, 40, 96, 16, 32, false},
    {"TransposedCpuBf16", true, check::Engine::Cpu, "bf16", 45, 300, 520, 128, 256, false},
    {"TransposedCpuBf16Pinned", true, check::Engine::Cpu, "bf16", 70, 260, 300, 128, 256, true},
    {"TransposedCpuF32", true, check::Engine::Cpu, "f32", 33, 130, 129, 128, 256, false},
};

class GateUpTemplate : public ::testing::TestWithParam<GateUpCase> {};

TEST_P(GateUpTemplate, MatchesFloat64Reference) {
  const GateUpCase &c = GetParam();
  check::CheckOptions opt;
  opt.path = std::string(ARGUS_SOURCE_DIR) + (c.transposed ? "/templates/moe/moe_gate_up_t.argus"
                                                             : "/templates/moe/moe_gate_up.argus");
  opt.engine = c.engine;
  opt.specialization.constants["T"] = std::string(c.dtype);
  opt.specialization.constants["BM"] = c.bm;
  opt.specialization.constants["BK"] = c.bk;
  if (c.pinned) {
    opt.specialization.dims["N"] = c.n;
    opt.specialization.dims["K"] = c.k;
  }
  opt.sizes = {{"M", c.m}, {"N", c.n}, {"K", c.k}};
  opt.seed = 31 + c.m * 3 + c.n;
  check::CheckReport report = check::runAndCheck(opt);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_TRUE(report.passed) << report.summary();
}

INSTANTIATE_TEST_SUITE_P(Shapes, GateUpTemplate, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace
