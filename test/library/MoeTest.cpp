//===- MoeTest.cpp - argus_moe of a generated library ---------------------===//
//
// Routed SwiGLU experts against the float64 reference (MoeReference.h) on
// fresh random inputs: ragged sizes (hidden and intermediate not multiples
// of the tiles), renormalised and plain weights, experts that receive no
// token and one that receives every token, few rows per expert (the
// small-tile kernels) and many (the large ones), bf16 and f32. The output is
// poisoned first and a guard region after it must stay intact; the
// workspace is exactly argus_moe_workspace_size bytes, with a guard after it.
// Weights also go in pre-packed (argus_pack_weights), the plain copies then
// NULL, on the libraries whose kernels compute from panels (cpu-avx512).
//
//===----------------------------------------------------------------------===//
#include "LibraryTestSupport.h"

#include "argus/Reference/MoeReference.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace {

using namespace argus_test;

/// Which of the experts' weights argus_moe takes pre-packed.
enum class Packed { None, GateUp, Down, Both };

struct MoeCase {
  argus_dtype dtype;
  int64_t tokens, hidden, intermediate, experts, topK;
  bool renormalize;
  int favourite; // >= 0: every token's logits favour this expert; -1: random
  int shunned;   // >= 0: no token routes to this expert; -1: none
};

class Moe : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(lib.error().empty()) << lib.error();
    moe = lib.symbol<decltype(argus_moe)>("argus_moe");
    pack = lib.symbol<decltype(argus_pack_weights)>("argus_pack_weights");
    packedSize = lib.symbol<decltype(argus_packed_weights_size)>("argus_packed_weights_size");
    workspaceSize = lib.symbol<decltype(argus_moe_workspace_size)>("argus_moe_workspace_size");
    lastError = lib.symbol<decltype(argus_last_error)>("argus_last_error");
    ASSERT_TRUE(moe && workspaceSize && lastError && pack && packedSize);
  }

  /// `count` matrices of n x k at `w` (consecutive) packed by the library,
  /// in a 64-byte aligned buffer.
  std::vector<uint8_t> packWeights(argus_dtype dtype, const void *w, int64_t count, int64_t n, int64_t k,
                                   const void **packed) {
    argus_weights_desc d{sizeof d, count, n, k, dtype, w, k, n * k};
    const size_t bytes = packedSize(&d);
    std::vector<uint8_t> buffer(bytes + 64);
    void *at = buffer.data() + (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64;
    EXPECT_GT(bytes, 0u);
    EXPECT_EQ(pack(&d, at, bytes, nullptr), ARGUS_OK) << lastError();
    *packed = at;
    return buffer;
  }

  /// Whether this library's kernels take pre-packed weights (its target).
  bool packs() const {
    auto manifestJson = lib.symbol<decltype(argus_manifest_json)>("argus_manifest_json");
    return manifestJson && nlohmann::json::parse(manifestJson()).value("target", "") == "cpu-avx512";
  }

  argus_moe_args argsFor(const MoeCase &c) {
    argus_moe_args a = {sizeof a};
    a.num_tokens = c.tokens, a.hidden = c.hidden, a.intermediate = c.intermediate;
    a.num_experts = c.experts, a.top_k = c.topK, a.dtype = c.dtype, a.renormalize = c.renormalize;
    return a;
  }

  void check(const MoeCase &c, uint64_t seed, Packed packed = Packed::None) {
    std::mt19937_64 rng(seed);
    const int64_t T = c.tokens, H = c.hidden, I = c.intermediate, E = c.experts;
    Tensor x(c.dtype, T * H, rng, 1.0), wgu(c.dtype, E * 2 * I * H, rng, 0.2), wd(c.dtype, E * H * I, rng, 0.2),
        out(c.dtype, T * H, rng, 1.0);
    std::vector<float> logits(static_cast<size_t>(T * E));
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t e = 0; e < E; ++e) {
        float &l = logits[t * E + e];
        l = dist(rng);
        if (e == c.favourite) l = 10.0f + dist(rng);
        if (e == c.shunned) l = -10.0f;
      }
    out.poison(T * H);

    argus_moe_args a = argsFor(c);
    const size_t bytes = workspaceSize(&a);
    ASSERT_GT(bytes, 0u);
    std::vector<uint8_t> workspace(bytes + 64, 0xa5);
    a.x = x.bytes.data(), a.router_logits = logits.data(), a.w_gate_up = wgu.bytes.data();
    a.w_down = wd.bytes.data(), a.out = out.bytes.data();
    a.workspace = workspace.data(), a.workspace_size = bytes;
    std::vector<uint8_t> gateUpPacked, downPacked; /* own the packed buffers */
    if (packed == Packed::GateUp || packed == Packed::Both) {
      gateUpPacked = packWeights(c.dtype, wgu.bytes.data(), 2 * E, I, H, &a.w_gate_up_packed);
      a.w_gate_up = nullptr;
    }
    if (packed == Packed::Down || packed == Packed::Both) {
      downPacked = packWeights(c.dtype, wd.bytes.data(), E, H, I, &a.w_down_packed);
      a.w_down = nullptr;
    }
    ASSERT_EQ(moe(&a, nullptr), ARGUS_OK) << lastError();

    argus::ref::MoeShape s;
    s.tokens = T, s.hidden = H, s.intermediate = I, s.experts = E, s.topK = c.topK, s.renormalize = c.renormalize;
    std::vector<double> expected(static_cast<size_t>(T * H));
    argus::ref::moeF64(s, x.values.data(), logits.data(), wgu.values.data(), wd.values.data(), expected.data());
    const double tol = argus::ref::toleranceFor(elementType(c.dtype), std::max(H, I), /*roundings=*/2);
    expectClose(out, expected, tol, 1, H);
    EXPECT_TRUE(out.guardIntact(T * H)) << "the kernel wrote past the output";
    EXPECT_TRUE(std::all_of(workspace.end() - 64, workspace.end(), [](uint8_t b) { return b == 0xa5; }))
        << "the kernel wrote past the workspace";
  }

  /// argus_moe on 2 tokens, 2 experts of 32 x 32 (zeros): for errors.
  argus_status runTinyProblem(argus_dtype dtype) {
    argus_moe_args a = argsFor({dtype, 2, 32, 32, 2, 1, false, -1, -1});
    std::vector<float> buf(2 * 2 * 32 * 32), logits(4, 0.f);
    std::vector<uint8_t> workspace(workspaceSize(&a));
    a.x = a.w_gate_up = a.w_down = buf.data(), a.out = buf.data(), a.router_logits = logits.data();
    a.workspace = workspace.data(), a.workspace_size = workspace.size();
    return moe(&a, nullptr);
  }

  const GeneratedLibrary &lib = GeneratedLibrary::get();
  decltype(argus_moe) *moe = nullptr;
  decltype(argus_moe_workspace_size) *workspaceSize = nullptr;
  decltype(argus_pack_weights) *pack = nullptr;
  decltype(argus_packed_weights_size) *packedSize = nullptr;
  decltype(argus_last_error) *lastError = nullptr;
};

