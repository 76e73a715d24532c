//===- AttentionTemplateTest.cpp - attention templates vs float64 ---------===//
//
// templates/attention/attention_prefill.argus on ragged sequence lengths
// (1, 37, 70, ... never multiples of the 32 x 64 tiles), causal and not,
// grouped KV heads, more keys than queries and fewer, in the interpreter and
// compiled by the CPU backend; O is poisoned with NaN first.
//
//===----------------------------------------------------------------------===//
#include "argus/Check/KernelCheck.h"

#include <gtest/gtest.h>

using namespace argus;

namespace {

struct PrefillCase {
  const char *name;
  check::Engine engine;
  const char *dtype;
  int64_t headDim, group;
  int64_t seqQ, seqKv, kvHeads;
  int causal;
};

const PrefillCase kPrefill[] = {
    {"InterpF32Causal", check::Engine::Interpreter, "f32", 64, 2, 37, 37, 2, 1},
    {"InterpBf16MoreKeys", check::Engine::Interpreter, "bf16", 64, 1, 5, 70, 3, 1},
    {"InterpF16MoreQueries", check::Engine::Interpreter, "f16", 64, 4, 70, 20, 1, 1},
    {"CpuF32Single", check::Engine::Cpu, "f32", 128, 1, 1, 1, 1, 1},
    {"CpuBf16Causal", check::Engine::Cpu, "bf16", 128, 4, 129, 129, 2, 1},
    {"CpuBf16Full", check::Engine::Cpu, "bf16", 64, 8, 100, 257, 1, 0},
    {"CpuF16MoreQueries", check::Engine::Cpu, "f16", 64, 2, 90, 33, 2, 1},
    {"CpuF32Group7", check::Engine::Cpu, "f32", 64, 7, 65, 65, 1, 0},
};

class PrefillTemplate : public ::testing::TestWithParam<PrefillCase> {};

TEST_P(PrefillTemplate, MatchesFloat64Reference) {
  const PrefillCase &c = GetParam();
  check::CheckOptions opt;
  opt.path = std::string(ARGUS_SOURCE_DIR) + "/templates/attention/attention_prefill.argus";
  opt.engine = c.engine;
  opt.specialization.constants["T"] = std::string(c.dtype);
  opt.specialization.constants["D"] = c.headDim;
  opt.specialization.constants["GROUP"] = c.group;
  opt.sizes = {{"SQ", c.seqQ}, {"SKV", c.seqKv}, {"H", c.kvHeads * c.group}, {"KVH", c.kvHeads}};
  opt.scalars = {{"scale", 0.3}, {"causal", double(c.causal)}};
  opt.seed = 99 + c.seqQ * 3 + c.seqKv;
  check::CheckReport report = check::runAndCheck(opt);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_TRUE(report.passed) << report.summary();
}

INSTANTIATE_TEST_SUITE_P(Shapes, PrefillTemplate, ::testing::ValuesIn(kPrefill),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace
