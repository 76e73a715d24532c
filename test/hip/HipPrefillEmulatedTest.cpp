// The CDNA prefill attention kernel (dist/runtime/hip/argus_hip_prefill_kernel.h), its own source
// run by the wave emulator, against the float64 reference (prefill_problem.h): varlen batches with
// empty, short and multi-block sequences, more keys than queries and fewer, causal (bottom-right)
// and not, GQA groups of 1 and 4, head dims 64, 128 and 192/128; bf16 and f16.
#include "emulated_kernels.h"
#include "prefill_problem.h"

#include "argus_hip_attention_params.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace argus::hip;

namespace {

void check(const argus::gpu::test::PrefillProblem &p, unsigned seed) {
  std::mt19937 rng(seed);
  argus::gpu::test::PrefillData data(p, rng);
  PrefillParams params{data.q.data(),           data.k.data(),       data.v.data(),  data.o.data(),
                       data.cuSeqlensQ.data(),  data.cuSeqlensKv.data(), p.heads,   p.kvHeads,
                       p.headDim,               p.valueDim,          p.causal ? 1 : 0,
                       p.effectiveScale() * float(M_LOG2E)};
  void *arguments[] = {&params};
  ASSERT_TRUE(test::emulateKernel(p.f16 ? "argus_hip_prefill_f16" : "argus_hip_prefill", (p.maxSeqQ() + kPrefillRows - 1) / kPrefillRows, p.heads,
                                  p.batch(), arguments));
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "");
}

TEST(HipPrefillEmulated, CausalVarlenGroupedHeads) {
  check({4, 1, 128, 128, true, {{130, 130}, {0, 0}, {5, 77}, {70, 20}}, 0.0f}, 1);
}

TEST(HipPrefillEmulated, NotCausalSmallHeads) {
  check({2, 2, 64, 64, false, {{33, 200}, {129, 65}}, 0.2f}, 2);
}

TEST(HipPrefillEmulated, HalfPrecision) {
  argus::gpu::test::PrefillProblem p{4, 1, 128, 128, true, {{130, 130}, {0, 0}, {5, 77}, {70, 20}}, 0.0f};
  p.f16 = true;
  check(p, 4);
}

TEST(HipPrefillEmulated, LatentAttentionWidths) {
  check({2, 2, 192, 128, true, {{40, 100}}, 0.0f}, 3);
}

} // namespace