TEST_F(Moe, FewRowsPerExpertRenormalised) {
  check({ARGUS_DTYPE_BF16, 5, 96, 70, 4, 2, true, -1, -1}, 21);
}

TEST_F(Moe, ManyRowsPerExpert) {
  check({ARGUS_DTYPE_BF16, 37, 160, 130, 8, 2, false, -1, -1}, 22);
}

TEST_F(Moe, AnExpertWithoutTokensAndOneWithAll) {
  check({ARGUS_DTYPE_BF16, 20, 64, 64, 4, 1, false, 2, -1}, 23); // every token to expert 2
  check({ARGUS_DTYPE_BF16, 20, 64, 64, 4, 2, true, -1, 1}, 24);  // expert 1 gets none
}

// Experts whose last 64-row block would be less than 3/4 full split it
// over the smaller tiers (default tiers: 45 = 32 + 13, 33 = 32 + 1,
// 68 = 64 + 4, 100 = 64 + 32 + 4); 59 and 112 rows run padded 64-row blocks.
// f32 and bf16 kernels on cpu-avx512 skip a block's padding rows and run
// every partial block in the 64-row tier (45, 33, 68 = 64 + 4 and
// 100 = 64 + 36 rows: a block with ragged rows read in place).
TEST_F(Moe, LargeExpertsSplitTheirLastBlock) {
  check({ARGUS_DTYPE_BF16, 45, 64, 48, 4, 1, false, 3, -1}, 29);
  check({ARGUS_DTYPE_F32, 33, 40, 24, 4, 1, false, 0, -1}, 30);
  check({ARGUS_DTYPE_F32, 68, 48, 40, 3, 1, false, 1, -1}, 31);
  check({ARGUS_DTYPE_BF16, 59, 64, 48, 4, 1, false, 2, -1}, 32);
  check({ARGUS_DTYPE_F32, 100, 40, 32, 3, 1, false, 2, -1}, 33);
  check({ARGUS_DTYPE_BF16, 112, 32, 64, 2, 1, false, 0, -1}, 34);
}

