//===- GemmRandomTest.cpp - argus_gemm of a generated library, random cases ===//
//
// The curated shapes of test/client (gemm_client.c) pin which kernel runs;
// this test draws many argument sets at random and checks only the results,
// so that what the runtime plans (catalog kernels, generic buckets, the
// transposed f32 form and its chunks, pre-packed weights) meets shapes and
// strides nobody listed: every dtype pair with a generic kernel, m, n, k from
// 1 to a few hundred (catalog N x K of tiny-test.yaml included), padded
// leading dimensions, alpha, beta, bias. Each case: C holds random values
// (beta != 0) or NaN (beta == 0: BLAS does not read C), its padding columns
// must keep their bits and a guard after it must stay intact; the result
// must match a float64 reference within the rounding of its dtypes.
//
//===----------------------------------------------------------------------===//
#include "LibraryTestSupport.h"

#include "cpu/argus_cpu_abi.h"

#include <algorithm>
#include <sstream>

namespace {

using namespace argus_test;

const char *name(argus_dtype t) {
  return t == ARGUS_DTYPE_F32 ? "f32" : t == ARGUS_DTYPE_BF16 ? "bf16" : "f16";
}

struct GemmCase {
  argus_dtype ab, c;
  int64_t m, n, k, padA, padB, padC;
  float alpha, beta;
  bool bias, packed;

