//===- VerifierTest.cpp - templates, options and reports ----------------===//
#include "VerifyTestUtil.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace argus;

namespace {

const std::string kCorpus = ARGUS_SOURCE_DIR "/test/verifier/corpus/";

test::Verified verifyFile(const std::string &path, const verify::VerifyOptions &options = {},
                          const lowering::Specialization &spec = {}) {
  return test::verifySource(test::readFile(path), path, spec, options);
}

// Every shipped template is proved, at the tile sizes the library builder uses.
TEST(Templates, GemmProvedForEveryDtypeAndTile) {
  const std::string path = ARGUS_SOURCE_DIR "/templates/gemm/gemm_tn.argus";
  for (const char *ta : {"f32", "bf16"})
    for (auto [bm, bn, bk] : {std::tuple{1, 64, 128}, std::tuple{32, 64, 256}, std::tuple{16, 32, 32}}) {
      lowering::Specialization spec;
      spec.constants["TA"] = std::string(ta);
      spec.constants["BM"] = int64_t(bm);
      spec.constants["BN"] = int64_t(bn);
      spec.constants["BK"] = int64_t(bk);
      test::Verified v = verifyFile(path, {}, spec);
      ASSERT_TRUE(v.error.empty()) << v.error;
      EXPECT_TRUE(v.result.proved()) << ta << " " << bm << "x" << bn << "x" << bk << "\n"
                                     << verify::formatResult(v.result);
    }
}

TEST(Options, SkippingACheckSkipsItsFindings) {
  verify::VerifyOptions options;
  options.tagAssertions = false;
  test::Verified v = verifyFile(kCorpus + "bug_mma_operands_different_k.argus", options);
  ASSERT_TRUE(v.error.empty()) << v.error;
  EXPECT_TRUE(v.result.proved()) << verify::formatResult(v.result);
}

// A loop window too small to see the writing iteration is a failure, never a proof.
TEST(Options, TooSmallLoopWindowFailsInsteadOfProving) {
  verify::VerifyOptions options;
  options.loopWindow = 1;
  options.replay = false;
  test::Verified v = verifyFile(kCorpus + "ok_gemm_pipe3.argus", options);
  ASSERT_TRUE(v.error.empty()) << v.error;
  EXPECT_FALSE(v.result.proved());
  bool tagFinding = false;
  for (const verify::Finding &f : v.result.kernels.front().findings)
    tagFinding |= f.kind == verify::CheckKind::TagAssertion;
  EXPECT_TRUE(tagFinding) << verify::formatResult(v.result);
}

// Z3's budget is its deterministic work count: too small a budget leaves a query undecided (a
// failure naming the limit, never a proof) on any machine, and the default proves the kernel.
TEST(Options, ResourceLimitDecidesNotTheClock) {
  verify::VerifyOptions starved;
  starved.queryResourceLimit = 1;
  starved.replay = false;
  test::Verified v = verifyFile(kCorpus + "ok_gemm_pipe3.argus", starved);
  ASSERT_TRUE(v.error.empty()) << v.error;
  EXPECT_FALSE(v.result.proved());
  bool undecided = false;
  for (const verify::Finding &f : v.result.kernels.front().findings)
    undecided |= f.kind == verify::CheckKind::Unsupported && f.message.find("could not decide") != std::string::npos;
  EXPECT_TRUE(undecided) << verify::formatResult(v.result);
  EXPECT_TRUE(verifyFile(kCorpus + "ok_gemm_pipe3.argus").result.proved());
}

TEST(Options, BankConflictsAsErrors) {
  verify::VerifyOptions options;
  test::Verified warn = verifyFile(kCorpus + "bug_bank_conflict_rows.argus", options);
  ASSERT_TRUE(warn.error.empty()) << warn.error;
  EXPECT_TRUE(warn.result.proved()); // warnings only
  options.bankConflicts = verify::VerifyOptions::BankMode::Error;
  test::Verified error = verifyFile(kCorpus + "bug_bank_conflict_rows.argus", options);
  EXPECT_FALSE(error.result.proved());
  options.bankConflicts = verify::VerifyOptions::BankMode::Off;
  test::Verified off = verifyFile(kCorpus + "bug_bank_conflict_rows.argus", options);
  EXPECT_TRUE(off.result.kernels.front().findings.empty()) << verify::formatResult(off.result);
}

TEST(Report, JsonCarriesTheCounterexample) {
  test::Verified v = verifyFile(kCorpus + "bug_ktail_b_offset.argus");
  ASSERT_TRUE(v.error.empty()) << v.error;
  nlohmann::json j = nlohmann::json::parse(verify::resultToJson(v.result));
  EXPECT_FALSE(j["proved"].get<bool>());
  const nlohmann::json &f = j["kernels"][0]["findings"][0];
  EXPECT_EQ(f["check"], "tag-assertion");
  EXPECT_EQ(f["accesses"][0]["block"].size(), 3u);
  EXPECT_TRUE(f["accesses"][0]["location"].get<std::string>().find("bug_ktail_b_offset.argus:31:") !=
              std::string::npos);
  EXPECT_EQ(f["tags"].size(), 2u);
  EXPECT_EQ(f["tags"][0]["state"], "tagged");
  EXPECT_NE(f["tags"][0]["fields"]["k"], f["tags"][1]["fields"]["k"]);
  EXPECT_EQ(f["replay"]["status"], "confirmed");
  EXPECT_TRUE(f["sizes"].contains("K"));
  std::string text = verify::formatResult(v.result);
  EXPECT_NE(text.find("[tag-assertion]"), std::string::npos) << text;
  EXPECT_NE(text.find("tag of operand 1: B("), std::string::npos) << text;
}

// Buffers with a general layout are modelled through the layout algebra: the
// buffer's own layout (CuTe order, first mode fastest) on both sides keeps
// the tags, and a view with swapped strides reads the slot transposed.
TEST(Layouts, TransposedBufferLayoutIsModelled) {
  const char *source = R"(
@kernel(grid=(1,))
def k(X: Tensor[16, 16, f32], Y: Tensor[16, 16, f32]):
    tag(X, lambda i, j: (i, j))
    s = shared((1, 16, 16), f32, layout=layout((1, 16, 16), (256, 1, 16)))
    copy(X.tile((0, 0), (16, 16)), s[0])
    x = s[0].load()
    t = load(X.tile((0, 0), (16, 16)))
    assert_tag(x, t, lambda a, b: a.i == b.i and a.j == b.j)
    y = s[0].load(layout=layout((16, 16), (16, 1)))
    assert_tag(y, t, lambda a, b: a.i == b.j and a.j == b.i)
    store(Y.tile((0, 0), (16, 16)), x)
)";
  test::Verified v = test::verifySource(source, "inline.argus");
  ASSERT_TRUE(v.error.empty()) << v.error;
  EXPECT_TRUE(v.result.proved()) << verify::formatResult(v.result);
}