// Many experts with more rows than a decode step's: whole experts go to
// threads (kernels single-threaded), one of them large (120 rows: the
// transposed last tier for plain weights), plain and pre-packed.
TEST_F(Moe, ManyExpertsRunWholeOnThreads) {
  const MoeCase bf16{ARGUS_DTYPE_BF16, 120, 64, 48, 80, 4, true, 7, 11};
  const MoeCase f32{ARGUS_DTYPE_F32, 120, 40, 72, 80, 4, false, 3, -1};
  check(bf16, 61);
  check(f32, 62);
  if (!packs()) return;
  check(bf16, 63, Packed::Both);
  check(f32, 64, Packed::GateUp);
}

TEST_F(Moe, F32AndTopKOfAll) {
  check({ARGUS_DTYPE_F32, 9, 33, 17, 3, 3, false, -1, -1}, 25);
  check({ARGUS_DTYPE_F32, 1, 256, 128, 16, 4, true, -1, -1}, 26);
}

TEST_F(Moe, PrePackedWeights) {
  if (!packs()) {
    // cpu-avx2 kernels read weights plain: packing is refused with the reason.
    float w[32 * 32] = {};
    argus_weights_desc d{sizeof d, 1, 32, 32, ARGUS_DTYPE_F32, w, 32, 0};
    EXPECT_EQ(packedSize(&d), 0u);
    EXPECT_EQ(pack(&d, w, sizeof w, nullptr), ARGUS_ERROR_UNSUPPORTED);
    EXPECT_NE(std::string(lastError()).find("pass them plain"), std::string::npos) << lastError();
    return;
  }
  check({ARGUS_DTYPE_BF16, 5, 96, 70, 4, 2, true, -1, -1}, 41, Packed::Both);      // ragged, small tiles
  check({ARGUS_DTYPE_F32, 37, 160, 130, 8, 2, false, -1, -1}, 42, Packed::Both);   // many rows
  check({ARGUS_DTYPE_BF16, 100, 64, 48, 3, 1, false, 2, -1}, 43, Packed::GateUp);  // 64 + 32 + 4 rows
  check({ARGUS_DTYPE_F32, 20, 64, 64, 4, 1, false, 2, -1}, 44, Packed::Down);      // one expert takes all
  // Packed weights of another shape are refused before anything runs.
  argus_moe_args a = argsFor({ARGUS_DTYPE_F32, 2, 32, 32, 2, 1, false, -1, -1});
  std::vector<float> buf(2 * 2 * 32 * 32, 0.5f), logits(4, 0.f);
  std::vector<uint8_t> workspace(workspaceSize(&a));
  a.x = a.w_gate_up = a.w_down = buf.data(), a.out = buf.data(), a.router_logits = logits.data();
  a.workspace = workspace.data(), a.workspace_size = workspace.size();
  const auto keep = packWeights(ARGUS_DTYPE_F32, buf.data(), 2, 32, 32, &a.w_down_packed); /* 2 x 32 x 32: down's shape */
  a.w_gate_up_packed = a.w_down_packed; /* gate/up needs 4 matrices */
  EXPECT_EQ(moe(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lastError()).find("w_gate_up_packed holds 2 packed f32 matrices of 32 x 32"),
            std::string::npos)
      << lastError();
}

