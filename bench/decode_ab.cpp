//===- decode_ab.cpp - one paged decode through two Argus libraries, alternating -===//
//
// An A/B probe (AbProbe.h) for decode attention: Llama-3-8B's heads (32
// query heads, 8 KV heads unless KV_HEADS says otherwise: 32 for a model
// without GQA, head_dim 128, bf16), pages of 16 tokens scattered
// over the pool, every sequence `CONTEXT` tokens long. It reports each
// library's median GB/s of keys and values read and the median of the
// per-iteration ratios B / A. Both outputs must agree within 1e-2 of the
// largest (bf16 outputs; the libraries may sum in different orders).
// `cold` (the default) keeps identical pools that together hold twice the
// last-level cache and gives each call the next one, so pages come from
// memory as in argus_attention_bench (a lone pool of 1 x 4096 tokens, 16 MB,
// sits in a 32 MiB L3, where decode runs 1.5-2x faster); `warm` reuses one.
//
//   argus_decode_ab LIB_A LIB_B BATCH CONTEXT [ITERATIONS=21] [cold|warm] [KV_HEADS=8]
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
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using DecodeFn = argus_status (*)(const argus_attention_decode_args *, void *);

constexpr int64_t kHeads = 32, kDim = 128, kPage = 16;

} // namespace

int main(int argc, char **argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: argus_decode_ab LIB_A LIB_B BATCH CONTEXT [ITERATIONS=21] [cold|warm] [KV_HEADS=8]\n");
    return 2;
  }
  const int64_t batch = std::atoll(argv[3]), context = std::atoll(argv[4]);
  const int iterations = argc > 5 ? std::max(1, std::atoi(argv[5])) : 21;
  const std::string pages = argc > 6 ? argv[6] : "cold";
  const int64_t kvHeads = argc > 7 ? std::atoll(argv[7]) : 8;
  if (batch < 1 || context < 1 || (pages != "cold" && pages != "warm") || kvHeads < 1 || kHeads % kvHeads != 0) {
    std::fprintf(stderr, "argus_decode_ab: BATCH and CONTEXT must be positive, the pages cold or warm, KV_HEADS a "
                         "divisor of %lld\n",
                 static_cast<long long>(kHeads));
    return 2;
  }
  using argus::bench::loadAbSymbol;
  const DecodeFn decode[2] = {loadAbSymbol<DecodeFn>("argus_decode_ab", argv[1], "argus_attention_decode"),
                              loadAbSymbol<DecodeFn>("argus_decode_ab", argv[2], "argus_attention_decode")};

  const int64_t maxPages = (context + kPage - 1) / kPage, slots = batch * maxPages * kPage;
  const size_t poolElements = size_t(slots * kvHeads * kDim);
  const int64_t copies = pages == "cold" ? argus::bench::copiesBeyondCache(2.0 * double(poolElements) * 2) : 1;
  std::mt19937 rng(1);
  const argus::bench::PageAlignedVector<uint16_t> q = argus::bench::randomBf16(size_t(batch * kHeads * kDim), rng);
  argus::bench::PageAlignedVector<uint16_t> kc = argus::bench::randomBf16(poolElements, rng);
  argus::bench::PageAlignedVector<uint16_t> vc = argus::bench::randomBf16(poolElements, rng);
  for (auto *pool : {&kc, &vc}) { // copy c of the pool right after copy c - 1
    pool->resize(poolElements * size_t(copies));
    for (int64_t c = 1; c < copies; ++c) std::copy_n(pool->begin(), poolElements, pool->begin() + c * poolElements);
  }
  std::vector<int32_t> table(size_t(batch * maxPages));
  const std::vector<int32_t> lens(static_cast<size_t>(batch), static_cast<int32_t>(context));
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng); // pages scattered over the pool
  std::vector<std::vector<int32_t>> tables(size_t(copies), table); // copy c's pages: c * batch * maxPages on
  for (int64_t c = 0; c < copies; ++c)
    for (int32_t &page : tables[size_t(c)]) page += int32_t(c * batch * maxPages);
  std::vector<uint16_t> out[2] = {std::vector<uint16_t>(q.size()), std::vector<uint16_t>(q.size())};

  int64_t calls = 0;
  auto run = [&](int which) {
    const std::vector<int32_t> &pagesOfCall = tables[size_t(calls++ % copies)];
    argus_attention_decode_args a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.batch = batch, a.num_heads = kHeads, a.num_kv_heads = kvHeads, a.head_dim = kDim;
    a.page_size = kPage, a.max_pages_per_seq = maxPages, a.dtype = ARGUS_DTYPE_BF16;
    a.q = q.data(), a.k_cache = kc.data(), a.v_cache = vc.data(), a.o = out[which].data();
    a.block_table = pagesOfCall.data(), a.seqlens_kv = lens.data(), a.scale = 1.0f / std::sqrt(float(kDim));
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
  const double gigabytes = 2.0 * double(batch * context * kvHeads * kDim) * 2 / 1e9;
  std::printf("decode B=%lld context=%lld kv_heads=%lld (%s pages, %lld pools): A %.1f GB/s, B %.1f GB/s, median B/A "
              "%.3f (%d iterations, max |A - B| %g)\n",
              static_cast<long long>(batch), static_cast<long long>(context), static_cast<long long>(kvHeads),
              pages.c_str(),
              static_cast<long long>(copies), gigabytes / medianOf(times.seconds[0]),
              gigabytes / medianOf(times.seconds[1]), medianOf(times.ratio), iterations, diff);
  return 0;
}
