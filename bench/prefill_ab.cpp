//===- prefill_ab.cpp - one prefill attention through two Argus libraries, alternating -===//
//
// An A/B probe (AbProbe.h) for prefill attention: Llama-3-8B's heads (32
// query heads, 8 KV heads, head_dim 128), BATCH sequences of SEQLEN tokens
// each (queries and keys alike), causal or not, bf16 or f32. It reports each
// library's median GFLOP/s (the causal triangle counted as half the square)
// and the median of the per-iteration ratios B / A. Both outputs must agree
// within 1e-2 of the largest (bf16: the libraries may sum in different orders).
//
//   argus_prefill_ab LIB_A LIB_B BATCH SEQLEN CAUSAL [ITERATIONS=21] [bf16|f32]
//
// Threads: ARGUS_NUM_THREADS, read by both libraries.
//
//===----------------------------------------------------------------------===//

#include "argus_kernels.h"
#include "argus_numerics.h"

#include "AbProbe.h"
#include "PageAligned.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

namespace {

using PrefillFn = argus_status (*)(const argus_attention_prefill_args *, void *);

constexpr int64_t kHeads = 32, kKvHeads = 8, kDim = 128;

} // namespace

int main(int argc, char **argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: argus_prefill_ab LIB_A LIB_B BATCH SEQLEN CAUSAL [ITERATIONS=21] [bf16|f32]\n");
    return 2;
  }
  const int64_t batch = std::atoll(argv[3]), seqlen = std::atoll(argv[4]);
  const int causal = std::atoi(argv[5]) != 0;
  const int iterations = argc > 6 ? std::max(1, std::atoi(argv[6])) : 21;
  const char *type = argc > 7 ? argv[7] : "bf16";
  const bool f32 = std::strcmp(type, "f32") == 0;
  if (!f32 && std::strcmp(type, "bf16") != 0) {
    std::fprintf(stderr, "argus_prefill_ab: the type is bf16 or f32, not '%s'\n", type);
    return 2;
  }
  if (batch < 1 || seqlen < 1) {
    std::fprintf(stderr, "argus_prefill_ab: BATCH and SEQLEN must be positive\n");
    return 2;
  }
  using argus::bench::loadAbSymbol;
  const PrefillFn prefill[2] = {loadAbSymbol<PrefillFn>("argus_prefill_ab", argv[1], "argus_attention_prefill"),
                                loadAbSymbol<PrefillFn>("argus_prefill_ab", argv[2], "argus_attention_prefill")};

  // bf16 values; the f32 operands hold the same values widened.
  const int64_t tokens = batch * seqlen;
  std::mt19937 rng(1);
  const argus::bench::PageAlignedVector<uint16_t> q16 = argus::bench::randomBf16(size_t(tokens * kHeads * kDim), rng);
  const argus::bench::PageAlignedVector<uint16_t> k16 = argus::bench::randomBf16(size_t(tokens * kKvHeads * kDim), rng);
  const argus::bench::PageAlignedVector<uint16_t> v16 = argus::bench::randomBf16(size_t(tokens * kKvHeads * kDim), rng);
  auto widen = [](const argus::bench::PageAlignedVector<uint16_t> &in) {
    argus::bench::PageAlignedVector<float> out(in.size());
    for (size_t i = 0; i < in.size(); ++i) out[i] = argus_num::bf16_to_f32(in[i]);
    return out;
  };
  const argus::bench::PageAlignedVector<float> q32 = f32 ? widen(q16) : argus::bench::PageAlignedVector<float>();
  const argus::bench::PageAlignedVector<float> k32 = f32 ? widen(k16) : argus::bench::PageAlignedVector<float>();
  const argus::bench::PageAlignedVector<float> v32 = f32 ? widen(v16) : argus::bench::PageAlignedVector<float>();
  std::vector<int32_t> cu(size_t(batch + 1));
  for (int64_t b = 0; b <= batch; ++b) cu[size_t(b)] = int32_t(b * seqlen);
  const size_t outputs = size_t(tokens * kHeads * kDim);
  std::vector<uint16_t> out16[2] = {std::vector<uint16_t>(f32 ? 0 : outputs), std::vector<uint16_t>(f32 ? 0 : outputs)};
  std::vector<float> out32[2] = {std::vector<float>(f32 ? outputs : 0), std::vector<float>(f32 ? outputs : 0)};

  auto run = [&](int which) {
    argus_attention_prefill_args a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.batch = batch, a.num_heads = kHeads, a.num_kv_heads = kKvHeads, a.head_dim = kDim;
    a.max_seqlen_q = a.max_seqlen_kv = seqlen, a.dtype = f32 ? ARGUS_DTYPE_F32 : ARGUS_DTYPE_BF16;
    a.q = f32 ? static_cast<const void *>(q32.data()) : q16.data();
    a.k = f32 ? static_cast<const void *>(k32.data()) : k16.data();
    a.v = f32 ? static_cast<const void *>(v32.data()) : v16.data();
    a.o = f32 ? static_cast<void *>(out32[which].data()) : out16[which].data();
    a.cu_seqlens_q = a.cu_seqlens_kv = cu.data(), a.causal = causal;
    a.total_q = a.total_kv = tokens;
    if (prefill[which](&a, nullptr) != ARGUS_OK) {
      std::fprintf(stderr, "argus_prefill_ab: library %c failed\n", which ? 'B' : 'A');
      std::exit(1);
    }
  };

  run(0), run(1);
  const double diff = argus::bench::checkAgreement("argus_prefill_ab", outputs, 1e-2, [&](int which, size_t i) {
    return double(f32 ? out32[which][i] : argus_num::bf16_to_f32(out16[which][i]));
  });

  const argus::bench::AbTimes times = argus::bench::alternate(iterations, run);
  using argus::bench::medianOf;
  const double gflop = (causal ? 0.5 : 1.0) * 4.0 * double(batch) * double(seqlen) * double(seqlen) * kHeads * kDim / 1e9;
  std::printf("prefill %s B=%lld seqlen=%lld causal=%d: A %.1f GFLOP/s, B %.1f GFLOP/s, median B/A %.3f "
              "(%d iterations, max |A - B| %g)\n",
              type, static_cast<long long>(batch), static_cast<long long>(seqlen), causal,
              gflop / medianOf(times.seconds[0]), gflop / medianOf(times.seconds[1]), medianOf(times.ratio),
              iterations, diff);
  return 0;
}