// f32 experts of 17-64 rows take kernels of their own for plain weights on
// cpu-avx512 (256-long k-steps; over 32 rows the transposed form): each
// layout of each matrix, over several k-steps with a ragged last one,
// against the same reference.
TEST_F(Moe, F32PlainAndPackedWeightsOverSeveralKSteps) {
  const MoeCase c{ARGUS_DTYPE_F32, 40, 520, 300, 3, 1, false, 1, -1}; // 40 rows to expert 1
  check(c, 51);
  if (!packs()) return;
  check(c, 52, Packed::GateUp);
  check(c, 53, Packed::Down);
  check(c, 54, Packed::Both);
  auto manifestJson = lib.symbol<decltype(argus_manifest_json)>("argus_manifest_json");
  ASSERT_NE(manifestJson, nullptr);
  const nlohmann::json manifest = nlohmann::json::parse(manifestJson());
  const auto &moeEntries = manifest.at("moe");
  auto f32 = std::find_if(moeEntries.begin(), moeEntries.end(),
                          [](const nlohmann::json &e) { return e.at("name") == "f32_generic"; });
  ASSERT_NE(f32, moeEntries.end()) << moeEntries.dump();
  for (const nlohmann::json &tier : f32->at("tiers")) {
    const bool packedForm = tier.at("block_rows").get<int64_t>() > 16, last = !tier.contains("max_rows");
    EXPECT_EQ(tier.contains("gate_up_plain"), packedForm) << tier.dump();
    EXPECT_EQ(tier.contains("down_plain"), packedForm) << tier.dump();
    // The last tier (the 40 rows above) runs plain weights transposed (argus_moe_transposed.h).
    EXPECT_EQ(tier.contains("gate_up_transposed"), last) << tier.dump();
    EXPECT_EQ(tier.contains("down_transposed"), last) << tier.dump();
  }
}

TEST_F(Moe, DtypeWithoutKernelsIsUnsupported) {
  EXPECT_EQ(runTinyProblem(ARGUS_DTYPE_F16), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_STREQ(lastError(), "argus_moe: no kernel for f16 experts in this library");
}

// The MoE configuration of the library's own catalog (from its manifest),
// under ARGUS_STRICT=1 so only the catalog kernels may run. Run on a
// library built from an MoE catalog (qwen3-30b-a3b in test/integration).
TEST_F(Moe, CatalogConfigurationStrict) {
  const char *strict = std::getenv("ARGUS_STRICT");
  if (!strict || std::string(strict) != "1") GTEST_SKIP() << "needs ARGUS_STRICT=1 and an MoE catalog library";
  auto manifestJson = lib.symbol<decltype(argus_manifest_json)>("argus_manifest_json");
  ASSERT_NE(manifestJson, nullptr);
  nlohmann::json manifest = nlohmann::json::parse(manifestJson());
  const nlohmann::json *entry = nullptr;
  for (const nlohmann::json &e : manifest.at("moe"))
    if (e.contains("hidden")) entry = &e;
  ASSERT_NE(entry, nullptr) << "the library's catalog has no MoE configuration";
  // Tiles about as tall as the expert's rows (1, up to 4, up to 16, up to 32), then any rows.
  const nlohmann::json &tiers = entry->at("tiers");
  ASSERT_EQ(tiers.size(), 5u) << tiers.dump();
  EXPECT_EQ(tiers[0].at("max_rows"), 1);
  EXPECT_EQ(tiers[1].at("max_rows"), 4);
  EXPECT_EQ(tiers[2].at("max_rows"), 16);
  EXPECT_EQ(tiers[3].at("max_rows"), 32);
  EXPECT_FALSE(tiers[4].contains("max_rows")) << tiers.dump();
  EXPECT_EQ(tiers[0].at("block_rows"), 1);
  EXPECT_EQ(tiers[4].at("block_rows"), 64); // blocks of 64 rows, partial ones split by argus_moe

  const int64_t hidden = entry->at("hidden"), intermediate = entry->at("intermediate");
  // Kernels are specialised on (hidden, intermediate), not on the expert
  // count: 12 experts keep the random weights small (Qwen3 has 128).
  const int64_t topK = entry->at("top_k"), experts = std::min(entry->at("num_experts").get<int64_t>(), int64_t(12));
  // A decode step (3 tokens: small tiles) and a prefill chunk in which every
  // token picks expert 5 (40 rows: large tiles) and the rest few rows.
  check({ARGUS_DTYPE_BF16, 3, hidden, intermediate, experts, topK, true, -1, -1}, 27);
  check({ARGUS_DTYPE_BF16, 40, hidden, intermediate, experts, topK, true, 5, -1}, 28);
}

// Run with ARGUS_STRICT=1: the tiny catalog has no MoE, so the generic kernels are refused.
TEST_F(Moe, StrictRefusesNonCatalog) {
  const char *strict = std::getenv("ARGUS_STRICT");
  if (!strict || std::string(strict) != "1") GTEST_SKIP() << "needs ARGUS_STRICT=1 (its own ctest entry)";
  EXPECT_EQ(runTinyProblem(ARGUS_DTYPE_BF16), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(lastError()).find("ARGUS_STRICT is set"), std::string::npos) << lastError();
}

} // namespace
