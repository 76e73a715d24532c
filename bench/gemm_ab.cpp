//===- gemm_ab.cpp - one GEMM through two Argus libraries, calls alternating -===//
//
// An A/B probe (AbProbe.h): both libraries in one process, calls alternating
// on the same operands; it reports each one's median GFLOP/s and the median
// of the per-iteration ratios B / A. Both results must agree within 1e-3
// (relative to the largest output). It is not a peer benchmark
// (argus_gemm_bench is).
//
//   argus_gemm_ab LIB_A LIB_B M N K [ITERATIONS=21] [bias 0|1] [f32|bf16|bf16-bf16] [plain|packed|plain-packed]
//                 [warm|cold]
//
// Types: f32, bf16 (C f32: the generic kernels), or bf16-bf16 (C bf16: the
// kernels of a bf16 catalog such as shapes/llama3-8b.yaml). Weights: plain,
// packed once by each library (argus_pack_weights, b_packed), or
// plain-packed: A plain, B packed (LIB_A may be LIB_B). Weights warm: one
// copy, which the cache keeps between calls where it fits (the last level
// holds llama3-8b's 32 MiB layers here); cold: calls rotate through copies
// that together hold twice the last-level cache, so each reads its weights
// from memory as argus_gemm_bench's do.
//
// Threads: ARGUS_NUM_THREADS, read by both libraries.
//
//===----------------------------------------------------------------------===//

#include "argus_kernels.h"
#include "argus_numerics.h"

#include "AbProbe.h"
#include "PageAligned.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

namespace {

using GemmFn = argus_status (*)(const argus_gemm_args *, void *);

} // namespace