  std::string describe() const {
    std::ostringstream s;
    s << m << "x" << n << "x" << k << " " << name(ab) << "->" << name(c) << " pads "
      << padA << "/" << padB << "/" << padC << " alpha " << alpha << " beta " << beta << (bias ? " bias" : "")
      << (packed ? " packed" : "");
    return s.str();
  }
};

/// Unit roundoff of storing into `t`.
double roundoff(argus_dtype t) {
  return t == ARGUS_DTYPE_F32 ? 0x1p-24 : t == ARGUS_DTYPE_BF16 ? 0x1p-8 : 0x1p-11;
}

class GemmRandom : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(lib.error().empty()) << lib.error();
    gemm = lib.symbol<decltype(argus_gemm)>("argus_gemm");
    pack = lib.symbol<decltype(argus_pack_weights)>("argus_pack_weights");
    packedSize = lib.symbol<decltype(argus_packed_weights_size)>("argus_packed_weights_size");
    lastError = lib.symbol<decltype(argus_last_error)>("argus_last_error");
    ASSERT_TRUE(gemm && pack && packedSize && lastError);
  }

  GemmCase draw(std::mt19937_64 &rng) {
    static const std::pair<argus_dtype, argus_dtype> kTypes[] = {
        {ARGUS_DTYPE_F32, ARGUS_DTYPE_F32}, {ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16}, {ARGUS_DTYPE_BF16, ARGUS_DTYPE_F32},
        {ARGUS_DTYPE_F16, ARGUS_DTYPE_F16}, {ARGUS_DTYPE_F16, ARGUS_DTYPE_F32}};
    /* tiny-test.yaml's GEMMs (N x K), so that catalog kernels are drawn too */
    static const std::pair<int64_t, int64_t> kCatalog[] = {{256, 256}, {512, 256}, {1024, 256}, {256, 512}, {1000, 256}};
    auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    GemmCase g{};
    const auto &types = kTypes[pick(0, 4)];
    g.ab = types.first, g.c = types.second;
    const int64_t size = pick(0, 9); /* few rows (decode) to a few hundred (prefill, transposed f32) */
    g.m = size < 3 ? pick(1, 4) : size < 6 ? pick(5, 70) : pick(60, 330);
    if (pick(0, 2) == 0) {
      const auto &nk = kCatalog[pick(0, 4)];
      g.n = nk.first, g.k = nk.second;
    } else {
      g.n = pick(1, 400), g.k = pick(1, 700);
    }
    g.padA = pick(0, 1) * pick(1, 9), g.padB = pick(0, 1) * pick(1, 9), g.padC = pick(0, 1) * pick(1, 9);
    static const float kAlpha[] = {1.0f, -0.5f, 2.0f}, kBeta[] = {0.0f, 0.0f, 0.5f, -1.0f};
    g.alpha = kAlpha[pick(0, 2)], g.beta = kBeta[pick(0, 3)];
    g.bias = pick(0, 1) == 1;
    g.packed = g.ab != ARGUS_DTYPE_F16 && pick(0, 2) == 0;
    return g;
  }

  void check(const GemmCase &g, std::mt19937_64 &rng) {
    SCOPED_TRACE(g.describe());
    const int64_t lda = g.k + g.padA, ldb = g.k + g.padB, ldc = g.n + g.padC;
    Tensor a(g.ab, g.m * lda, rng, 1.0), b(g.ab, g.n * ldb, rng, 1.0), bias(g.c, g.n, rng, 1.0);
    Tensor c(g.c, g.m * ldc, rng, 1.0);
    if (g.beta == 0.0f) /* not read: NaN must not survive */
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) c.set(i * ldc + j, NAN);
    const Tensor original = c;

    std::vector<uint8_t> packedBuffer;
    const void *packed = nullptr;
    if (g.packed) {
      argus_weights_desc d{sizeof d, 1, g.n, g.k, g.ab, b.bytes.data(), ldb, 0};
      const size_t bytes = packedSize(&d);
      if (bytes == 0) { /* this library's kernels read no panels (cpu-avx2): plain */
        EXPECT_NE(pack(&d, nullptr, 0, nullptr), ARGUS_OK);
      } else {
        packedBuffer.resize(bytes + 64);
        void *at = packedBuffer.data() + (64 - reinterpret_cast<uintptr_t>(packedBuffer.data()) % 64) % 64;
        ASSERT_EQ(pack(&d, at, bytes, nullptr), ARGUS_OK) << lastError();
        packed = at;
      }
    }

    argus_gemm_args args;
    std::memset(&args, 0, sizeof args);
    args.struct_size = sizeof args;
    args.m = g.m, args.n = g.n, args.k = g.k;
    args.a_type = args.b_type = g.ab, args.c_type = g.c;
    args.a = a.bytes.data(), args.lda = lda;
    args.b = packed ? nullptr : b.bytes.data(), args.ldb = ldb;
    args.c = c.bytes.data(), args.ldc = ldc;
    args.bias = g.bias ? bias.bytes.data() : nullptr;
    args.alpha = g.alpha, args.beta = g.beta;
    args.b_packed = packed;
    ASSERT_EQ(gemm(&args, nullptr), ARGUS_OK) << lastError();

    // The result within the rounding of its dtypes: f32 accumulation (k
    // terms) and one rounding into c, both relative to the sum of |terms|.
    const double tol = roundoff(g.c) + 2.0 * double(g.k + 2) * 0x1p-24;
    int64_t bad = 0, touched = 0;
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < ldc; ++j) {
        const int64_t at = i * ldc + j;
        if (j >= g.n) { /* padding: the same bits */
          const size_t width = Tensor::bytesPer(g.c);
          touched += std::memcmp(&c.bytes[at * width], &original.bytes[at * width], width) != 0;
          continue;
        }
        double sum = 0, magnitude = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          const double term = a.values[i * lda + p] * b.values[j * ldb + p];
          sum += term, magnitude += std::fabs(term);
        }
        double want = double(g.alpha) * sum, scale = std::fabs(double(g.alpha)) * magnitude;
        if (g.beta != 0.0f) {
          const double old = original.get(at);
          want += double(g.beta) * old, scale += std::fabs(double(g.beta) * old);
        }
        if (g.bias) want += bias.values[j], scale += std::fabs(bias.values[j]);
        const double got = c.get(at);
        if (!(std::fabs(got - want) <= tol * scale + 1e-30) && bad++ < 3)
          ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", expected " << want << " (tolerance "
                        << tol * scale << ")";
      }
    EXPECT_EQ(bad, 0) << "wrong elements of " << g.m * g.n;
    EXPECT_EQ(touched, 0) << "padding elements written";
    EXPECT_TRUE(c.guardIntact(g.m * ldc)) << "written past C";
  }

  const GeneratedLibrary &lib = GeneratedLibrary::get();
  decltype(argus_gemm) *gemm = nullptr;
  decltype(argus_pack_weights) *pack = nullptr;
  decltype(argus_packed_weights_size) *packedSize = nullptr;
  decltype(argus_last_error) *lastError = nullptr;
};

