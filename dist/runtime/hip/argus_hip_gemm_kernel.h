//===- argus_hip_gemm_kernel.h - C = alpha·A·Bᵀ + beta·C on CDNA MFMA ------===//
//
// One workgroup computes one BM x BN tile of C, walking k in steps of 64:
//
//   registers <- A, B rows of step 0            (buffer_load_dwordx4, zeros past the edge)
//   for each step:
//     LDS <- registers                           (swizzled, argus_hip_schedule.h)
//     barrier
//     registers <- A, B rows of the next step    (in flight during the MFMAs)
//     each wave: 8 x (ds_read_b128 per 32 rows, 2 MFMA 32x32x8 per block pair)
//     barrier                                    (before LDS is overwritten)
//   epilogue: alpha, beta·C, bias, round to bf16, masked stores
//
// The k order inside a step is free as long as A and B agree: lane l reads
// chunk 2s + l/32 of its row and feeds its low half to one MFMA and its high
// half to the next, so every ds_read is a full 16-byte access.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_GEMM_KERNEL_H
#define ARGUS_HIP_GEMM_KERNEL_H

#include "argus_hip_device.h"
#include "argus_hip_gemm_params.h"
#include "argus_hip_schedule.h"

namespace argus::hip {

/// `v` with its bf16 elements from index `valid` on set to zero (k past K).
ARGUS_HIP_FN u32x4 keepFirstElements(u32x4 v, int valid) {
  for (int d = 0; d < 4; ++d) {
    const int keep = valid - 2 * d;
    v[d] = keep >= 2 ? v[d] : keep == 1 ? (v[d] & 0xffffu) : 0u;
  }
  return v;
}

/// Elements 4·half .. 4·half + 3 of a 16-byte chunk, as an MFMA operand.
ARGUS_HIP_FN bf16x4 operandHalf(u32x4 v, int half) {
  const uint64_t bits = uint64_t(v[2 * half]) | (uint64_t(v[2 * half + 1]) << 32);
  return __builtin_bit_cast(bf16x4, bits);
}

/// Loads this work-item's `Chunks` 16-byte chunks of a rows x 64 operand tile
/// starting at element k0: chunk i is row q / 8, chunk q % 8, q = item + i·threads.
template <int Chunks, int Threads>
ARGUS_HIP_FN void loadOperandTile(BufferResource rows, int64_t ld, int k0, int k, u32x4 (&regs)[Chunks]) {
  const int item = workItem();
  for (int i = 0; i < Chunks; ++i) {
    const int q = item + i * Threads;
    const int row = q / kChunksPerRow, first = k0 + (q % kChunksPerRow) * 8;
    const u32x4 v = bufferLoad16(rows, uint32_t((row * ld + first) * 2));
    regs[i] = k - first >= 8 ? v : keepFirstElements(v, k - first);
  }
}

template <int Chunks, int Threads>
ARGUS_HIP_FN void storeOperandTile(char *lds, const u32x4 (&regs)[Chunks]) {
  const int item = workItem();
  for (int i = 0; i < Chunks; ++i) {
    const int q = item + i * Threads;
    *reinterpret_cast<u32x4 *>(lds + ldsByte(q / kChunksPerRow, q % kChunksPerRow)) = regs[i];
  }
}

/// The buffer over rows [first, first + min(tileRows, total - first)) of a
/// row-major operand with pitch ld (a multiple of 8) and k valid columns. Its
/// last row ends at k rounded up to 8, so every 16-byte load is wholly inside
/// (its elements past k are zeroed by the caller) or wholly past the end; a
/// chunk is 16-byte aligned and never crosses a page, so the few bytes past
/// the last element cannot fault.
ARGUS_HIP_FN BufferResource tileRows(const uint16_t *base, int64_t ld, int first, int total, int tileRows, int k) {
  const int rows = total - first < tileRows ? total - first : tileRows;
  return makeBuffer(base + first * ld, uint32_t(((rows - 1) * ld + (k + 7) / 8 * 8) * 2));
}

template <int BM, int BN, int WM, int WN>
ARGUS_HIP_FN void gemmTn(const GemmParams &p) {
  constexpr GemmShape shape{BM, BN, WM, WN};
  static_assert(shape.valid(), "GEMM tile: waves must split it into 32x32 blocks and LDS must hold it");
  constexpr int kThreads = shape.threads(), kBlocksM = shape.blocksM(), kBlocksN = shape.blocksN();

  ARGUS_LDS(ldsA, BM * kLdsRowBytes);
  ARGUS_LDS(ldsB, BN * kLdsRowBytes);

  const int m0 = workGroup(1) * BM, n0 = workGroup(0) * BN;
  const BufferResource aRows = tileRows(p.a, p.lda, m0, p.m, BM, p.k);
  const BufferResource bRows = tileRows(p.b, p.ldb, n0, p.n, BN, p.k);
  const int l = lane(), half = l / 32, r32 = l % 32;
  const int waveRow = (wave() / WN) * shape.waveRows(), waveCol = (wave() % WN) * shape.waveCols();

  f32x16 acc[kBlocksM][kBlocksN];
  for (int i = 0; i < kBlocksM; ++i)
    for (int j = 0; j < kBlocksN; ++j)
      acc[i][j] = f32x16{};

  u32x4 nextA[shape.chunksA()], nextB[shape.chunksB()];
  loadOperandTile<shape.chunksA(), kThreads>(aRows, p.lda, 0, p.k, nextA);
  loadOperandTile<shape.chunksB(), kThreads>(bRows, p.ldb, 0, p.k, nextB);
  for (int k0 = 0; k0 < p.k; k0 += kTileK) {
    storeOperandTile<shape.chunksA(), kThreads>(ldsA, nextA);
    storeOperandTile<shape.chunksB(), kThreads>(ldsB, nextB);
    barrier();
    if (k0 + kTileK < p.k) {
      loadOperandTile<shape.chunksA(), kThreads>(aRows, p.lda, k0 + kTileK, p.k, nextA);
      loadOperandTile<shape.chunksB(), kThreads>(bRows, p.ldb, k0 + kTileK, p.k, nextB);
    }
    for (int s = 0; s < kChunksPerRow / 2; ++s) {
      const int chunk = 2 * s + half;
      u32x4 fa[kBlocksM], fb[kBlocksN];
      for (int i = 0; i < kBlocksM; ++i)
        fa[i] = *reinterpret_cast<const u32x4 *>(ldsA + ldsByte(waveRow + 32 * i + r32, chunk));
      for (int j = 0; j < kBlocksN; ++j)
        fb[j] = *reinterpret_cast<const u32x4 *>(ldsB + ldsByte(waveCol + 32 * j + r32, chunk));
      for (int h = 0; h < 2; ++h)
        for (int i = 0; i < kBlocksM; ++i)
          for (int j = 0; j < kBlocksN; ++j)
            acc[i][j] = mfma32x32x8(operandHalf(fa[i], h), operandHalf(fb[j], h), acc[i][j]);
    }
    barrier();
  }

  for (int i = 0; i < kBlocksM; ++i)
    for (int j = 0; j < kBlocksN; ++j) {
      const int col = n0 + waveCol + 32 * j + r32;
      if (col >= p.n)
        continue;
      const float bias = p.bias ? bf16ToFloat(p.bias[col]) : 0.0f;
      for (int e = 0; e < 16; ++e) {
        const int row = m0 + waveRow + 32 * i + mfmaResultRow(l, e);
        if (row >= p.m)
          continue;
        uint16_t *out = p.c + row * p.ldc + col;
        float v = p.alpha * acc[i][j][e] + bias;
        if (p.beta != 0.0f)
          v += p.beta * bf16ToFloat(*out);
        *out = floatToBf16(v);
      }
    }
}

/// k == 0: C = beta·C + bias over the whole matrix (C not read when beta is 0),
/// grid-stride over 256 work-items per workgroup.
ARGUS_HIP_FN void gemmBetaScale(const GemmParams &p, int workGroups) {
  const int64_t total = int64_t(p.m) * p.n, stride = int64_t(workGroups) * 256;
  for (int64_t i = int64_t(workGroup(0)) * 256 + workItem(); i < total; i += stride) {
    const int64_t row = i / p.n, col = i % p.n;
    uint16_t *out = p.c + row * p.ldc + col;
    float v = p.bias ? bf16ToFloat(p.bias[col]) : 0.0f;
    if (p.beta != 0.0f)
      v += p.beta * bf16ToFloat(*out);
    *out = floatToBf16(v);
  }
}

} // namespace argus::hip

#endif // ARGUS_HIP_GEMM_KERNEL_H
