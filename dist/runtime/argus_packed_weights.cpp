//===- argus_packed_weights.cpp - plan, pack and open packed weights ------===//
#include "argus_packed_weights.h"

#include "argus_checks.h"
#include "argus_registry.h"
#include "cpu/argus_cpu_transpose.h"

#include <algorithm>
#include <cstring>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace argus_rt {
namespace {

constexpr char kMagic[8] = {'A', 'R', 'G', 'U', 'S', 'P', 'W', '\0'};

/// The header's bytes (kPackedHeaderBytes, the rest zero).
struct Header {
  char magic[8];
  uint32_t version;
  int32_t dtype;
  int64_t batch, n, k, panelStride, matrixStride;
};
static_assert(sizeof(Header) <= kPackedHeaderBytes, "the header fits its 64 bytes");

/// Whether the kernels were compiled for feature `name` (argus_generated_isa
/// lists them, comma-separated).
bool kernelsHave(const char *name) {
  const std::string isa = std::string(",") + argus_generated_isa + ",", want = std::string(",") + name + ",";
  std::string compact;
  for (char c : isa)
    if (c != ' ') compact += c;
  return compact.find(want) != std::string::npos;
}

/// Why this library's kernels cannot compute from panels of `dtype`, or
/// nullptr when they can (argus_cpu_panels.h: mma_reads_panels).
const char *panelsUnservedBecause(argus_dtype dtype) {
  if (dtype == ARGUS_DTYPE_F32)
    return kernelsHave("avx512f") ? nullptr : "its kernels were not built for AVX-512";
  if (dtype == ARGUS_DTYPE_BF16)
    return kernelsHave("avx512f") && kernelsHave("avx512bw") && kernelsHave("avx512bf16")
               ? nullptr
               : "its kernels were not built for AVX512_BF16";
  return "the kernels read f16 weights only in their plain layout";
}

} // namespace

bool panelsServed(argus_dtype dtype) { return panelsUnservedBecause(dtype) == nullptr; }

PackedWeights panelLayout(argus_dtype dtype, int64_t batch, int64_t n, int64_t k) {
  PackedWeights l;
  l.dtype = dtype;
  l.batch = batch, l.n = n, l.k = k;
  l.panelStride = argus_cpu_panel_elements(k, dtypeSize(dtype));
  l.matrixStride = (n + ARGUS_CPU_PANEL_ROWS - 1) / ARGUS_CPU_PANEL_ROWS * l.panelStride;
  return l;
}

argus_cpu_tensor PackedWeights::matrix(int64_t index) const {
  argus_cpu_tensor t{};
  t.data = const_cast<char *>(data) + index * matrixStride * dtypeSize(dtype);
  t.shape[0] = n;
  t.shape[1] = k;
  t.stride[0] = panelStride;
  t.stride[1] = 1;
  t.layout = ARGUS_CPU_PANELS;
  return t;
}

