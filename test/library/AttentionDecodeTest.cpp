//===- AttentionDecodeTest.cpp - argus_attention_decode of a generated library -===//
//
// Paged decode: ragged context lengths (0, 1, a page boundary, a partial last
// page, the full block table, contexts split in several runs), shuffled and
// shared pages, grouped KV heads,
// every dtype, against the float64 reference on fresh random inputs (also
// with NaN and infinities in every cache slot past the contexts); the
// output is poisoned with NaN first and a guard region after it must stay
// intact. Bad lengths and negative page indices are refused.
//
//===----------------------------------------------------------------------===//
#include "LibraryTestSupport.h"

#include "argus/Reference/AttentionReference.h"

#include <algorithm>
#include <numeric>

namespace {

using namespace argus_test;

struct DecodeCase {
  argus_dtype dtype;
  int64_t heads, kvHeads, headDim, pageSize, maxPages;
  std::vector<int32_t> seqlens;
  int64_t vHeadDim = 0; // 0: headDim
  bool junkPastContexts = false; // NaN and infinities in every slot no sequence reads
};

class AttentionDecode : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(lib.error().empty()) << lib.error();
    decode = lib.symbol<decltype(argus_attention_decode)>("argus_attention_decode");
    lastError = lib.symbol<decltype(argus_last_error)>("argus_last_error");
    ASSERT_NE(decode, nullptr);
    ASSERT_NE(lastError, nullptr);
  }

  void check(const DecodeCase &c, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const int64_t B = c.seqlens.size(), H = c.heads, KVH = c.kvHeads, D = c.headDim;
    const int64_t DV = c.vHeadDim ? c.vHeadDim : D;
    const int64_t pages = B * c.maxPages + 3; // a pool larger than the tables use
    // Each sequence gets pages in shuffled order; sequence 1 shares sequence 0's first page.
    std::vector<int32_t> pool(static_cast<size_t>(pages));
    std::iota(pool.begin(), pool.end(), 0);
    std::shuffle(pool.begin(), pool.end(), rng);
    std::vector<int32_t> table(static_cast<size_t>(B * c.maxPages));
    for (size_t i = 0; i < table.size(); ++i) table[i] = pool[i];
    if (B > 1) table[size_t(c.maxPages)] = table[0];

    const int64_t nq = B * H * D, no = B * H * DV, ncache = pages * c.pageSize * KVH * D;
    const int64_t nvcache = pages * c.pageSize * KVH * DV;
    Tensor q(c.dtype, nq, rng, 2.0), k(c.dtype, ncache, rng, 2.0), v(c.dtype, nvcache, rng, 1.0),
        o(c.dtype, no, rng, 1.0);
    o.poison(no);
    if (c.junkPastContexts) { // what an engine's cache may hold there: garbage, NaN included
      std::vector<bool> read(size_t(pages * c.pageSize), false);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t t = 0; t < c.seqlens[b]; ++t)
          read[size_t(table[size_t(b * c.maxPages + t / c.pageSize)] * c.pageSize + t % c.pageSize)] = true;
      const float junk[] = {NAN, INFINITY, -INFINITY};
      for (int64_t slot = 0; slot < pages * c.pageSize; ++slot)
        if (!read[size_t(slot)])
          for (int64_t h = 0; h < KVH; ++h) {
            for (int64_t d = 0; d < D; ++d) k.set((slot * KVH + h) * D + d, junk[(slot + d) % 3]);
            for (int64_t d = 0; d < DV; ++d) v.set((slot * KVH + h) * DV + d, junk[(slot + d + 1) % 3]);
          }
    }

    argus_attention_decode_args a = {sizeof a};
    a.batch = B, a.num_heads = H, a.num_kv_heads = KVH, a.head_dim = D;
    a.page_size = c.pageSize, a.max_pages_per_seq = c.maxPages, a.dtype = c.dtype;
    a.q = q.bytes.data(), a.k_cache = k.bytes.data(), a.v_cache = v.bytes.data(), a.o = o.bytes.data();
    a.block_table = table.data(), a.seqlens_kv = c.seqlens.data(), a.v_head_dim = c.vHeadDim;
    ASSERT_EQ(decode(&a, nullptr), ARGUS_OK) << lastError();

    argus::ref::PagedDecodeShape s;
    s.batch = B, s.numHeads = H, s.numKvHeads = KVH, s.headDim = D, s.vHeadDim = DV, s.pageSize = c.pageSize;
    s.maxPagesPerSeq = c.maxPages, s.scale = 1.0 / std::sqrt(double(float(D)));
    std::vector<int64_t> table64(table.begin(), table.end()), lens64(c.seqlens.begin(), c.seqlens.end());
    std::vector<double> expected(static_cast<size_t>(no)), magnitude(static_cast<size_t>(no));
    argus::ref::attentionDecodeF64(s, q.values.data(), k.values.data(), v.values.data(), table64.data(),
                                   lens64.data(), expected.data(), magnitude.data());
    const double tol = argus::ref::toleranceFor(elementType(c.dtype), c.maxPages * c.pageSize, /*roundings=*/2);
    expectClose(o, expected, tol, H, DV, &magnitude);
    EXPECT_TRUE(o.guardIntact(no)) << "the kernel wrote past the output";
  }

  const GeneratedLibrary &lib = GeneratedLibrary::get();
  decltype(argus_attention_decode) *decode = nullptr;
  decltype(argus_last_error) *lastError = nullptr;
};

// The tiny-test catalog: 4 heads / 2 KV heads of 64, bf16, pages of 16.
TEST_F(AttentionDecode, CatalogConfigRaggedContexts) {
  check({ARGUS_DTYPE_BF16, 4, 2, 64, 16, 9, {144, 0, 1, 16, 17, 100}}, 11);
}

