//===- prefill_problem.h - a varlen prefill attention problem and its check -===//
//
// Fresh random bf16 (or f16) queries, keys and values packed [tokens, heads, dim] over
// a varlen batch (cu_seqlens), the output poisoned with NaN and followed by a
// guard run, and an element-wise comparison per sequence with the float64
// reference (argus::ref::attentionPrefillF64). The kernel rounds the softmax
// weights to bf16 before P·V: |err| <= 2^-8 |ref| + 2^-7 sum_j p_j |v_j|
// (f16: 2^-11 and 2^-10).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_EMULATION_PREFILL_PROBLEM_H
#define ARGUS_TEST_EMULATION_PREFILL_PROBLEM_H

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace argus::gpu::test {

struct PrefillProblem {
  int heads, kvHeads, headDim, valueDim;
  bool causal;
  std::vector<std::pair<int, int>> seqlens;  // (query tokens, key tokens) per sequence
  float scale;                               // 0: 1/sqrt(headDim)
  bool f16 = false;                          // the tensors' element type: f16, else bf16

  int batch() const { return int(seqlens.size()); }
  int maxSeqQ() const;
  int totalQ() const;
  int totalKv() const;
  float effectiveScale() const;
  std::string describe() const;
};

struct PrefillData {
  std::vector<uint16_t> q, k, v, o;  // o: totalQ x heads x valueDim, then the guard
  std::vector<int32_t> cuSeqlensQ, cuSeqlensKv;

  PrefillData(const PrefillProblem &p, std::mt19937 &rng);
};

/// The first few problems with `data.o` ("" when all is within tolerance).
std::string compareWithFloat64(const PrefillProblem &p, const PrefillData &data);

} // namespace argus::gpu::test

#endif // ARGUS_TEST_EMULATION_PREFILL_PROBLEM_H
