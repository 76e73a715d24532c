//===- AttentionPrefillTest.cpp - argus_attention_prefill of a generated library -===//
//
// Varlen batches (empty, single-token, ragged and longer-than-a-tile
// sequences; prefixes with more keys than queries), causal and not, grouped
// KV heads, every dtype, head dims 64 and 128, against the float64 reference
// (argus/Reference/AttentionReference.h) on fresh random inputs. The output
// is poisoned with NaN first, and a guard region after it must stay intact.
// The catalog configuration of the library reaches its tuned kernel; others
// reach the generic kernels (or UNSUPPORTED under ARGUS_STRICT=1). Values may
// be narrower than keys (multi-head latent attention: 192 and 128).
//
//===----------------------------------------------------------------------===//
#include "argus/Reference/AttentionReference.h"
#include "LibraryTestSupport.h"

#include <cmath>
#include <cstddef>

namespace {

using argus::ref::AttentionShape;
using namespace argus_test;

struct Case {
  argus_dtype dtype;
  int64_t heads, kvHeads, headDim;
  std::vector<int32_t> seqQ, seqKv;
  bool causal;
  float scale;         // 0: the default 1/sqrt(head_dim)
  int64_t vHeadDim = 0; // 0: headDim
};

class AttentionPrefill : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(lib.error().empty()) << lib.error();
    prefill = lib.symbol<decltype(argus_attention_prefill)>("argus_attention_prefill");
    lastError = lib.symbol<decltype(argus_last_error)>("argus_last_error");
    ASSERT_NE(prefill, nullptr);
    ASSERT_NE(lastError, nullptr);
  }

  /// Runs `c` and compares every output element with the reference.
  void check(const Case &c, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const int64_t batch = c.seqQ.size(), H = c.heads, KVH = c.kvHeads, D = c.headDim;
    const int64_t DV = c.vHeadDim ? c.vHeadDim : D;
    std::vector<int32_t> cuQ{0}, cuKv{0};
    int64_t maxQ = 0, maxKv = 0;
    for (int64_t b = 0; b < batch; ++b) {
      cuQ.push_back(cuQ.back() + c.seqQ[b]);
      cuKv.push_back(cuKv.back() + c.seqKv[b]);
      maxQ = std::max<int64_t>(maxQ, c.seqQ[b]);
      maxKv = std::max<int64_t>(maxKv, c.seqKv[b]);
    }
    const int64_t nq = int64_t(cuQ.back()) * H * D, nkv = int64_t(cuKv.back()) * KVH * D;
    const int64_t nv = int64_t(cuKv.back()) * KVH * DV, no = int64_t(cuQ.back()) * H * DV;
    Tensor q(c.dtype, nq, rng, 2.0), k(c.dtype, nkv, rng, 2.0), v(c.dtype, nv, rng, 1.0),
        o(c.dtype, no, rng, 1.0);
    o.poison(no);

    argus_attention_prefill_args a = {sizeof a};
    a.batch = batch, a.num_heads = H, a.num_kv_heads = KVH, a.head_dim = D;
    a.max_seqlen_q = maxQ, a.max_seqlen_kv = maxKv, a.dtype = c.dtype;
    a.q = q.bytes.data(), a.k = k.bytes.data(), a.v = v.bytes.data(), a.o = o.bytes.data();
    a.cu_seqlens_q = cuQ.data(), a.cu_seqlens_kv = cuKv.data();
    a.causal = c.causal, a.scale = c.scale, a.v_head_dim = c.vHeadDim;
    ASSERT_EQ(prefill(&a, nullptr), ARGUS_OK) << lastError();

    const double tol = argus::ref::toleranceFor(elementType(c.dtype), maxKv, /*roundings=*/2);
    std::vector<double> expected(static_cast<size_t>(no)), magnitude(static_cast<size_t>(no));
    for (int64_t b = 0; b < batch; ++b) {
      AttentionShape s;
      s.seqQ = c.seqQ[b], s.seqKv = c.seqKv[b], s.numHeads = H, s.numKvHeads = KVH, s.headDim = D;
      s.vHeadDim = DV;
      s.causal = c.causal;
      s.scale = c.scale != 0 ? c.scale : 1.0 / std::sqrt(double(float(D)));
      argus::ref::attentionPrefillF64(s, q.values.data() + cuQ[b] * H * D, k.values.data() + cuKv[b] * KVH * D,
                                      v.values.data() + cuKv[b] * KVH * DV, expected.data() + cuQ[b] * H * DV,
                                      magnitude.data() + cuQ[b] * H * DV);
    }
    expectClose(o, expected, tol, H, DV, &magnitude);
    EXPECT_TRUE(o.guardIntact(no)) << "the kernel wrote past the output";
  }

  const argus_test::GeneratedLibrary &lib = argus_test::GeneratedLibrary::get();
  decltype(argus_attention_prefill) *prefill = nullptr;
  decltype(argus_last_error) *lastError = nullptr;
};

