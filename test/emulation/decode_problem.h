//===- decode_problem.h - a paged decode attention problem and its check ---===//
//
// Fresh random bf16 (or f16) queries and caches, every sequence's pages scattered over
// the cache in random order (unused block-table entries point far outside
// it), the output poisoned with NaN and followed by a guard run, and an
// element-wise comparison with the float64 reference
// (argus::ref::attentionDecodeF64): |err| <= 2^-8 |ref| + 2^-12 sum_j p_j |v_j|,
// or 2^-7 sum_j p_j |v_j| for a kernel that rounds the weights p_j to bf16
// (f16 outputs: 2^-11 |ref|).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_EMULATION_DECODE_PROBLEM_H
#define ARGUS_TEST_EMULATION_DECODE_PROBLEM_H

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace argus::gpu::test {

struct DecodeProblem {
  int heads, kvHeads, headDim, valueDim, pageSize;
  std::vector<int> seqlens;  // one per sequence
  float scale;               // 0: 1/sqrt(headDim)
  bool f16 = false;          // the tensors' element type: f16, else bf16

  int batch() const { return int(seqlens.size()); }
  int maxPagesPerSeq() const;
  float effectiveScale() const;
  std::string describe() const;
};

struct DecodeData {
  std::vector<uint16_t> q, kCache, vCache, o;  // o: batch x heads x valueDim, then the guard
  std::vector<int32_t> blockTable, seqlens;

  DecodeData(const DecodeProblem &p, std::mt19937 &rng);
};

/// Fills every cache slot that no sequence reads below its length (the tail
/// of a last page, the pages no sequence uses) with NaN and infinities, as an
/// engine's cache may hold there: a kernel must not let them into its sums.
void fillPastContexts(const DecodeProblem &p, DecodeData &d);

/// Sequence lengths past what the block table addresses, for a problem of two
/// sequences: `data` claims 2^20 tokens for the first (its whole table row real
/// pages) and -5 for the second; `expected` is the same data with what a
/// kernel must take them for: all the row addresses, and nothing. Both run
/// alike give the same o.
struct ClampedSeqlens {
  DecodeData data, expected;
};
ClampedSeqlens clampedSeqlens(const DecodeProblem &p, std::mt19937 &rng);

/// How a kernel computes P·V: in f32, or with the weights rounded to bf16.
enum class DecodeWeights { F32, Bf16 };

/// The first few problems with `data.o` ("" when all is within tolerance).
std::string compareWithFloat64(const DecodeProblem &p, const DecodeData &data,
                               DecodeWeights weights = DecodeWeights::F32);

} // namespace argus::gpu::test

#endif // ARGUS_TEST_EMULATION_DECODE_PROBLEM_H