argus_status planPackedWeights(const argus_weights_desc *weights, const char *function, PackedWeights *layout,
                               size_t *bytes) {
  Checker check(function);
  if (!weights) return check.fail(ARGUS_ERROR_INVALID_ARGUMENT, "weights is NULL");
  const argus_weights_desc &w = *weights;
  if (auto s = check.structSize(w.struct_size, sizeof(argus_weights_desc))) return s;
  if (auto s = check.positive("batch", w.batch)) return s;
  if (auto s = check.positive("n", w.n)) return s;
  if (auto s = check.positive("k", w.k)) return s;
  if (auto s = check.atLeast("ldw", w.ldw, "k", w.k)) return s;
  if (auto s = check.nonNegative("batch_stride", w.batch_stride)) return s;
  if (auto s = check.knownDtype("dtype", w.dtype)) return s;
  if (const char *why = panelsUnservedBecause(w.dtype))
    return check.fail(ARGUS_ERROR_UNSUPPORTED, "%s weights have no packed layout in this library: %s (pass them plain)",
                      dtypeName(w.dtype), why);
  const int64_t elementBytes = dtypeSize(w.dtype);
  // The source's extent: (batch - 1) * batch_stride + (n - 1) * ldw + k elements.
  int64_t rowsSpan = 0, batchSpan = 0, extent = 0;
  const bool sourceFits = mulNonNegative(w.n - 1, w.ldw, &rowsSpan) &&
                          (w.batch_stride ? mulNonNegative(w.batch - 1, w.batch_stride, &batchSpan)
                                          : mulNonNegative(w.batch - 1, w.n, &batchSpan) &&
                                                mulNonNegative(batchSpan, w.ldw, &batchSpan)) &&
                          !__builtin_add_overflow(rowsSpan, batchSpan, &extent) &&
                          !__builtin_add_overflow(extent, w.k, &extent) && mulNonNegative(extent, elementBytes, &extent);
  if (!sourceFits)
    return check.fail(ARGUS_ERROR_INVALID_ARGUMENT, "the extent of the weights (batch %lld, n %lld, ldw %lld) overflows",
                      static_cast<long long>(w.batch), static_cast<long long>(w.n), static_cast<long long>(w.ldw));
  if (auto s = check.pointer("w", w.w, 1)) return s;
  PackedWeights l;
  l.dtype = w.dtype;
  l.batch = w.batch, l.n = w.n, l.k = w.k;
  l.panelStride = argus_cpu_panel_elements(w.k, elementBytes);
  const int64_t panels = (w.n + ARGUS_CPU_PANEL_ROWS - 1) / ARGUS_CPU_PANEL_ROWS;
  int64_t total = 0;
  if (!mulNonNegative(panels, l.panelStride, &l.matrixStride) || !mulNonNegative(l.matrixStride, w.batch, &total) ||
      !mulNonNegative(total, elementBytes, &total) || total > INT64_MAX - int64_t(kPackedHeaderBytes))
    return check.fail(ARGUS_ERROR_INVALID_ARGUMENT, "the packed size of %lld x %lld x %lld weights overflows",
                      static_cast<long long>(w.batch), static_cast<long long>(w.n), static_cast<long long>(w.k));
  *layout = l;
  *bytes = size_t(total) + kPackedHeaderBytes;
  return ARGUS_OK;
}

namespace {

/// Panel p of matrix b: each source row scattered into its column of the
/// panel; rows past n and k past k are zeros. E is the element's storage
/// type, G the k values side by side (1 or 2). In steps of 64 k, so that the
/// step's panel rows (8 KiB of f32) stay in L1 while all 32 rows visit them:
/// whole rows at a time would fetch every panel line once per row (packing
/// the activations per call, argus_gemm_transposed.cpp: 5% of a 128-token
/// f32 GEMM, N = K = 4096, before; under 1% after).
template <class E, int64_t G>
void packPanel(E *panel, const E *src, int64_t ldw, int64_t n, int64_t k, int64_t p, int64_t kPadded) {
  constexpr int64_t kStep = 64;
  for (int64_t k0 = 0; k0 < kPadded; k0 += kStep)
    for (int64_t j = 0; j < ARGUS_CPU_PANEL_ROWS; ++j) {
      const int64_t row = p * ARGUS_CPU_PANEL_ROWS + j;
      const E *in = row < n ? src + row * ldw : nullptr;
      for (int64_t kk = k0; kk < std::min(kPadded, k0 + kStep); ++kk)
        panel[(kk / G * ARGUS_CPU_PANEL_ROWS + j) * G + kk % G] = in && kk < k ? in[kk] : E(0);
    }
}

/// Panel p of matrix b as rows of 32-bit elements (f32, or bf16 pairs of an
/// even k from 4-byte aligned rows), transposed 16 x 16 in registers: 6x
/// packPanel's rate (bf16, 4096 x 4096). False where that does not apply.
bool packPanelTransposed(void *panel, const void *src, int64_t ldw, int64_t n, int64_t k, int64_t p,
                         int64_t elementBytes) {
#if defined(ARGUS_CPU_HAVE_TRANSPOSE16)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  const int64_t perWord = 4 / elementBytes; /* elements in 32 bits: 1 (f32) or 2 (bf16) */
  if (!avx512 || k % perWord || ldw % perWord || reinterpret_cast<uintptr_t>(src) % 4) return false;
  const int64_t row0 = p * ARGUS_CPU_PANEL_ROWS;
  argus_cpu::detail::pack_panel32<ARGUS_CPU_PANEL_ROWS>(static_cast<uint32_t *>(panel),
                                                        static_cast<const uint32_t *>(src), ldw / perWord,
                                                        k / perWord, row0, std::min<int64_t>(ARGUS_CPU_PANEL_ROWS, n - row0));
  return true;
#else
  (void)panel, (void)src, (void)ldw, (void)n, (void)k, (void)p, (void)elementBytes;
  return false;
#endif
}

} // namespace

