// The register blocks of mma, one instance per product shape the catalogs'
// kernels take (CpuRegisterBlocks: compiled as a kernel is, then read back
// from the object's disassembly). Each instance stays out of line, so its
// product is compiled once, as in a kernel's instance function.
#include "argus_cpu_kernel.h"

namespace ak = argus_cpu;
using bf16_t = uint16_t;

/// acc += a b^T, b laid out N x K (GEMM and MoE tiles, decode's scores).
template <class DT, int64_t M, int64_t N, int64_t K, class S>
__attribute__((noinline)) void product(float *acc, const S *a, int64_t lda, const S *b, int64_t ldb) {
  ak::mma<DT, M, N, K>(acc, ak::tile_ref<S>{a, lda}, ak::tile_ref<S>{b, ldb});
}

/// acc = acc * by + a v, v laid out K x N (decode's p . v).
template <class DT, int64_t M, int64_t N, int64_t K, class S>
__attribute__((noinline)) void product_kn(float *acc, const S *a, const S *v, int64_t ldv, const float *by) {
  ak::mma_kn<DT, M, N, K>(acc, ak::tile_ref<S>{a, K}, ak::tile_ref<S>{v, ldv}, ak::row_scale{by});
}

// Inner-product form: tiles of 1-16 rows against plain weights (k-steps of
// 512-2048), decode's scores (k = head_dim, one and four query heads).
template void product<ak::bf16, 1, 32, 2048>(float *, const bf16_t *, int64_t, const bf16_t *, int64_t);
template void product<ak::bf16, 4, 64, 512>(float *, const bf16_t *, int64_t, const bf16_t *, int64_t);
template void product<ak::bf16, 16, 64, 512>(float *, const bf16_t *, int64_t, const bf16_t *, int64_t);
template void product<ak::f32, 4, 64, 512>(float *, const float *, int64_t, const float *, int64_t);
template void product<ak::f32, 16, 64, 512>(float *, const float *, int64_t, const float *, int64_t);
template void product<ak::bf16, 1, 16, 128>(float *, const bf16_t *, int64_t, const bf16_t *, int64_t);
template void product<ak::bf16, 4, 16, 128>(float *, const bf16_t *, int64_t, const bf16_t *, int64_t);

// Rows form: decode's p . v over a page of 16 tokens, head_dim 64 and 128.
template void product_kn<ak::bf16, 1, 128, 16>(float *, const bf16_t *, const bf16_t *, int64_t, const float *);
template void product_kn<ak::bf16, 1, 64, 16>(float *, const bf16_t *, const bf16_t *, int64_t, const float *);
template void product_kn<ak::bf16, 4, 128, 16>(float *, const bf16_t *, const bf16_t *, int64_t, const float *);
template void product_kn<ak::f32, 1, 128, 16>(float *, const float *, const float *, int64_t, const float *);