TEST_F(GemmRandom, MatchesFloat64) {
  std::mt19937_64 rng(20261129);
  for (int i = 0; i < 240 && !HasFatalFailure(); ++i) check(draw(rng), rng);
}

// Row counts whose last 64-column tile of the transposed form is partial
// (26-97 rows of A, bf16 from 32: its panel windows compute 16-column halves
// past the last row), each dtype pair that takes that form, against float64.
TEST_F(GemmRandom, TransposedFormWithPartialColumnTiles) {
  std::mt19937_64 rng(20261201);
  const std::pair<argus_dtype, argus_dtype> types[] = {
      {ARGUS_DTYPE_F32, ARGUS_DTYPE_F32}, {ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16}, {ARGUS_DTYPE_BF16, ARGUS_DTYPE_F32}};
  for (const auto &t : types)
    for (const int64_t m : {26, 32, 33, 40, 97}) {
      check({t.first, t.second, m, 300, 131, 0, 3, 5, 1.0f, 0.0f, true, false}, rng);
      check({t.first, t.second, m, 272, 256, 2, 0, 0, -0.5f, 0.5f, false, false}, rng);
    }
}

// argus_pack_weights writes the panel layout of argus_cpu_abi.h element for
// element: 16 x 16 register transposes where rows are 32-bit words (f32, bf16
// of an even k and row stride), element copies elsewhere; zeros past n and,
// for bf16, past an odd k. Batches of two, the second matrix a stride away.
TEST_F(GemmRandom, PackedLayoutMatchesTheAbi) {
  std::mt19937_64 rng(7);
  struct Shape {
    argus_dtype dtype;
    int64_t n, k, ldw;
  };
  const Shape shapes[] = {{ARGUS_DTYPE_BF16, 70, 100, 100}, {ARGUS_DTYPE_BF16, 64, 96, 101},
                          {ARGUS_DTYPE_BF16, 33, 37, 40},   {ARGUS_DTYPE_F32, 70, 100, 103},
                          {ARGUS_DTYPE_F32, 64, 48, 48},    {ARGUS_DTYPE_F32, 5, 7, 7}};
  for (const Shape &s : shapes) {
    SCOPED_TRACE(std::string(name(s.dtype)) + " " + std::to_string(s.n) + "x" + std::to_string(s.k) + " ldw " +
                 std::to_string(s.ldw));
    const int64_t batchStride = s.n * s.ldw + 3;
    Tensor w(s.dtype, 2 * batchStride, rng, 1.0);
    argus_weights_desc d{sizeof d, 2, s.n, s.k, s.dtype, w.bytes.data(), s.ldw, batchStride};
    const size_t bytes = packedSize(&d);
    if (bytes == 0) GTEST_SKIP() << "this library's kernels read no panels";
    std::vector<uint8_t> buffer(bytes + 64, 0xee);
    uint8_t *at = buffer.data() + (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64;
    ASSERT_EQ(pack(&d, at, bytes, nullptr), ARGUS_OK) << lastError();
    const int64_t width = Tensor::bytesPer(s.dtype), panel = argus_cpu_panel_elements(s.k, width);
    const int64_t panels = (s.n + ARGUS_CPU_PANEL_ROWS - 1) / ARGUS_CPU_PANEL_ROWS, perMatrix = panels * panel;
    ASSERT_EQ(int64_t(bytes), 64 + 2 * perMatrix * width); /* a 64-byte header, then the panels */
    std::vector<char> expected(size_t(2 * perMatrix * width), 0);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t r = 0; r < s.n; ++r)
        for (int64_t c = 0; c < s.k; ++c)
          std::memcpy(&expected[size_t((b * perMatrix + argus_cpu_panel_offset(r, c, panel, width)) * width)],
                      &w.bytes[size_t((b * batchStride + r * s.ldw + c) * width)], size_t(width));
    EXPECT_EQ(std::memcmp(at + 64, expected.data(), expected.size()), 0);
  }
}

} // namespace