void packWeights(const argus_weights_desc &w, const PackedWeights &l, void *packed, int threads) {
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kPackedLayoutVersion;
  h.dtype = int32_t(l.dtype);
  h.batch = l.batch, h.n = l.n, h.k = l.k, h.panelStride = l.panelStride, h.matrixStride = l.matrixStride;
  std::memset(packed, 0, kPackedHeaderBytes);
  std::memcpy(packed, &h, sizeof h);
  const int64_t batchStride = w.batch_stride ? w.batch_stride : w.n * w.ldw;
  const int64_t panels = l.matrixStride / l.panelStride, kPadded = l.panelStride / ARGUS_CPU_PANEL_ROWS;
  char *dst = static_cast<char *>(packed) + kPackedHeaderBytes;
  const bool f32 = l.dtype == ARGUS_DTYPE_F32;
#ifndef _OPENMP
  (void)threads;
#endif
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : omp_get_max_threads())
  for (int64_t job = 0; job < l.batch * panels; ++job) {
    const int64_t b = job / panels, p = job % panels, at = b * l.matrixStride + p * l.panelStride;
    const int64_t elementBytes = f32 ? 4 : 2;
    if (packPanelTransposed(dst + at * elementBytes, static_cast<const char *>(w.w) + b * batchStride * elementBytes,
                            w.ldw, w.n, w.k, p, elementBytes))
      continue;
    if (f32)
      packPanel<float, 1>(reinterpret_cast<float *>(dst) + at, static_cast<const float *>(w.w) + b * batchStride,
                          w.ldw, w.n, w.k, p, kPadded);
    else /* bf16: pairs of k */
      packPanel<uint16_t, 2>(reinterpret_cast<uint16_t *>(dst) + at,
                             static_cast<const uint16_t *>(w.w) + b * batchStride, w.ldw, w.n, w.k, p, kPadded);
  }
}

argus_status openPackedWeights(const void *packed, int64_t batch, int64_t n, int64_t k, argus_dtype dtype,
                               const char *function, const char *field, PackedWeights *out) {
  if (reinterpret_cast<uintptr_t>(packed) % kPackedHeaderBytes != 0)
    return fail(ARGUS_ERROR_INVALID_ARGUMENT, "%s: %s must be 64-byte aligned (it is what argus_pack_weights wrote)",
                function, field);
  Header h;
  std::memcpy(&h, packed, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
    return fail(ARGUS_ERROR_INVALID_ARGUMENT, "%s: %s does not point at weights written by argus_pack_weights",
                function, field);
  if (h.version != kPackedLayoutVersion)
    return fail(ARGUS_ERROR_INVALID_ARGUMENT,
                "%s: %s was packed in layout version %u; this library reads version %u: pack the weights again",
                function, field, h.version, kPackedLayoutVersion);
  if (h.batch != batch || h.n != n || h.k != k || h.dtype != int32_t(dtype))
    return fail(ARGUS_ERROR_INVALID_ARGUMENT,
                "%s: %s holds %lld packed %s matrices of %lld x %lld; this call needs %lld of %lld x %lld %s",
                function, field, static_cast<long long>(h.batch), dtypeName(argus_dtype(h.dtype)),
                static_cast<long long>(h.n), static_cast<long long>(h.k), static_cast<long long>(batch),
                static_cast<long long>(n), static_cast<long long>(k), dtypeName(dtype));
  const PackedWeights l = panelLayout(dtype, batch, n, k);
  if (h.panelStride != l.panelStride || h.matrixStride != l.matrixStride)
    return fail(ARGUS_ERROR_INVALID_ARGUMENT, "%s: the header of %s is corrupt (its strides do not match its shape)",
                function, field);
  *out = l;
  out->data = static_cast<const char *>(packed) + kPackedHeaderBytes;
  return ARGUS_OK;
}

} // namespace argus_rt
