//===- argus_hip_attention_params.h - the attention kernels' arguments -----===//
//
// Plain structs shared by the CDNA attention kernels and the host runtime,
// passed by value as the kernels' one argument (hipModuleLaunchKernel's
// kernelParams = { &params }), and the limits the kernels are compiled for.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_ATTENTION_PARAMS_H
#define ARGUS_HIP_ATTENTION_PARAMS_H

#include <stdint.h>

namespace argus::hip {

inline constexpr int kMaxDecodeGroup = 8;       // query heads per KV head
inline constexpr int kMaxDecodeHeadDim = 256;   // q and k, a multiple of 8
inline constexpr int kMaxDecodeValueDim = 256;  // v and o
inline constexpr int kDecodeWaves = 4;

/// LDS of decodeAttention<waves>: q, then each wave's probabilities, then each
/// wave's partial result for the merge (16-byte aligned pieces).
constexpr int decodeLdsBytes(int waves) {
  return kMaxDecodeGroup * kMaxDecodeHeadDim * 4 + waves * kMaxDecodeGroup * 64 * 4 +
         waves * kMaxDecodeGroup * (kMaxDecodeValueDim + 2) * 4;
}

/// argus_attention_decode_args for the kernel: bf16 patterns, 32-bit sizes,
/// the softmax scale times log2(e) (the kernel works in base 2).
struct DecodeParams {
  const uint16_t *q;
  const uint16_t *kCache, *vCache;
  const int32_t *blockTable, *seqlens;
  uint16_t *o;
  int64_t maxPagesPerSeq;
  int32_t heads, kvHeads, headDim, valueDim, pageSize;
  float scaleLog2;
};

} // namespace argus::hip

#endif // ARGUS_HIP_ATTENTION_PARAMS_H
