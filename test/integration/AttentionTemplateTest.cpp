//===- AttentionTemplateTest.cpp - attention templates vs float64 ---------===//
//
// templates/attention/attention_prefill.argus on ragged sequence lengths
// (1, 37, 70, ... never multiples of the 32 x 64 tiles), causal and not,
// grouped KV heads, more keys than queries and fewer; attention_decode.argus
// on paged caches with empty, full and partial-page contexts. Both in the
// interpreter and compiled by the CPU backend; O is poisoned with NaN first.
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

struct DecodeCase {
  const char *name;
  check::Engine engine;
  const char *dtype;
  int64_t headDim, group, pageSize;
  int64_t batch, kvHeads, pages, maxPages;
};

// The reference arranges the inputs: sequence 0 fills its block table,
// sequence 1 is empty, the others have random lengths; pages are random.
const DecodeCase kDecode[] = {
    {"InterpF32", check::Engine::Interpreter, "f32", 64, 2, 16, 4, 2, 20, 5},
    {"InterpBf16Group4", check::Engine::Interpreter, "bf16", 128, 4, 32, 3, 1, 9, 3},
    {"CpuF32Single", check::Engine::Cpu, "f32", 64, 1, 16, 1, 1, 1, 1},
    {"CpuBf16Group4", check::Engine::Cpu, "bf16", 128, 4, 16, 6, 2, 50, 17},
    {"CpuF16Group7", check::Engine::Cpu, "f16", 64, 7, 32, 5, 1, 30, 9},
};

class DecodeTemplate : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(DecodeTemplate, MatchesFloat64Reference) {
  const DecodeCase &c = GetParam();
  check::CheckOptions opt;
  opt.path = std::string(ARGUS_SOURCE_DIR) + "/templates/attention/attention_decode.argus";
  opt.engine = c.engine;
  opt.specialization.constants["T"] = std::string(c.dtype);
  opt.specialization.constants["D"] = c.headDim;
  opt.specialization.constants["GROUP"] = c.group;
  opt.specialization.constants["PAGE"] = c.pageSize;
  opt.sizes = {{"B", c.batch}, {"H", c.kvHeads * c.group}, {"KVH", c.kvHeads}, {"P", c.pages}, {"MP", c.maxPages}};
  opt.scalars = {{"scale", 0.3}};
  opt.seed = 7 + c.batch * 5 + c.pages;
  check::CheckReport report = check::runAndCheck(opt);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_TRUE(report.passed) << report.summary();
}

INSTANTIATE_TEST_SUITE_P(Shapes, DecodeTemplate, ::testing::ValuesIn(kDecode),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace
