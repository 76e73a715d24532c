// The GPU backend's own output, compiled for the host and run by the target's emulator (the CDNA
// wave emulator, or the CUDA one) against float64 references on fresh random bf16 data. Each
// binary holds one target's kernels, ARGUS_GENERATED_<KIND> of each kind (test/emulation/
// CMakeLists.txt counts them):
//   - GEMM kernels emitted from templates/gemm/gemm_tn_cdna.argus, one per kernel shape: ragged
//     m, n and k, padded pitches, alpha, beta and bias, C poisoned with NaN when beta is 0 (it must
//     not be read, every element must be written), row padding and a guard row checked untouched;
//   - MoE gate/up kernels (on CUDA: moe_gate_up_sm90_mma.argus, the shipped kernel's schedule,
//     and moe_gate_up_sm90.argus): the same checks of H (a hip library's grouped expert kernels
//     run in the whole MoE pipeline instead, test/hip/hip_library_client.cpp);
//   - prefill attention kernels emitted from templates/attention/attention_prefill_cdna.argus
//     (row max and sum across lanes, P and the row statistics converted between mma layouts
//     through shared memory, V read transposed): varlen batches, causal (bottom-right) and not,
//     more keys than queries and fewer, an empty sequence, GQA; O poisoned with NaN and a guard
//     run after it;
//   - paged decode kernels emitted from templates/attention/attention_decode_cdna.argus (GQA
//     groups of 4, 8, 2 and 1 on 16-row mma blocks padded from their query rows; pages of 16, 1
//     and 64 tokens scattered over the cache; empty and long sequences, and sequences longer than
//     their block table row (clamped) or negative (empty); the four threads' partial softmaxes
//     merged through shared memory; bf16 and f16).
#include "generated_kernels.h"

#include "argus_numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <vector>

using namespace argus::gpu::test;

namespace {

TEST(GeneratedKernels, EveryTemplateInstanceIsLinkedIn) {
  // One per argus_emit_generated call: a case file whose registration was dropped would pass silently.
  EXPECT_EQ(generated<GeneratedGemm>().size(), size_t(ARGUS_GENERATED_GEMMS));
  EXPECT_EQ(generated<GeneratedGateUp>().size(), size_t(ARGUS_GENERATED_GATE_UPS));
  EXPECT_EQ(generated<GeneratedPrefill>().size(), size_t(ARGUS_GENERATED_PREFILLS));
  EXPECT_EQ(generated<GeneratedDecode>().size(), size_t(ARGUS_GENERATED_DECODES));
}

#if ARGUS_GENERATED_GEMMS
TEST(GeneratedGemm, MatchesFloat64OnRaggedShapes) {
  ASSERT_FALSE(generated<GeneratedGemm>().empty());
  for (const GeneratedGemm &kernel : generated<GeneratedGemm>()) {
    std::mt19937 rng(4321u + unsigned(kernel.bm * 7 + kernel.bn));
    const GemmProblem problems[] = {
        {kernel.bm + 5, kernel.bn + 3, 136, 1.0f, 0.0f, false, kernel.f16, kernel.fp8},
        {2 * kernel.bm - 7, kernel.bn + 9, 77, -0.5f, 0.75f, true, kernel.f16, kernel.fp8},
        {1, 1, 1, 2.0f, 0.0f, true, kernel.f16, kernel.fp8},
        {kernel.bm + 1, 3, 0, 1.0f, -1.0f, true, kernel.f16, kernel.fp8},  // k = 0: C = beta·C + bias
    };
    for (const GemmProblem &p : problems) {
      GemmData data(p, rng);
      kernel.run(p, data);
      EXPECT_EQ(compareWithFloat64(p, data), "") << kernel.symbol << " on " << p.describe();
    }
  }
}

#endif

#if ARGUS_GENERATED_GATE_UPS
// Fills an r x c matrix of pitch ld with bf16 values in [-1, 1), its padding with a sentinel.
std::vector<uint16_t> randomMatrix(int rows, int cols, int64_t ld, std::mt19937 &rng) {
  std::vector<uint16_t> m = randomBf16(size_t(rows) * size_t(ld), rng);
  for (int r = 0; r < rows; ++r)
    for (int64_t c = cols; c < ld; ++c)
      m[size_t(r * ld + c)] = 0x7fc1; // a NaN no kernel should read
  return m;
}

// "" when every H element is within |err| <= 2^-8 |h| + 2^-14 (1 + sum|x wg|)(1 + sum|x wu|) of the
// float64 result (bf16 output rounding; f32 accumulation), and padding and guard row are untouched.
std::string compareGateUp(const GateUpProblem &p, const GateUpData &d) {
  std::ostringstream bad;
  int shown = 0;
  auto value = [](uint16_t b) { return double(argus_num::bf16_to_f32(b)); };
  for (int i = 0; i <= p.m; ++i)
    for (int64_t j = 0; j < p.ldh; ++j) {
      const uint16_t got = d.h[size_t(i * p.ldh + j)];
      if (i == p.m || j >= p.n) {
        if (got != 0xffff && shown++ < 5)
          bad << "H[" << i << "][" << j << "] outside the output was written\n";
        continue;
      }
      double g = 0, u = 0, ga = 0, ua = 0;
      for (int k = 0; k < p.k; ++k) {
        const double x = value(d.x[size_t(i * p.ldx + k)]);
        g += x * value(d.wg[size_t(j * p.ldw + k)]);
        u += x * value(d.wu[size_t(j * p.ldw + k)]);
        ga += std::fabs(x * value(d.wg[size_t(j * p.ldw + k)]));
        ua += std::fabs(x * value(d.wu[size_t(j * p.ldw + k)]));
      }
      const double want = g / (1 + std::exp(-g)) * u;
      const double have = value(got);
      if (!(std::fabs(have - want) <= std::ldexp(std::fabs(want), -8) + std::ldexp((1 + ga) * (1 + ua), -14)) &&
          shown++ < 5)
        bad << "H[" << i << "][" << j << "] = " << have << ", want " << want << "\n";
    }
  return bad.str();
}

TEST(GeneratedGateUp, MatchesFloat64OnRaggedShapes) {
  std::mt19937 rng(2024);
  // 16-byte aligned pitches (vector loads), then odd ones (element loads); ragged m, n, k.
  const GateUpProblem problems[] = {{37, 96, 136, 144, 136, 104}, {1, 40, 64, 67, 65, 41}, {70, 130, 72, 75, 77, 133}};
  for (const GeneratedGateUp &kernel : generated<GeneratedGateUp>())
    for (const GateUpProblem &p : problems) {
      GateUpData d{randomMatrix(p.m, p.k, p.ldx, rng), randomMatrix(p.n, p.k, p.ldw, rng),
                   randomMatrix(p.n, p.k, p.ldw, rng), std::vector<uint16_t>(size_t((p.m + 1) * p.ldh), 0xffff)};
      kernel.run(p, d);
      EXPECT_EQ(compareGateUp(p, d), "") << kernel.symbol << " m=" << p.m << " n=" << p.n << " k=" << p.k;
    }
}
#endif

#if ARGUS_GENERATED_PREFILLS
TEST(GeneratedPrefill, MatchesFloat64OnVarlenBatches) {
  std::mt19937 rng(11);
  for (const GeneratedPrefill &kernel : generated<GeneratedPrefill>()) {
    const int heads = 2 * kernel.group;
    const PrefillProblem problems[] = {
        {heads, 2, kernel.headDim, kernel.valueDim, true, {{130, 130}, {0, 0}, {5, 77}, {70, 20}}, 0.0f},
        {heads, 2, kernel.headDim, kernel.valueDim, false, {{33, 200}, {129, 65}}, 0.2f}};
    for (PrefillProblem p : problems) {
      p.f16 = kernel.f16;
      PrefillData data(p, rng);
      kernel.run(p, data);
      EXPECT_EQ(compareWithFloat64(p, data), "") << kernel.symbol << " " << p.describe();
    }
  }
}

#endif

#if ARGUS_GENERATED_DECODES
enum class CacheTails { Random, Junk };

// Every generated decode kernel, 2 KV heads of its group, over scattered pages of `seqlens`,
// against float64. The template rounds the softmax weights to its element type before P·V
// (cast(e, T)).
void checkEveryDecodeKernel(std::vector<int> seqlens, float scale, CacheTails tails, unsigned seed) {
  std::mt19937 rng(seed);
  for (const GeneratedDecode &kernel : generated<GeneratedDecode>()) {
    const int kvHeads = 2, heads = kernel.group * kvHeads;
    DecodeProblem p{heads, kvHeads, kernel.headDim, kernel.valueDim, kernel.pageSize, seqlens, scale};
    p.f16 = kernel.f16;
    DecodeData data(p, rng);
    if (tails == CacheTails::Junk)
      fillPastContexts(p, data);
    kernel.run(p, data);
    EXPECT_EQ(compareWithFloat64(p, data, DecodeWeights::Bf16), "") << kernel.symbol << " " << p.describe();
  }
}

TEST(GeneratedDecode, MatchesFloat64OverScatteredPages) {
  checkEveryDecodeKernel({0, 1, 77, 300}, 0.3f, CacheTails::Random, 12);
}

// Slots past the contexts (the rest of each last page, pages out of use) may hold NaN and
// infinities, as an engine's cache may: a masked weight of 0 times NaN is NaN, so the kernel must
// not let those values into its products.
TEST(GeneratedDecode, JunkPastTheContextsIsNeverRead) {
  checkEveryDecodeKernel({1, 77, 0, 300}, 0.0f, CacheTails::Junk, 13);
}

// seqlens beyond what the block table addresses are clamped to it (as the CPU runtime does),
// negative ones read nothing: no read past a sequence's table row.
TEST(GeneratedDecode, SeqlensBeyondTheBlockTableAreClamped) {
  std::mt19937 rng(9);
  for (const GeneratedDecode &kernel : generated<GeneratedDecode>()) {
    DecodeProblem p{kernel.group * 2, 2, kernel.headDim, kernel.valueDim, kernel.pageSize, {40, 3}, 0.0f};
    p.f16 = kernel.f16;
    ClampedSeqlens c = clampedSeqlens(p, rng);
    kernel.run(p, c.expected);
    kernel.run(p, c.data);
    EXPECT_EQ(c.data.o, c.expected.o) << kernel.symbol;
  }
}

#endif

} // namespace