int main(int argc, char **argv) {
  if (argc < 6) {
    std::fprintf(stderr,
                 "usage: argus_gemm_ab LIB_A LIB_B M N K [ITERATIONS=21] [bias 0|1] [f32|bf16|bf16-bf16] "
                 "[plain|packed|plain-packed] [warm|cold]\n");
    return 2;
  }
  const int64_t m = std::atoll(argv[3]), n = std::atoll(argv[4]), k = std::atoll(argv[5]);
  const int iterations = argc > 6 ? std::max(1, std::atoi(argv[6])) : 21;
  const bool withBias = argc > 7 && std::atoi(argv[7]) != 0;
  const char *types = argc > 8 ? argv[8] : "f32";
  const bool bf16Out = std::strcmp(types, "bf16-bf16") == 0, bf16 = bf16Out || std::strcmp(types, "bf16") == 0;
  if (!bf16 && std::strcmp(types, "f32") != 0) {
    std::fprintf(stderr, "argus_gemm_ab: types are f32, bf16 or bf16-bf16, not '%s'\n", types);
    return 2;
  }
  const char *form = argc > 9 ? argv[9] : "plain";
  const bool packed = std::strcmp(form, "packed") == 0, mixed = std::strcmp(form, "plain-packed") == 0;
  if (!packed && !mixed && std::strcmp(form, "plain") != 0) {
    std::fprintf(stderr, "argus_gemm_ab: weights are plain, packed or plain-packed, not '%s'\n", form);
    return 2;
  }
  const char *residence = argc > 10 ? argv[10] : "warm";
  const bool cold = std::strcmp(residence, "cold") == 0;
  if (!cold && std::strcmp(residence, "warm") != 0) {
    std::fprintf(stderr, "argus_gemm_ab: weights are warm or cold, not '%s'\n", residence);
    return 2;
  }
  if (m < 1 || n < 1 || k < 1) {
    std::fprintf(stderr, "argus_gemm_ab: M, N and K must be positive\n");
    return 2;
  }
  using argus::bench::loadAbSymbol;
  const GemmFn gemm[2] = {loadAbSymbol<GemmFn>("argus_gemm_ab", argv[1], "argus_gemm"),
                          loadAbSymbol<GemmFn>("argus_gemm_ab", argv[2], "argus_gemm")};

  // Operands in ±[0.125, 1), stored in the input type; the bias in C's type.
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> magnitude(0.125f, 1.0f);
  auto fill = [&](argus::bench::PageAlignedVector<uint16_t> &half, argus::bench::PageAlignedVector<float> &full,
                  size_t count) {
    half.resize(count), full.resize(count);
    for (size_t i = 0; i < count; ++i) {
      const float v = (rng() & 1 ? 1.0f : -1.0f) * magnitude(rng);
      half[i] = argus_num::f32_to_bf16(v);
      full[i] = bf16 ? argus_num::bf16_to_f32(half[i]) : v;
    }
  };
  argus::bench::PageAlignedVector<uint16_t> a16, b16, bias16; // on pages, as an engine's tensors (PageAligned.h)
  argus::bench::PageAlignedVector<float> a32, b32, bias;
  fill(a16, a32, size_t(m * k));
  fill(b16, b32, size_t(n * k));
  fill(bias16, bias, size_t(n));
  // Identical copies of the weights (cold), the first one b16 / b32 itself.
  const size_t weights = size_t(n * k);
  const int64_t copies = cold ? argus::bench::copiesBeyondCache(double(weights) * (bf16 ? 2 : 4)) : 1;
  if (bf16) {
    b16.resize(weights * size_t(copies));
    for (int64_t c = 1; c < copies; ++c) std::copy_n(b16.begin(), weights, b16.begin() + c * weights);
  } else {
    b32.resize(weights * size_t(copies));
    for (int64_t c = 1; c < copies; ++c) std::copy_n(b32.begin(), weights, b32.begin() + c * weights);
  }
  using PackedWeights = std::unique_ptr<void, void (*)(void *)>;
  std::vector<PackedWeights> bPacked[2];
  // Each copy packed by both libraries in turn: all of A's copies first put
  // A's on memory that streamed slower on a Zen 5 VM (the same library as
  // A and B, pre-packed, cold: M = 1 0.69x, M = 128 0.91x; interleaved 1.00x).
  for (int64_t c = 0; c < copies; ++c)
    for (int which = mixed ? 1 : 0; (packed || mixed) && which < 2; ++which) {
      const argus_weights_desc d{sizeof d, 1, n, k, bf16 ? ARGUS_DTYPE_BF16 : ARGUS_DTYPE_F32,
                                 bf16 ? static_cast<const void *>(b16.data() + c * weights) : b32.data() + c * weights,
                                 k, 0};
      bPacked[which].push_back(argus::bench::packWithLibrary("argus_gemm_ab", argv[1 + which], d));
    }
  std::vector<float> out[2] = {std::vector<float>(size_t(m * n)), std::vector<float>(size_t(m * n))};
  std::vector<uint16_t> out16[2] = {std::vector<uint16_t>(size_t(m * n)), std::vector<uint16_t>(size_t(m * n))};

  int64_t calls = 0;
  auto run = [&](int which) {
    const int64_t copy = calls++ % copies;
    argus_gemm_args g;
    std::memset(&g, 0, sizeof g);
    g.struct_size = sizeof g;
    g.m = m, g.n = n, g.k = k;
    g.a_type = g.b_type = bf16 ? ARGUS_DTYPE_BF16 : ARGUS_DTYPE_F32;
    g.c_type = bf16Out ? ARGUS_DTYPE_BF16 : ARGUS_DTYPE_F32;
    g.a = bf16 ? static_cast<const void *>(a16.data()) : a32.data(), g.lda = k;
    g.b = bf16 ? static_cast<const void *>(b16.data() + copy * weights) : b32.data() + copy * weights, g.ldb = k;
    g.c = bf16Out ? static_cast<void *>(out16[which].data()) : out[which].data(), g.ldc = n;
    g.bias = !withBias ? nullptr : bf16Out ? static_cast<const void *>(bias16.data()) : bias.data();
    g.alpha = 1.0f, g.beta = 0.0f;
    g.b_packed = bPacked[which].empty() ? nullptr : bPacked[which][size_t(copy)].get();
    if (gemm[which](&g, nullptr) != ARGUS_OK) {
      std::fprintf(stderr, "argus_gemm_ab: library %c failed\n", which ? 'B' : 'A');
      std::exit(1);
    }
  };

  run(0), run(1);
  if (bf16Out)
    for (int which = 0; which < 2; ++which)
      for (size_t i = 0; i < out[which].size(); ++i) out[which][i] = argus_num::bf16_to_f32(out16[which][i]);
  /* two summation orders may round a bf16 output to neighbours: one ulp of the largest */
  const double diff = argus::bench::checkAgreement("argus_gemm_ab", out[0].size(), bf16Out ? 1.0 / 128 : 1e-3,
                                                   [&](int which, size_t i) { return double(out[which][i]); });

  const argus::bench::AbTimes times = argus::bench::alternate(iterations, run);
  using argus::bench::medianOf;
  const double gflop = 2.0 * double(m) * double(n) * double(k) / 1e9;
  std::printf("%s %s %s M=%lld N=%lld K=%lld bias=%d: A %.1f GFLOP/s, B %.1f GFLOP/s, median B/A %.3f "
              "(%d iterations, max |A - B| %g)\n",
              types, form, residence, static_cast<long long>(m), static_cast<long long>(n),
              static_cast<long long>(k), withBias ? 1 : 0, gflop / medianOf(times.seconds[0]), gflop / medianOf(times.seconds[1]),
              medianOf(times.ratio), iterations, diff);
  return 0;
}