TEST_F(AttentionDecode, GenericKernelsEveryDtype) {
  check({ARGUS_DTYPE_F32, 6, 2, 128, 16, 5, {80, 33, 2}}, 12);   // group 3 via the group-1 kernel
  check({ARGUS_DTYPE_F16, 2, 2, 64, 16, 4, {64, 63}}, 13);       // multi-head
  check({ARGUS_DTYPE_BF16, 8, 1, 128, 16, 40, {640, 500}}, 14);  // MQA, longer contexts
}

// Contexts of thousands of tokens are split (flash-decoding) into runs of
// at most 1 MiB of K and V, here 128 pages; the partials are merged. Ragged:
// 300 pages cut 128/128/44, a sequence ending inside the second run, a
// short one and an empty one in the same batch.
TEST_F(AttentionDecode, LongContextsSplitAndMerge) {
  check({ARGUS_DTYPE_BF16, 2, 1, 128, 16, 300, {4800, 3000, 17, 0}}, 15);
}

// Slots past a context (the tail of its last page, pages the table lists
// beyond it, the pool's spare pages) may hold anything: masked scores weigh
// 0, and 0 * NaN would still be NaN, so their values must not be read into
// the sums. Catalog and generic kernels, a context split in several runs.
TEST_F(AttentionDecode, JunkPastTheContextsIsNeverRead) {
  check({ARGUS_DTYPE_BF16, 4, 2, 64, 16, 9, {144, 0, 1, 16, 17, 100}, 0, true}, 16);
  check({ARGUS_DTYPE_F32, 6, 2, 128, 16, 5, {80, 33, 2}, 0, true}, 17);
  check({ARGUS_DTYPE_F16, 2, 2, 64, 16, 4, {64, 63}, 0, true}, 18);
  check({ARGUS_DTYPE_BF16, 2, 1, 128, 16, 300, {4799, 3001, 17, 0}, 0, true}, 19);
}

// Pages of a multiple of the kernels' 16 tokens (vLLM's 32, larger ones) run
// on them, each page read as consecutive pages of 16; with junk past the
// contexts, and page indices that address the pool's last pages.
TEST_F(AttentionDecode, PagesOfAMultipleOfTheKernelPageRunOnIt) {
  check({ARGUS_DTYPE_BF16, 4, 2, 64, 32, 5, {144, 0, 1, 32, 33, 100}, 0, true}, 20); // the catalog kernel
  check({ARGUS_DTYPE_F32, 6, 2, 128, 64, 4, {200, 63, 64, 1}, 0, true}, 21);        // generic, per KV head
  check({ARGUS_DTYPE_F16, 2, 2, 64, 48, 3, {144, 47}}, 22);
}

TEST_F(AttentionDecode, RejectsBadTables) {
  std::vector<uint16_t> buf(4 * 16 * 2 * 64);
  std::vector<int32_t> table = {0, 1, 2, 3}, lens = {33, 4};
  argus_attention_decode_args a = {sizeof a};
  a.batch = 2, a.num_heads = 4, a.num_kv_heads = 2, a.head_dim = 64, a.page_size = 16, a.max_pages_per_seq = 2;
  a.dtype = ARGUS_DTYPE_BF16, a.q = a.k_cache = a.v_cache = buf.data(), a.o = buf.data();
  a.block_table = table.data(), a.seqlens_kv = lens.data();
  EXPECT_EQ(decode(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lastError()).find("seqlens_kv[0] is 33 (must be in [0, 32]"), std::string::npos)
      << lastError();
  lens[0] = 20;
  table[1] = -4;
  EXPECT_EQ(decode(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lastError()).find("block_table[0][1] is -4"), std::string::npos) << lastError();
}

TEST_F(AttentionDecode, UnknownPageSizeIsUnsupported) {
  std::vector<float> buf(7 * 2 * 64);
  std::vector<int32_t> table = {0}, lens = {7};
  argus_attention_decode_args a = {sizeof a};
  a.batch = 1, a.num_heads = 2, a.num_kv_heads = 2, a.head_dim = 64, a.page_size = 7, a.max_pages_per_seq = 1;
  a.dtype = ARGUS_DTYPE_F32, a.q = a.k_cache = a.v_cache = buf.data(), a.o = buf.data();
  a.block_table = table.data(), a.seqlens_kv = lens.data();
  EXPECT_EQ(decode(&a, nullptr), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(lastError()).find("and page_size 7"), std::string::npos) << lastError();
}

// The decode configurations of the library's own catalog (from its
// manifest), under ARGUS_STRICT=1 so only catalog kernels may run: run on
// the DeepSeek-V2-Lite library (keys 192 wide, values 128).
TEST_F(AttentionDecode, CatalogConfigurationStrict) {
  const char *strict = std::getenv("ARGUS_STRICT");
  if (!strict || std::string(strict) != "1") GTEST_SKIP() << "needs ARGUS_STRICT=1 and a catalog library";
  int seen = 0;
  for (const CatalogAttentionKernel &k : catalogAttentionKernels(lib, "attention_decode")) {
    SCOPED_TRACE(k.entry);
    const int32_t page = int32_t(k.pageSize);
    check({k.dtype, 2 * k.group, 2, k.headDim, k.pageSize, 9, {0, 1, page, 9 * page - 3}, k.vHeadDim}, 60 + seen);
    ++seen;
  }
  EXPECT_GT(seen, 0) << "the library's catalog has no decode configuration";
}

} // namespace
