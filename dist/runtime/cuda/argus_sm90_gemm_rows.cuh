// GEMM for few rows of A (decode: m <= 16): C = alpha * A·Bᵀ + beta * C (+ bias), bf16 operands,
// f32 accumulation, the weights B streamed from global memory straight into mma.sync fragments.
//
// At m <= 16 the product is a pass over B, and the tile kernels (argus_sm90_gemm.cuh) spend it
// on 64-row wgmma tiles whose TMA boxes, stage barriers and 63 padding rows all cost issue slots
// while bytes should be in flight. Here B is the mma's A operand instead: m16n8k16 with 16 weight
// rows as its M and the tokens as its N (one n8 block per 8 tokens), so nothing is padded beyond
// 8 tokens and no shared memory is touched before the reduction.
//
// A lane loads 16 contiguous bytes (8 k) of weight rows g and g + 8 (g = lane / 4) and of token
// g; the four lanes of a group cover 32 consecutive k of those rows. The mma sums over its 16
// k-slots in any order, so the slots are renamed: lane l's slots {2t, 2t+1, 2t+8, 2t+9} (t =
// l % 4) of mma j in {0, 1} are the physical k 8t + 4j + {0, 1, 2, 3} of the step, in both
// operands alike. Each lane thus feeds two mmas from its own 16-byte loads, with no shuffle.
//
// A CTA owns 16 weight rows (mma M); its warps take interleaved groups of `Unroll` 32-wide k steps
// with every load of a group issued before its mmas; a cluster of `split` CTAs along grid z cuts
// K into contiguous ranges. Partials meet in shared memory (warps), then in distributed shared
// memory (the cluster), as in the split-K tile kernel; rows past n and tokens past m read the
// last valid row instead of branching, and are never stored.
#pragma once

#include "argus_sm90_gemm.cuh"

