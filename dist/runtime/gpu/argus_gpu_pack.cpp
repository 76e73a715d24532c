//===- argus_gpu_pack.cpp - argus_pack_weights of a GPU library -----------===//
//
// GPU kernels stage their weights through shared memory with swizzled copies
// (TMA, LDS), so a pre-packed layout buys nothing there: the entry points
// exist (every library exports the whole C ABI) and say so.
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_kernels.h"
#include "argus_registry.h"

using namespace argus_rt;

extern "C" {

ARGUS_API size_t argus_packed_weights_size(const argus_weights_desc *weights) {
  (void)weights;
  return 0;
}

ARGUS_API argus_status argus_pack_weights(const argus_weights_desc *weights, void *packed, size_t packed_size,
                                          void *stream) {
  (void)weights, (void)packed, (void)packed_size, (void)stream;
  return fail(ARGUS_ERROR_UNSUPPORTED,
              "argus_pack_weights: a %s library reads its weights plain (pre-packed weights are a CPU-target "
              "feature)",
              argus_generated_target);
}

} // extern "C"
