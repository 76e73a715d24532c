//===- argus_pack.cpp - the argus_pack_weights entry points of the C ABI --===//
//
// CPU targets: plan (argus_packed_weights.h), check the destination, pack.
// `stream` is ignored.
//
//===----------------------------------------------------------------------===//
#include "argus_config.h"
#include "argus_error.h"
#include "argus_kernels.h"
#include "argus_packed_weights.h"

using namespace argus_rt;

extern "C" {

ARGUS_API size_t argus_packed_weights_size(const argus_weights_desc *weights) {
  size_t bytes = 0;
  guard("argus_packed_weights_size", [&] {
    PackedWeights layout;
    if (planPackedWeights(weights, "argus_packed_weights_size", &layout, &bytes) != ARGUS_OK) bytes = 0;
    return ARGUS_OK;
  });
  return bytes;
}

ARGUS_API argus_status argus_pack_weights(const argus_weights_desc *weights, void *packed, size_t packed_size,
                                          void *stream) {
  (void)stream;
  return guard("argus_pack_weights", [&] {
    if (auto s = ready("argus_pack_weights")) return s;
    PackedWeights layout;
    size_t bytes = 0;
    if (auto s = planPackedWeights(weights, "argus_pack_weights", &layout, &bytes)) return s;
    if (!packed) return fail(ARGUS_ERROR_INVALID_ARGUMENT, "argus_pack_weights: packed is NULL");
    if (reinterpret_cast<uintptr_t>(packed) % kPackedHeaderBytes != 0)
      return fail(ARGUS_ERROR_INVALID_ARGUMENT, "argus_pack_weights: packed must be 64-byte aligned");
    if (packed_size < bytes)
      return fail(ARGUS_ERROR_INVALID_ARGUMENT,
                  "argus_pack_weights: packed_size (%zu) must be >= argus_packed_weights_size (%zu)", packed_size,
                  bytes);
    packWeights(*weights, layout, packed, config().numThreads);
    return ARGUS_OK;
  });
}

} // extern "C"
