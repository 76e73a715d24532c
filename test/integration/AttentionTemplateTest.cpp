//===- AttentionTemplateTest.cpp - attention templates vs float64 ---------===//
//
// templates/attention/attention_prefill.argus on ragged sequence lengths
// (1, 37, 70, ... never multiples of the 32 x 64 tiles), causal and not,
// grouped KV heads, more keys than queries and fewer; attention_decode.argus
// on paged caches with empty, full and partial-page contexts, split into
// partial results (flash-decoding) several ways. Both in the
// interpreter and compiled by the CPU backend; O is poisoned with NaN first.
//
//===----------------------------------------------------------------------===//
#include "argus/Check/KernelCheck.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

using namespace argus;
namespace fs = std::filesystem;

namespace {

struct PrefillCase {
  const char *name;
  check::Engine engine;
  const char *dtype;
  int64_t headDim, group;
  int64_t seqQ, seqKv, kvHeads;
  int causal;
  int64_t vHeadDim = 0; // 0: headDim
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
    // Multi-head latent attention (DeepSeek-V2): queries and keys 192 wide, values 128.
    {"InterpBf16LatentDims", check::Engine::Interpreter, "bf16", 192, 1, 37, 45, 2, 1, 128},
    {"CpuBf16LatentDims", check::Engine::Cpu, "bf16", 192, 1, 70, 90, 3, 1, 128},
    {"CpuF32LatentDimsGroup2", check::Engine::Cpu, "f32", 192, 2, 33, 33, 1, 0, 128},
};

class PrefillTemplate : public ::testing::TestWithParam<PrefillCase> {};

TEST_P(PrefillTemplate, MatchesFloat64Reference) {
  const PrefillCase &c = GetParam();
  check::CheckOptions opt;
  opt.path = std::string(ARGUS_SOURCE_DIR) + "/templates/attention/attention_prefill.argus";
  opt.engine = c.engine;
  opt.specialization.constants["T"] = std::string(c.dtype);
  opt.specialization.constants["D"] = c.headDim;
  opt.specialization.constants["DV"] = c.vHeadDim ? c.vHeadDim : c.headDim;
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
  int64_t batch, kvHeads, pages, maxPages, splits;
  int64_t vHeadDim = 0; // 0: headDim
};

// The reference arranges the inputs: sequence 0 fills its block table,
// sequence 1 is empty, the others have random lengths; pages are random.
// Splits of the context: one, several with a ragged last one (17 pages in
// 3 splits of 6), one page each, and more splits than pages (empty ones).
const DecodeCase kDecode[] = {
    {"InterpF32", check::Engine::Interpreter, "f32", 64, 2, 16, 4, 2, 20, 5, 2},
    {"InterpBf16Group4", check::Engine::Interpreter, "bf16", 128, 4, 32, 3, 1, 9, 3, 1},
    {"CpuF32Single", check::Engine::Cpu, "f32", 64, 1, 16, 1, 1, 1, 1, 1},
    {"CpuBf16Group4", check::Engine::Cpu, "bf16", 128, 4, 16, 6, 2, 50, 17, 3},
    {"CpuBf16PagePerSplit", check::Engine::Cpu, "bf16", 64, 2, 16, 3, 3, 20, 5, 5},
    {"CpuF16Group7", check::Engine::Cpu, "f16", 64, 7, 32, 5, 1, 30, 9, 4},
    {"CpuF32MoreSplitsThanPages", check::Engine::Cpu, "f32", 64, 4, 16, 3, 2, 8, 2, 5},
    {"InterpBf16LatentDims", check::Engine::Interpreter, "bf16", 192, 1, 16, 3, 2, 12, 4, 2, 128},
    {"CpuBf16LatentDims", check::Engine::Cpu, "bf16", 192, 1, 16, 4, 3, 30, 9, 3, 128},
};

class DecodeTemplate : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(DecodeTemplate, MatchesFloat64Reference) {
  const DecodeCase &c = GetParam();
  check::CheckOptions opt;
  opt.path = std::string(ARGUS_SOURCE_DIR) + "/templates/attention/attention_decode.argus";
  opt.engine = c.engine;
  opt.specialization.constants["T"] = std::string(c.dtype);
  opt.specialization.constants["D"] = c.headDim;
  opt.specialization.constants["DV"] = c.vHeadDim ? c.vHeadDim : c.headDim;
  opt.specialization.constants["GROUP"] = c.group;
  opt.specialization.constants["PAGE"] = c.pageSize;
  opt.sizes = {{"B", c.batch},       {"H", c.kvHeads * c.group}, {"KVH", c.kvHeads},
               {"P", c.pages},       {"MP", c.maxPages},          {"S", c.splits}};
  opt.scalars = {{"scale", 0.3}};
  opt.seed = 7 + c.batch * 5 + c.pages;
  check::CheckReport report = check::runAndCheck(opt);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_TRUE(report.passed) << report.summary();
}

INSTANTIATE_TEST_SUITE_P(Shapes, DecodeTemplate, ::testing::ValuesIn(kDecode),
                         [](const auto &info) { return std::string(info.param.name); });

/// The C++ the CPU backend wrote for the one kernel built in `dir`.
std::string generatedSource(const fs::path &dir) {
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    if (e.path().extension() == ".cpp") {
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      return text.str();
    }
  return "";
}

size_t occurrences(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Keys and values are mma operands only: the CPU backend reads them where
// they lie in the cache (ak::load_ref) and folds transpose(v) into
// ak::mma_kn instead of copying and transposing each block (but for the
// values of decode's last page, which are copied to zero their tail). The
// numbers are checked as in the tests above.
TEST(AttentionCodegen, KeysAndValuesAreReadInPlace) {
  struct Template {
    const char *file;
    std::map<std::string, int64_t> sizes;
    std::map<std::string, double> scalars;
    const char *kn, *kv; // the p.v mma and the key/value loads as they must appear
    size_t pv;           // p.v products: decode has one more for its last page, whose tail it masks
  };
  const Template templates[] = {
      {"attention_prefill.argus", {{"SQ", 70}, {"SKV", 70}, {"H", 4}, {"KVH", 2}}, {{"scale", 0.3}, {"causal", 1}},
       "ak::mma_kn<ak::bf16, 32, 128, 64>(", "ak::load_ref<ak::bf16, 64, 1, 128>(", 1},
      {"attention_decode.argus", {{"B", 3}, {"H", 4}, {"KVH", 2}, {"P", 9}, {"MP", 3}, {"S", 2}}, {{"scale", 0.3}},
       "ak::mma_kn<ak::bf16, 2, 128, 16>(", "ak::load_ref<ak::bf16, 1, 16, 1, 128>(", 2},
  };
  for (const Template &t : templates) {
    fs::path dir = fs::temp_directory_path() / ("argus-attention-codegen-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    check::CheckOptions opt;
    opt.path = std::string(ARGUS_SOURCE_DIR) + "/templates/attention/" + t.file;
    opt.engine = check::Engine::Cpu;
    opt.workDir = dir.string();
    opt.specialization.constants["T"] = std::string("bf16");
    opt.specialization.constants["D"] = int64_t(128);
    opt.specialization.constants["DV"] = int64_t(128);
    opt.specialization.constants["GROUP"] = int64_t(2);
    opt.sizes = t.sizes;
    opt.scalars = t.scalars;
    check::CheckReport report = check::runAndCheck(opt);
    std::string cpp = generatedSource(dir);
    fs::remove_all(dir);
    ASSERT_TRUE(report.error.empty()) << t.file << ": " << report.error;
    EXPECT_TRUE(report.passed) << t.file << ": " << report.summary();
    EXPECT_EQ(occurrences(cpp, t.kn), t.pv) << t.file << "\n" << cpp;
    EXPECT_EQ(occurrences(cpp, t.kv), 2u) << t.file << " (keys and values)\n" << cpp;
    EXPECT_EQ(occurrences(cpp, "ak::transpose<"), 0u) << t.file << "\n" << cpp;
  }
}

/// What `command` printed on stdout.
std::string outputOf(const std::string &command) {
  std::string out;
  if (FILE *pipe = ::popen(command.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    ::pclose(pipe);
  }
  return out;
}

// Decode's prefetches must survive into the machine code: the rows the next
// step reads (the next KV head's of this page, or the first head's of the
// next page), keys and values (into L1). Once they were dropped as dead code, first by the
// MLIR canonicalizer (an op that only reads), then by GCC, without a test
// noticing: results stay right, only the bandwidth halves.
TEST(AttentionCodegen, DecodePrefetchesReachTheMachineCode) {
  fs::path dir = fs::temp_directory_path() / ("argus-decode-prefetch-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  check::CheckOptions opt;
  opt.path = std::string(ARGUS_SOURCE_DIR) + "/templates/attention/attention_decode.argus";
  opt.engine = check::Engine::Cpu;
  opt.workDir = dir.string();
  opt.specialization.constants["T"] = std::string("bf16");
  opt.specialization.constants["GROUP"] = int64_t(2);
  opt.sizes = {{"B", 2}, {"H", 4}, {"KVH", 2}, {"P", 9}, {"MP", 4}, {"S", 2}};
  opt.scalars = {{"scale", 0.3}};
  check::CheckReport report = check::runAndCheck(opt);
  std::string cpp = generatedSource(dir), objects;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    if (e.path().extension() == ".so") objects += outputOf("objdump -d --no-show-raw-insn '" + e.path().string() + "'");
  fs::remove_all(dir);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_TRUE(report.passed) << report.summary();
  // The next step's rows, keys then values, into L2, each handed to the
  // product over this step's (ak::tile_shadow): q k^T, and p v in both of
  // its branches.
  EXPECT_EQ(occurrences(cpp, "ak::prefetch_shadow<ak::bf16, 2>(Kc, {"), 1u) << cpp;
  EXPECT_EQ(occurrences(cpp, "ak::prefetch_shadow<ak::bf16, 2>(Vc, {"), 1u) << cpp;
  EXPECT_EQ(occurrences(cpp, "ak::prefetch"), 2u) << cpp;
  EXPECT_EQ(occurrences(cpp, ", next_tile);"), 1u) << cpp;
  // p v also rescales the output by alpha in its epilogue (acc * alpha + p v),
  // into the head's accumulator slot itself (no copy in or out).
  EXPECT_EQ(occurrences(cpp, ", next_tile_1, ak::row_scale{"), 2u) << cpp;
  EXPECT_EQ(occurrences(cpp, "updated in place until it is stored back"), 1u) << cpp;
  ASSERT_FALSE(objects.empty()) << "objdump printed nothing";
  EXPECT_GT(occurrences(objects, "prefetcht1"), 0u) << "the per-head prefetch was compiled away";
}

} // namespace
