//===- argus_hip_mfma_tile.h - one output tile of A·Bᵀ on CDNA MFMA --------===//
//
// The main loop every CDNA matrix kernel shares (GEMM, the MoE experts): one
// workgroup accumulates a BM x BN tile of A·Bᵀ (bf16 or f16) over k in steps
// of 64,
//
//   registers <- A, B rows of step 0            (the callers' fetch functors)
//   for each step:
//     LDS <- registers                           (swizzled, argus_hip_schedule.h)
//     barrier
//     registers <- A, B rows of the next step    (in flight during the MFMAs)
//     each wave: 8 x (ds_read_b128 per 32 rows, 2 MFMA 32x32x8 per block pair)
//     barrier                                    (before LDS is overwritten)
//
// The k order inside a step is free as long as A and B agree: lane l reads
// chunk 2s + l/32 of its row and feeds its low half to one MFMA and its high
// half to the next, so every ds_read is a full 16-byte access. Where a row of
// A or B comes from is the caller's: a buffer over contiguous rows (GEMM), a
// gathered token (MoE), an expert's weight rows.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_MFMA_TILE_H
#define ARGUS_HIP_MFMA_TILE_H

#include "argus_hip_device.h"
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
ARGUS_HIP_FN b16x4 operandHalf(u32x4 v, int half) {
  const uint64_t bits = uint64_t(v[2 * half]) | (uint64_t(v[2 * half + 1]) << 32);
  return __builtin_bit_cast(b16x4, bits);
}

/// Loads this work-item's `Chunks` 16-byte chunks of a rows x 64 operand tile
/// starting at element k0: chunk i is row q / 8, chunk q % 8, q = item + i·threads.
/// fetch(row, first) returns the 16 bytes of tile row `row` from element
/// `first` (< k); elements past k are zeroed here, chunks wholly past k are
/// not fetched.
template <int Chunks, int Threads, class Fetch>
ARGUS_HIP_FN void loadOperandTile(const Fetch &fetch, int k0, int k, u32x4 (&regs)[Chunks]) {
  const int item = workItem();
  for (int i = 0; i < Chunks; ++i) {
    const int q = item + i * Threads;
    const int row = q / kChunksPerRow, first = k0 + (q % kChunksPerRow) * 8;
    if (first >= k) {
      regs[i] = u32x4{0, 0, 0, 0};
      continue;
    }
    const u32x4 v = fetch(row, first);
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

/// Tile rows [first, first + min(tileRows, total - first)) of a row-major
/// operand with pitch ld (a multiple of 8) and k valid columns, read through
/// one buffer resource whose last row ends at k rounded up to 8: every 16-byte
/// load is wholly inside or wholly past the end (rows past `total` read
/// zeros); a chunk is 16-byte aligned and never crosses a page, so the few
/// bytes past the last element cannot fault.
struct BufferRows {
  BufferResource rows;
  int64_t ld;

  ARGUS_HIP_FN BufferRows(const uint16_t *base, int64_t ld, int first, int total, int tileRows, int k) : ld(ld) {
    const int count = total - first < tileRows ? total - first : tileRows;
    rows = makeBuffer(base + first * ld, uint32_t(((count - 1) * ld + (k + 7) / 8 * 8) * 2));
  }
  ARGUS_HIP_FN u32x4 operator()(int row, int first) const {
    return bufferLoad16(rows, uint32_t((row * ld + first) * 2));
  }
};

/// The accumulators of one wave: kBlocksM x kBlocksN blocks of 32x32 results.
template <int BM, int BN, int WM, int WN>
struct TileAccumulators {
  static constexpr GemmShape kShape{BM, BN, WM, WN};
  f32x16 block[kShape.blocksM()][kShape.blocksN()];
  int waveRow, waveCol;  // the wave's first row and column in the tile
};

/// acc = A·Bᵀ over k for this workgroup's tile of E elements; fetchA / fetchB give tile rows.
template <Element E, int BM, int BN, int WM, int WN, class FetchA, class FetchB>
ARGUS_HIP_FN void mfmaTile(const FetchA &fetchA, const FetchB &fetchB, int k, TileAccumulators<BM, BN, WM, WN> &acc) {
  constexpr GemmShape shape{BM, BN, WM, WN};
  static_assert(shape.valid(), "tile: waves must split it into 32x32 blocks and LDS must hold it");
  constexpr int kThreads = shape.threads(), kBlocksM = shape.blocksM(), kBlocksN = shape.blocksN();

  ARGUS_LDS(ldsA, BM * kLdsRowBytes);
  ARGUS_LDS(ldsB, BN * kLdsRowBytes);
  const int l = lane(), half = l / 32, r32 = l % 32;
  acc.waveRow = (wave() / WN) * shape.waveRows();
  acc.waveCol = (wave() % WN) * shape.waveCols();
  for (int i = 0; i < kBlocksM; ++i)
    for (int j = 0; j < kBlocksN; ++j)
      acc.block[i][j] = f32x16{};

  u32x4 nextA[shape.chunksA()], nextB[shape.chunksB()];
  loadOperandTile<shape.chunksA(), kThreads>(fetchA, 0, k, nextA);
  loadOperandTile<shape.chunksB(), kThreads>(fetchB, 0, k, nextB);
  for (int k0 = 0; k0 < k; k0 += kTileK) {
    storeOperandTile<shape.chunksA(), kThreads>(ldsA, nextA);
    storeOperandTile<shape.chunksB(), kThreads>(ldsB, nextB);
    barrier();
    if (k0 + kTileK < k) {
      loadOperandTile<shape.chunksA(), kThreads>(fetchA, k0 + kTileK, k, nextA);
      loadOperandTile<shape.chunksB(), kThreads>(fetchB, k0 + kTileK, k, nextB);
    }
    for (int s = 0; s < kChunksPerRow / 2; ++s) {
      const int chunk = 2 * s + half;
      u32x4 fa[kBlocksM], fb[kBlocksN];
      for (int i = 0; i < kBlocksM; ++i)
        fa[i] = *reinterpret_cast<const u32x4 *>(ldsA + ldsByte(acc.waveRow + 32 * i + r32, chunk));
      for (int j = 0; j < kBlocksN; ++j)
        fb[j] = *reinterpret_cast<const u32x4 *>(ldsB + ldsByte(acc.waveCol + 32 * j + r32, chunk));
      for (int h = 0; h < 2; ++h)
        for (int i = 0; i < kBlocksM; ++i)
          for (int j = 0; j < kBlocksN; ++j)
            acc.block[i][j] = mfma32x32x8<E>(operandHalf(fa[i], h), operandHalf(fb[j], h), acc.block[i][j]);
    }
    barrier();
  }
}

} // namespace argus::hip

#endif // ARGUS_HIP_MFMA_TILE_H
