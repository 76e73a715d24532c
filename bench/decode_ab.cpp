//===- decode_ab.cpp - one paged decode through two Argus libraries, alternating -===//
//
// An A/B probe (AbProbe.h) for decode attention: Llama-3-8B's heads (32
// query heads, 8 KV heads, head_dim 128, bf16), pages of 16 tokens scattered
// over the pool, every sequence `CONTEXT` tokens long. It reports each
// library's median GB/s of keys and values read and the median of the
// per-iteration ratios B / A. Both outputs must agree within 1e-2 of the
// largest (bf16 outputs; the libraries may sum in different orders).
//
//   argus_decode_ab LIB_A LIB_B BATCH CONTEXT [ITERATIONS=21]
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
#include <numeric>
#include <random>

namespace {

using DecodeFn = argus_status (*)(const argus_attention_decode_args *, void *);

constexpr int64_t kHeads = 32, kKvHeads = 8, kDim = 128, kPage = 16;

} // namespace

int main(int argc, char **argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: argus_decode_ab LIB_A LIB_B BATCH CONTEXT [ITERATIONS=21]\n");
    return 2;
  }
  const int64_t batch = std::atoll(argv[3]), context = std::atoll(argv[4]);
  const int iterations = argc > 5 ? std::max(1, std::atoi(argv[5])) : 21;
  if (batch < 1 || context < 1) {
    std::fprintf(stderr, "argus_decode_ab: BATCH and CONTEXT must be positive\n");
    return 2;
  }
  using argus::bench::loadAbSymbol;
  const DecodeFn decode[2] = {loadAbSymbol<DecodeFn>("argus_decode_ab", argv[1], "argus_attention_decode"),
                              loadAbSymbol<DecodeFn>("argus_decode_ab", argv[2], "argus_attention_decode")};

  const int64_t maxPages = (context + kPage - 1) / kPage, slots = batch * maxPages * kPage;
  std::mt19937 rng(1);
  const argus::bench::PageAlignedVector<uint16_t> q = argus::bench::randomBf16(size_t(batch * kHeads * kDim), rng);
  const argus::bench::PageAlignedVector<uint16_t> kc = argus::bench::randomBf16(size_t(slots * kKvHeads * kDim), rng);
  const argus::bench::PageAlignedVector<uint16_t> vc = argus::bench::randomBf16(size_t(slots * kKvHeads * kDim), rng);
  std::vector<int32_t> table(size_t(batch * maxPages));
  const std::vector<int32_t> lens(static_cast<size_t>(batch), static_cast<int32_t>(context));
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng); // pages scattered over the pool
  std::vector<uint16_t> out[2] = {std::vector<uint16_t>(q.size()), std::vector<uint16_t>(q.size())};

  auto run = [&](int which) {
    argus_attention_decode_args a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.batch = batch, a.num_heads = kHeads, a.num_kv_heads = kKvHeads, a.head_dim = kDim;
    a.page_size = kPage, a.max_pages_per_seq = maxPages, a.dtype = ARGUS_DTYPE_BF16;
    a.q = q.data(), a.k_cache = kc.data(), a.v_cache = vc.data(), a.o = out[which].data();
    a.block_table = table.data(), a.seqlens_kv = lens.data(), a.scale = 1.0f / std::sqrt(float(kDim));
    if (decode[which](&a, nullptr) != ARGUS_OK) {
      std::fprintf(stderr, "argus_decode_ab: library %c failed\n", which ? 'B' : 'A');
      std::exit(1);
    }
  };

  run(0), run(1);
  const double diff = argus::bench::checkAgreement("argus_decode_ab", q.size(), 1e-2, [&](int which, size_t i) {
    return double(argus_num::bf16_to_f32(out[which][i]));
  });

  const argus::bench::AbTimes times = argus::bench::alternate(iterations, run);
  using argus::bench::medianOf;
  const double gigabytes = 2.0 * double(batch * context * kKvHeads * kDim) * 2 / 1e9;
  std::printf("decode B=%lld context=%lld: A %.1f GB/s, B %.1f GB/s, median B/A %.3f (%d iterations, max |A - B| %g)\n",
              static_cast<long long>(batch), static_cast<long long>(context), gigabytes / medianOf(times.seconds[0]),
              gigabytes / medianOf(times.seconds[1]), medianOf(times.ratio), iterations, diff);
  return 0;
}
