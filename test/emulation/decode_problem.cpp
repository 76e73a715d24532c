//===- decode_problem.cpp - paged decode attention against float64 --------===//
#include "decode_problem.h"

#include "gemm_problem.h"

#include "argus/Reference/AttentionReference.h"
#include "argus_numerics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

namespace argus::gpu::test {
namespace {


int pagesOf(int seqlen, int pageSize) { return (seqlen + pageSize - 1) / pageSize; }

} // namespace

int DecodeProblem::maxPagesPerSeq() const {
  int most = 1;
  for (int s : seqlens)
    most = std::max(most, pagesOf(s, pageSize));
  return most + 1;  // a spare entry per row, never read
}

float DecodeProblem::effectiveScale() const { return scale != 0.0f ? scale : 1.0f / std::sqrt(float(headDim)); }

std::string DecodeProblem::describe() const {
  std::ostringstream os;
  os << "heads " << heads << "/" << kvHeads << ", d " << headDim << "/" << valueDim << ", page " << pageSize
     << (f16 ? ", f16" : "") << ", seqlens";
  for (int s : seqlens)
    os << " " << s;
  return os.str();
}

DecodeData::DecodeData(const DecodeProblem &p, std::mt19937 &rng) {
  int pages = 0;
  for (int s : p.seqlens)
    pages += pagesOf(s, p.pageSize);
  pages += 3;  // pages no sequence uses
  std::vector<int32_t> order(static_cast<size_t>(pages));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  blockTable.assign(size_t(p.batch()) * size_t(p.maxPagesPerSeq()), 1 << 30);  // far outside the cache
  size_t next = 0;
  for (int b = 0; b < p.batch(); ++b)
    for (int i = 0; i < pagesOf(p.seqlens[size_t(b)], p.pageSize); ++i)
      blockTable[size_t(b) * size_t(p.maxPagesPerSeq()) + size_t(i)] = order[next++];
  seqlens.assign(p.seqlens.begin(), p.seqlens.end());
  const size_t rows = size_t(pages) * size_t(p.pageSize) * size_t(p.kvHeads);
  q = randomBf16(size_t(p.batch()) * size_t(p.heads) * size_t(p.headDim), rng, p.f16, kQueryRange);
  kCache = randomBf16(rows * size_t(p.headDim), rng, p.f16);
  vCache = randomBf16(rows * size_t(p.valueDim), rng, p.f16);
  o.assign(size_t(p.batch()) * size_t(p.heads) * size_t(p.valueDim), kPoison);
  o.resize(o.size() + kGuardElements, kGuard);
}

void fillPastContexts(const DecodeProblem &p, DecodeData &d) {
  const size_t slots = d.kCache.size() / (size_t(p.kvHeads) * size_t(p.headDim));
  std::vector<bool> read(slots, false);
  for (int b = 0; b < p.batch(); ++b)
    for (int t = 0; t < p.seqlens[size_t(b)]; ++t)
      read[size_t(d.blockTable[size_t(b) * size_t(p.maxPagesPerSeq()) + size_t(t / p.pageSize)]) *
               size_t(p.pageSize) +
           size_t(t % p.pageSize)] = true;
  // NaN, +inf and -inf in the element type's bits
  const uint16_t junk[] = {uint16_t(p.f16 ? 0x7e00 : 0x7fc0), uint16_t(p.f16 ? 0x7c00 : 0x7f80),
                           uint16_t(p.f16 ? 0xfc00 : 0xff80)};
  auto fill = [&](std::vector<uint16_t> &cache, int width) {
    for (size_t slot = 0; slot < slots; ++slot)
      if (!read[slot])
        for (size_t i = 0; i < size_t(p.kvHeads) * size_t(width); ++i)
          cache[slot * size_t(p.kvHeads) * size_t(width) + i] = junk[(slot + i) % 3];
  };
  fill(d.kCache, p.headDim);
  fill(d.vCache, p.valueDim);
}

ClampedSeqlens clampedSeqlens(const DecodeProblem &p, std::mt19937 &rng) {
  DecodeData data(p, rng);
  for (int i = 0; i < p.maxPagesPerSeq(); ++i) // every entry of the first row a real page
    data.blockTable[size_t(i)] = i % 3;
  DecodeData expected = data;
  expected.seqlens = {p.maxPagesPerSeq() * p.pageSize, 0};
  data.seqlens = {1 << 20, -5};
  return {data, expected};
}

std::string compareWithFloat64(const DecodeProblem &p, const DecodeData &d, DecodeWeights weights) {
  ref::PagedDecodeShape shape;
  shape.batch = p.batch();
  shape.numHeads = p.heads;
  shape.numKvHeads = p.kvHeads;
  shape.headDim = p.headDim;
  shape.vHeadDim = p.valueDim;
  shape.pageSize = p.pageSize;
  shape.maxPagesPerSeq = p.maxPagesPerSeq();
  shape.scale = p.effectiveScale();
  const std::vector<int64_t> table(d.blockTable.begin(), d.blockTable.end()), lens(d.seqlens.begin(), d.seqlens.end());
  const size_t outputs = size_t(p.batch()) * size_t(p.heads) * size_t(p.valueDim);
  std::vector<double> ref(outputs), magnitude(outputs);
  auto all = [&](const std::vector<uint16_t> &v) { return widened(v, 0, v.size(), p.f16); };
  ref::attentionDecodeF64(shape, all(d.q).data(), all(d.kCache).data(), all(d.vCache).data(), table.data(),
                          lens.data(), ref.data(), magnitude.data());
  std::ostringstream problems;
  int wrong = 0;
  for (size_t i = 0; i < outputs; ++i) {
    const double value = widen(d.o[i], p.f16);
    const int weightError = weights == DecodeWeights::Bf16 ? -7 : -12, outputBits = p.f16 ? 11 : 8;
    const double tolerance =
        std::ldexp(std::fabs(ref[i]), -outputBits) + std::ldexp(magnitude[i], weightError) + 1e-30;
    if (!(std::fabs(value - ref[i]) <= tolerance) && ++wrong <= 5)
      problems << p.describe() << ": o[" << i << "] = " << value << ", expected " << ref[i] << "\n";
  }
  return finishReport(problems.str(), wrong, d.o, outputs, p.describe(), "o");
}

} // namespace argus::gpu::test
