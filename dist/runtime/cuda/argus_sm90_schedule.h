// The integer bookkeeping of the Hopper GEMM kernels: which tile a persistent CTA takes next, where
// a CTA is in the stage ring, how split-K ranks share slices and rows, and where an output element
// sits in the swizzled store buffer. Plain C++ that nvcc compiles for the device and any C++17
// compiler for the host, so that its invariants are unit-tested without a GPU
// (test/cuda/Sm90ScheduleTest.cpp).
#pragma once

#include "argus_host_device.h"

#include <cstdint>
#include <string>

namespace argus::sm90 {

struct TilePosition {
  int m, n;  // tile row and column
};

// Tile `t` of a persistent walk, in bands of `groupM` tile rows, column by column inside a band:
// CTAs in flight together cover a few rows and columns of tiles rather than one long row, so
// their operands stay in L2. A bijection from [0, tilesM * tilesN) onto the tiles.
ARGUS_HOST_DEVICE TilePosition rasterizeTile(int t, int tilesM, int tilesN, int groupM) {
  const int perBand = groupM * tilesN;
  const int firstM = (t / perBand) * groupM;
  const int bandRows = tilesM - firstM < groupM ? tilesM - firstM : groupM;
  const int within = t % perBand;
  return {firstM + within % bandRows, within / bandRows};
}

// Position in the ring of `stages` shared-memory stages. Persistent CTAs continue it across tiles,
// so producer and consumers count slices, not tiles. Consumers wait on a stage's "full" barrier
// for parity `phase`; the producer waits on its "empty" barrier for `phase ^ 1`, which a fresh
// barrier counts as its completed preceding phase, so the first round of stages is free.
struct RingCursor {
  int stage = 0;
  uint32_t phase = 0;
  ARGUS_HOST_DEVICE uint32_t fullParity() const { return phase; }       // consumers: the stage is loaded
  ARGUS_HOST_DEVICE uint32_t emptyParity() const { return phase ^ 1; }  // producer: the stage is released
  ARGUS_HOST_DEVICE void advance(int stages) {
    if (++stage == stages) {
      stage = 0;
      phase ^= 1;
    }
  }
};

// Part `index` of [0, total) cut into `parts` nearly equal, contiguous pieces: [begin, end).
struct Range {
  int begin, end;
};
ARGUS_HOST_DEVICE Range splitRange(int total, int index, int parts) {
  return {int(int64_t(total) * index / parts), int(int64_t(total) * (index + 1) / parts)};
}

// wgmma m64nN accumulator fragment: register 4j + {0,1} holds row lane/4, columns 8j + 2(lane%4)
// + {0,1} of the warp's 16 rows; 4j + {2,3} the same columns eight rows down.
ARGUS_HOST_DEVICE int fragmentRow(int warp, int lane) { return warp * 16 + lane / 4; }
ARGUS_HOST_DEVICE int fragmentColumn(int j, int lane) { return j * 8 + (lane % 4) * 2; }

// Byte offset of element (row, col) of a consumer's 64-row output tile as the TMA store reads it:
// boxes of 64 rows x 128 bytes side by side, each 128-byte swizzled (16-byte chunk c of row r
// stored at chunk c ^ (r % 8)), so that a warp's fragment writes fall in distinct banks.
ARGUS_HOST_DEVICE uint32_t outputBoxOffset(int row, int col, int elementBytes) {
  const int columnsPerBox = 128 / elementBytes;
  const int box = col / columnsPerBox, byte = (col % columnsPerBox) * elementBytes;
  return uint32_t(box * 64 * 128 + row * 128 + (((byte >> 4) ^ (row & 7)) << 4) + (byte & 15));
}

// One compiled GEMM configuration: a persistent tile kernel (large M), a split-K cluster tile
// kernel, or the few-rows kernel (argus_sm90_gemm_rows.cuh: bm = 8 or 16 rows of A, bn = its 16
// weight rows per CTA, stages = its k steps per warp turn, kRowsWarps warps).
enum class GemmSchedule { Persistent, SplitK, Rows };

struct GemmConfig {
  GemmSchedule schedule;
  int bm, bn, stages, split;
};

inline constexpr int kRowsWarps = 8, kRowsUnroll = 2;

// The name a configuration goes by in the benchmark, the sweeps and the library's kernel names:
// p_64x128_s6, k_64x128_s4_k4 (split 4), r8_w8_u2_k2 (the few-rows kernel on `rowsWarps` warps).
inline std::string gemmConfigName(const GemmConfig &c, int rowsWarps = kRowsWarps) {
  const std::string split = c.split > 1 ? "_k" + std::to_string(c.split) : "";
  if (c.schedule == GemmSchedule::Rows)
    return "r" + std::to_string(c.bm) + "_w" + std::to_string(rowsWarps) + "_u" + std::to_string(c.stages) + split;
  return std::string(c.schedule == GemmSchedule::Persistent ? "p_" : "k_") + std::to_string(c.bm) + "x" +
         std::to_string(c.bn) + "_s" + std::to_string(c.stages) + split;
}

// The configuration for an M x N x K product when no measurement is at hand: a build without a
// GPU, or a shape outside the catalog. test/cuda/Sm90ConfigTest.cpp holds it to the sweeps it was
// fitted to.
// - M <= 16 (fitted to the H200 sweep bench/results/cuda-gemm-h200-decode-rows.jsonl): the
//   few-rows kernel, its split doubling while the doubled grid fits 4 CTAs per SM. Up to 8 rows
//   always; 9-16 rows (two mma blocks of tokens, 64 registers) only while the row groups fit 4
//   CTAs per SM and each CTA's k range is at most 4096, else a tile kernel is faster.
// - M <= 64 streams the weights (fitted to the H100 sweep in bench/results/cuda-gemm-h100.md,
//   whose winners it reproduces within 0.7% in geometric mean): 64-row tiles; a persistent
//   64 x 128 kernel when N gives 64 or more column tiles, else split-K, doubling the split while
//   the CTAs still fit the SMs.
// - Larger M: the persistent 128 x BN kernel whose tile count wastes the least of its last wave,
//   wider tiles first; when even that keeps half the SMs idle, 128 x 128 tiles with split 2.
ARGUS_HOST_DEVICE GemmConfig chooseGemmConfig(int64_t m, int64_t n, int64_t k, int multiprocessors) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  if (m <= 16) {
    const int64_t rowGroups = ceilDiv(n, 16);
    int split = 1;
    while (split < 8 && 2 * split * rowGroups <= 4 * multiprocessors)
      split *= 2;
    if (m <= 8 || (rowGroups <= 4 * multiprocessors && k / split <= 4096))
      return {GemmSchedule::Rows, m <= 8 ? 8 : 16, 16, kRowsUnroll, split};
  }
  if (m <= 64) {
    const int64_t tiles = ceilDiv(n, 128);
    if (tiles >= 64)
      return {GemmSchedule::Persistent, 64, 128, 6, 1};
    int split = 1;
    while (split < 8 && 2 * split * tiles <= multiprocessors)
      split *= 2;
    return {GemmSchedule::SplitK, 64, 128, 4, split};
  }
  struct Width {
    int bn, stages;
    double efficiency;  // of a full wave of such tiles, from the sweep's large shapes
  };
  const Width widths[] = {{256, 3, 1.0}, {192, 4, 1.0}, {160, 4, 0.93}, {128, 5, 0.97}};
  Width best = widths[0];
  double bestCost = 0;
  int64_t bestTiles = 0;
  for (const Width &w : widths) {
    const int64_t tiles = ceilDiv(m, 128) * ceilDiv(n, w.bn);
    // rounds of tiles x the time of one tile, which grows as BN / efficiency
    const double cost = double(ceilDiv(tiles, multiprocessors)) * w.bn / w.efficiency;
    if (bestTiles == 0 || cost < bestCost)
      best = w, bestCost = cost, bestTiles = tiles;
  }
  if (2 * bestTiles <= multiprocessors)
    return {GemmSchedule::SplitK, 128, 128, 4, 2};
  return {GemmSchedule::Persistent, 128, best.bn, best.stages, 1};
}

}  // namespace argus::sm90
