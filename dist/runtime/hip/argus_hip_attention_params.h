//===- argus_hip_attention_params.h - the prefill kernel's arguments -------===//
//
// The plain struct shared by the CDNA prefill kernel and the host runtime,
// passed by value as the kernel's one argument (hipModuleLaunchKernel's
// kernelParams = { &params }), and the limits the kernel is compiled for.
// (Paged decode is generated: argus_hip_decode_launch.h.)
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_ATTENTION_PARAMS_H
#define ARGUS_HIP_ATTENTION_PARAMS_H

#include "gpu/argus_gpu_prefill_params.h"

#include <stdint.h>

namespace argus::hip {

inline constexpr int kPrefillWaves = 4;          // 32 query rows each
inline constexpr int kPrefillRows = kPrefillWaves * 32;
inline constexpr int kPrefillKeys = 64;          // keys per block
inline constexpr int kMaxPrefillHeadDim = 192;   // q and k, a multiple of 64
inline constexpr int kMaxPrefillValueDim = 128;  // v and o, a multiple of 32

/// LDS of prefillAttention: the key block (head_dim / 64 tiles of 64 x 64),
/// the value block transposed (value_dim rows of 64 keys), each wave's
/// probabilities (32 x 64).
constexpr int prefillLdsBytes() {
  return kPrefillKeys * kMaxPrefillHeadDim * 2 + kMaxPrefillValueDim * kPrefillKeys * 2 +
         kPrefillWaves * 32 * kPrefillKeys * 2;
}

using PrefillParams = argus::gpu::PrefillParams;

} // namespace argus::hip

#endif // ARGUS_HIP_ATTENTION_PARAMS_H