// The tiny-test catalog's configuration: 4 heads / 2 KV heads of 64, bf16.
TEST_F(AttentionPrefill, CatalogConfigRaggedBatch) {
  for (bool causal : {false, true})
    check({ARGUS_DTYPE_BF16, 4, 2, 64, {1, 37, 0, 70}, {1, 37, 0, 70}, causal, 0.0f}, 1 + causal);
}

TEST_F(AttentionPrefill, PrefixLongerThanQueries) {
  // Chunked prefill / prefix caching: 5 new queries against 133 cached keys,
  // and more queries than keys (rows that see no key are zero).
  for (bool causal : {false, true})
    check({ARGUS_DTYPE_BF16, 4, 2, 64, {5, 40}, {133, 20}, causal, 0.3f}, 3 + causal);
}

TEST_F(AttentionPrefill, GenericKernelsEveryDtype) {
  check({ARGUS_DTYPE_F32, 6, 2, 128, {65, 3}, {65, 3}, true, 0.0f}, 5);    // group 3 via group-1 kernel
  check({ARGUS_DTYPE_F16, 3, 3, 64, {33, 1}, {33, 1}, false, 0.2f}, 6);   // multi-head
  check({ARGUS_DTYPE_BF16, 8, 1, 128, {50}, {50}, true, 0.0f}, 7);        // group 8 (MQA)
}

TEST_F(AttentionPrefill, RejectsBadSeqlens) {
  std::vector<uint16_t> buf(4 * 4 * 64);
  int32_t cuQ[] = {0, 3, 2}, cuKv[] = {0, 3, 4};
  argus_attention_prefill_args a = {sizeof a};
  a.batch = 2, a.num_heads = 4, a.num_kv_heads = 2, a.head_dim = 64, a.max_seqlen_q = 3, a.max_seqlen_kv = 3;
  a.dtype = ARGUS_DTYPE_BF16, a.q = a.k = a.v = buf.data(), a.o = buf.data();
  a.cu_seqlens_q = cuQ, a.cu_seqlens_kv = cuKv;
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lastError()).find("sequence 1 has -1 tokens by cu_seqlens_q"), std::string::npos)
      << lastError();
  cuQ[2] = 4;
  cuKv[2] = 7; // 4 keys > max_seqlen_kv
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lastError()).find("must be in [0, 3]"), std::string::npos) << lastError();
}

TEST_F(AttentionPrefill, UnknownHeadDimIsUnsupported) {
  std::vector<float> buf(2 * 2 * 80);
  int32_t cu[] = {0, 2};
  argus_attention_prefill_args a = {sizeof a};
  a.batch = 1, a.num_heads = 2, a.num_kv_heads = 2, a.head_dim = 80, a.max_seqlen_q = 2, a.max_seqlen_kv = 2;
  a.dtype = ARGUS_DTYPE_F32, a.q = a.k = a.v = buf.data(), a.o = buf.data();
  a.cu_seqlens_q = cu, a.cu_seqlens_kv = cu;
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(lastError()).find("no kernel for f32, head_dim 80"), std::string::npos) << lastError();
}

TEST_F(AttentionPrefill, ValueDimWithoutKernelIsUnsupported) {
  std::vector<uint16_t> buf(2 * 2 * 128);
  int32_t cu[] = {0, 2};
  argus_attention_prefill_args a = {sizeof a};
  a.batch = 1, a.num_heads = 2, a.num_kv_heads = 2, a.head_dim = 128, a.v_head_dim = 64;
  a.max_seqlen_q = 2, a.max_seqlen_kv = 2;
  a.dtype = ARGUS_DTYPE_BF16, a.q = a.k = a.v = buf.data(), a.o = buf.data();
  a.cu_seqlens_q = cu, a.cu_seqlens_kv = cu;
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(lastError()).find("no kernel for bf16, head_dim 128, v_head_dim 64"), std::string::npos)
      << lastError();
  a.v_head_dim = -1;
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lastError()).find("v_head_dim"), std::string::npos) << lastError();
}