// A layout that maps two elements to one offset has no inverse: reported, not proved.
TEST(Layouts, AliasingLayoutIsReportedNotProved) {
  const char *source = R"(
@kernel(grid=(1,))
def k(X: Tensor[16, 16, f32], Y: Tensor[16, 16, f32]):
    s = shared((1, 16, 16), f32, layout=layout((1, 16, 16), (256, 16, 0)))
    copy(X.tile((0, 0), (16, 16)), s[0])
    store(Y.tile((0, 0), (16, 16)), s[0].load())
)";
  test::Verified v = test::verifySource(source, "inline.argus");
  ASSERT_TRUE(v.error.empty()) << v.error;
  ASSERT_FALSE(v.result.proved()) << verify::formatResult(v.result);
  EXPECT_EQ(v.result.kernels.front().findings.front().kind, verify::CheckKind::Unsupported);
}

} // namespace

namespace {

// Index products that could exceed the bit-vector model are reported, never
// silently wrapped (a wrap could hide a bug).
TEST(Robustness, IndexArithmeticBeyondTheModelIsReported) {
  const char *source = R"(
@kernel(grid=(1,))
def k(X: Tensor[M, N, f32], Y: Tensor[M, N, f32]):
    t = load(X.tile((0, 0), (4, 4)))
    r = M * N
    store(Y.tile((r - M * N, 0), (4, 4)), t)
)";
  verify::VerifyOptions options;
  options.writeOnce = false;
  test::Verified v = test::verifySource(source, "inline.argus", {}, options);
  ASSERT_TRUE(v.error.empty()) << v.error;
  ASSERT_FALSE(v.result.proved()) << verify::formatResult(v.result);
  const verify::Finding &f = v.result.kernels.front().findings.front();
  EXPECT_EQ(f.kind, verify::CheckKind::Unsupported);
  EXPECT_NE(f.message.find("index arithmetic"), std::string::npos) << f.message;
  // The same kernel with small pinned sizes fits the model and is proved.
  lowering::Specialization pinned;
  pinned.dims["M"] = 64;
  pinned.dims["N"] = 64;
  test::Verified small = test::verifySource(source, "inline.argus", pinned, options);
  ASSERT_TRUE(small.error.empty()) << small.error;
  EXPECT_TRUE(small.result.proved()) << verify::formatResult(small.result);
}

} // namespace