namespace argus::sm90 {

template <int TokenBlocks, int Warps, int Unroll> struct RowsGemmShape {
  static constexpr int kRows = 16;                 // weight rows per CTA: the mma's M
  static constexpr int kTokens = 8 * TokenBlocks;  // rows of A: the mma's N, 8 per block
  static constexpr int kStepK = 32;                // 4 lanes x 16 bytes of one row
  static constexpr int kThreads = 32 * Warps;
  static constexpr int kOutputs = kTokens * kRows;
  // Each warp's partial tile, then the CTA's sum that the cluster reads: [token][row] floats.
  static constexpr int kSharedBytes = (Warps + 1) * kOutputs * 4;
};

// One 32-wide k step of a lane: its 16 bytes of weight rows g and g + 8 and of its tokens.
template <int TokenBlocks> struct RowsStep {
  cuda::Bytes16 low, high, tokens[TokenBlocks];
};

// The lane's operands: where its two weight rows and its tokens start.
template <int TokenBlocks> struct RowsLaneOperands {
  const uint16_t *low, *high, *tokens[TokenBlocks];

  // Step `s` inside k for all four lanes of the group: plain 16-byte loads.
  ARGUS_CUDA_FN RowsStep<TokenBlocks> load(int s, int q) const {
    const int first = s * 32 + q * 8;
    RowsStep<TokenBlocks> step;
    step.low = cuda::loadStreaming16(low + first);
    step.high = cuda::loadStreaming16(high + first);
    ARGUS_CUDA_UNROLL
    for (int t = 0; t < TokenBlocks; ++t)
      step.tokens[t] = cuda::loadReadOnly16(tokens[t] + first);
    return step;
  }

  // A step that reaches past k: elements at or past k are zeros in both operands.
  ARGUS_CUDA_FN RowsStep<TokenBlocks> loadTail(int s, int q, int k) const {
    const int first = s * 32 + q * 8;
    RowsStep<TokenBlocks> step;
    step.low = tail(low, first, k);
    step.high = tail(high, first, k);
    ARGUS_CUDA_UNROLL
    for (int t = 0; t < TokenBlocks; ++t)
      step.tokens[t] = tail(tokens[t], first, k);
    return step;
  }

  ARGUS_CUDA_FN static cuda::Bytes16 tail(const uint16_t *row, int first, int k) {
    if (first + 8 <= k)
      return cuda::loadReadOnly16(row + first);
    cuda::Bytes16 v = {{0, 0, 0, 0}};
    for (int i = 0; i < 8 && first + i < k; ++i)
      v.word[i / 2] |= uint32_t(row[first + i]) << (16 * (i % 2));
    return v;
  }
};

// acc[t] += the step's product: two mmas, physical k 8t + 4j + {0..3} as mma j's slots.
template <int TokenBlocks>
ARGUS_CUDA_FN void multiplyStep(const RowsStep<TokenBlocks> &s, float (&acc)[TokenBlocks][4]) {
  ARGUS_CUDA_UNROLL
  for (int j = 0; j < 2; ++j) {
    const uint32_t a[4] = {s.low.word[2 * j], s.high.word[2 * j], s.low.word[2 * j + 1], s.high.word[2 * j + 1]};
    ARGUS_CUDA_UNROLL
    for (int t = 0; t < TokenBlocks; ++t) {
      const uint32_t b[2] = {s.tokens[t].word[2 * j], s.tokens[t].word[2 * j + 1]};
      cuda::mmaBf16(a, b, acc[t]);
    }
  }
}

template <int TokenBlocks, int Warps, int Unroll, typename TC>
ARGUS_CUDA_FN void gemmRowsBody(const Bf16 *a, int64_t lda, const Bf16 *b, int64_t ldb, const GemmEpilogue &epilogue,
                                int k) {
  using Shape = RowsGemmShape<TokenBlocks, Warps, Unroll>;
  float *const partials = reinterpret_cast<float *>(cuda::dynamicShared());
  float *const sums = partials + Warps * Shape::kOutputs;
  const int warp = int(threadX()) / 32, lane = int(threadX()) % 32, g = lane / 4, q = lane % 4;
  const int n0 = int(blockAt(0)) * Shape::kRows;
  const int split = int(gridAt(2)), rank = int(clusterRank());

  RowsLaneOperands<TokenBlocks> lanes;
  const uint16_t *weights = reinterpret_cast<const uint16_t *>(b);
  lanes.low = weights + int64_t(smaller(n0 + g, epilogue.n - 1)) * ldb;
  lanes.high = weights + int64_t(smaller(n0 + g + 8, epilogue.n - 1)) * ldb;
  ARGUS_CUDA_UNROLL
  for (int t = 0; t < TokenBlocks; ++t)
    lanes.tokens[t] = reinterpret_cast<const uint16_t *>(a) + int64_t(smaller(8 * t + g, epilogue.m - 1)) * lda;

  // This CTA's steps; whole groups of Unroll steps inside k go to the warps in turn, the rest
  // (fewer than Unroll, and the step that crosses k) one by one.
  const Range steps = splitRange((k + Shape::kStepK - 1) / Shape::kStepK, rank, split);
  const int wholeEnd = smaller(steps.end, k / Shape::kStepK);
  const int groups = wholeEnd > steps.begin ? (wholeEnd - steps.begin) / Unroll : 0;
  float acc[TokenBlocks][4] = {};
  for (int group = warp; group < groups; group += Warps) {
    RowsStep<TokenBlocks> loaded[Unroll];
    ARGUS_CUDA_UNROLL
    for (int u = 0; u < Unroll; ++u)
      loaded[u] = lanes.load(steps.begin + group * Unroll + u, q);
    ARGUS_CUDA_UNROLL
    for (int u = 0; u < Unroll; ++u)
      multiplyStep(loaded[u], acc);
  }
  for (int s = steps.begin + groups * Unroll + warp; s < steps.end; s += Warps)
    multiplyStep(lanes.loadTail(s, q, k), acc);

  // acc[t][0..1]: rows g, tokens 8t + 2q + {0, 1}; acc[t][2..3]: rows g + 8.
  float *mine = partials + warp * Shape::kOutputs;
  ARGUS_CUDA_UNROLL
  for (int t = 0; t < TokenBlocks; ++t)
    ARGUS_CUDA_UNROLL
    for (int i = 0; i < 4; ++i)
      mine[(8 * t + 2 * q + i % 2) * Shape::kRows + g + 8 * (i / 2)] = acc[t][i];
  cuda::syncThreads();

  // Quads of 4 adjacent rows of one token: the unit of the sums and of the stores.
  constexpr int kQuads = Shape::kOutputs / 4;
  for (int quad = int(threadX()); quad < kQuads; quad += Shape::kThreads) {
    float sum[4] = {0.f, 0.f, 0.f, 0.f};
    for (int w = 0; w < Warps; ++w)
      for (int i = 0; i < 4; ++i)
        sum[i] += partials[w * Shape::kOutputs + 4 * quad + i];
    for (int i = 0; i < 4; ++i)
      sums[4 * quad + i] = sum[i];
  }
  if (split > 1)
    clusterSync();  // every CTA's sums are staged
  else
    cuda::syncThreads();

  const bool vectorOk = vectorStores<TC, 4>(epilogue);
  const Range quads = splitRange(kQuads, rank, split);
  for (int quad = quads.begin + int(threadX()); quad < quads.end; quad += Shape::kThreads) {
    const int token = quad / (Shape::kRows / 4), row = (quad % (Shape::kRows / 4)) * 4;
    if (token >= epilogue.m)
      continue;
    float sum[4] = {sums[4 * quad], sums[4 * quad + 1], sums[4 * quad + 2], sums[4 * quad + 3]};
    if (split > 1) {
      sum[0] = sum[1] = sum[2] = sum[3] = 0.f;
      for (int source = 0; source < split; ++source) {
        float part[4];
        loadClusterFloats(sums + 4 * quad, uint32_t(source), part);
        for (int i = 0; i < 4; ++i)
          sum[i] += part[i];
      }
    }
    storeEpilogue<TC, 4>(epilogue, token, n0 + row, sum, vectorOk);
  }
  if (split > 1)
    clusterSync();  // no CTA leaves while another still reads its sums
}

#if ARGUS_CUDA_DEVICE_CODE
template <int TokenBlocks, int Warps, int Unroll, typename TC>
__global__ void __launch_bounds__(RowsGemmShape<TokenBlocks, Warps, Unroll>::kThreads)
    gemmRows(const Bf16 *a, int64_t lda, const Bf16 *b, int64_t ldb, const GemmEpilogue epilogue, int k) {
  gemmRowsBody<TokenBlocks, Warps, Unroll, TC>(a, lda, b, ldb, epilogue, k);
}
#endif

}  // namespace argus::sm90