// A caller built against a header without v_head_dim passes a shorter
// struct: values are then head_dim wide.
TEST_F(AttentionPrefill, StructWithoutValueDimIsAccepted) {
  std::vector<uint16_t> buf(4 * 4 * 64, 0x3f80);
  int32_t cu[] = {0, 4};
  argus_attention_prefill_args a = {sizeof a};
  a.struct_size = offsetof(argus_attention_prefill_args, v_head_dim);
  a.v_head_dim = 12345; // beyond struct_size: never read
  a.batch = 1, a.num_heads = 4, a.num_kv_heads = 2, a.head_dim = 64, a.max_seqlen_q = 4, a.max_seqlen_kv = 4;
  a.dtype = ARGUS_DTYPE_BF16, a.q = a.k = a.v = buf.data(), a.o = buf.data();
  a.cu_seqlens_q = cu, a.cu_seqlens_kv = cu;
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_OK) << lastError();
  for (size_t cut : {offsetof(argus_attention_prefill_args, v_head_dim) - 1,
                     offsetof(argus_attention_prefill_args, v_head_dim) + 4}) {
    a.struct_size = cut; // ends inside a field
    EXPECT_EQ(prefill(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT) << cut;
  }
}

// A caller built against a header without total_q / total_kv passes a struct
// ending before them; one that passes them has cu_seqlens checked against them.
TEST_F(AttentionPrefill, TotalsAreOptionalAndBoundTheSequences) {
  std::vector<uint16_t> buf(6 * 4 * 64, 0x3f80);
  int32_t cu[] = {0, 2, 6};
  argus_attention_prefill_args a = {sizeof a};
  a.batch = 2, a.num_heads = 4, a.num_kv_heads = 2, a.head_dim = 64, a.max_seqlen_q = 4, a.max_seqlen_kv = 4;
  a.dtype = ARGUS_DTYPE_BF16, a.q = a.k = a.v = buf.data(), a.o = buf.data();
  a.cu_seqlens_q = cu, a.cu_seqlens_kv = cu;
  a.struct_size = offsetof(argus_attention_prefill_args, total_q);
  a.total_q = a.total_kv = 1;  // beyond struct_size: never read
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_OK) << lastError();
  a.struct_size = sizeof a;
  a.total_q = a.total_kv = 6;
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_OK) << lastError();
  a.total_kv = 5;  // the second sequence's keys end at row 6
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lastError()).find("past total_kv (5 rows)"), std::string::npos) << lastError();
  a.total_kv = -1;
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  a.struct_size = offsetof(argus_attention_prefill_args, total_q) + 4;  // ends inside total_q
  a.total_kv = 6;
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
}

// The prefill configurations of the library's own catalog (from its
// manifest), under ARGUS_STRICT=1 so only catalog kernels may run: run on
// the DeepSeek-V2-Lite library (queries and keys 192 wide, values 128).
TEST_F(AttentionPrefill, CatalogConfigurationStrict) {
  const char *strict = std::getenv("ARGUS_STRICT");
  if (!strict || std::string(strict) != "1") GTEST_SKIP() << "needs ARGUS_STRICT=1 and a catalog library";
  int seen = 0;
  for (const CatalogAttentionKernel &k : catalogAttentionKernels(lib, "attention_prefill")) {
    SCOPED_TRACE(k.entry);
    check({k.dtype, 2 * k.group, 2, k.headDim, {1, 45, 70}, {1, 45, 90}, true, 0.0f, k.vHeadDim}, 40 + seen);
    check({k.dtype, k.group, 1, k.headDim, {33}, {33}, false, 0.0f, k.vHeadDim}, 50 + seen);
    ++seen;
  }
  EXPECT_GT(seen, 0) << "the library's catalog has no prefill configuration";
}

// Run with ARGUS_STRICT=1: the catalog configuration runs, others are refused.
TEST_F(AttentionPrefill, StrictRefusesNonCatalog) {
  const char *strict = std::getenv("ARGUS_STRICT");
  if (!strict || std::string(strict) != "1") GTEST_SKIP() << "needs ARGUS_STRICT=1 (its own ctest entry)";
  check({ARGUS_DTYPE_BF16, 4, 2, 64, {9}, {9}, true, 0.0f}, 8);
  std::vector<float> buf(8 * 128);
  int32_t cu[] = {0, 1};
  argus_attention_prefill_args a = {sizeof a};
  a.batch = 1, a.num_heads = 8, a.num_kv_heads = 1, a.head_dim = 128, a.max_seqlen_q = 1, a.max_seqlen_kv = 1;
  a.dtype = ARGUS_DTYPE_F32, a.q = a.k = a.v = buf.data(), a.o = buf.data();
  a.cu_seqlens_q = cu, a.cu_seqlens_kv = cu;
  EXPECT_EQ(prefill(&a, nullptr), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(lastError()).find("ARGUS_STRICT is set"), std::string::npos) << lastError();
}

} // namespace
