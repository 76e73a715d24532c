// The integer bookkeeping of the Hopper GEMM kernels: which tile a persistent CTA takes next, where
// a CTA is in the stage ring, how split-K ranks share slices and rows, and where an output element
// sits in the swizzled store buffer. Plain C++ that nvcc compiles for the device and any C++17
// compiler for the host, so that its invariants are unit-tested without a GPU
// (test/cuda/Sm90ScheduleTest.cpp).
#pragma once

#include "argus_host_device.h"

#include <cstdint>

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

// One compiled GEMM configuration: a persistent kernel (large M) or a split-K cluster kernel.
struct GemmConfig {
  bool persistent;
  int bm, bn, stages, split;
};

// The configuration for an M x N output when no measurement is at hand: a build without a GPU,
// or a shape outside the catalog. Fitted to the H100 sweep in bench/results/cuda-gemm-h100.md,
// whose winners it reproduces within 0.7% in geometric mean (7% at worst; 2.2% and 16% on an
// earlier run's prefill shapes). test/cuda/Sm90ScheduleTest.cpp holds it to that sweep.
// - M <= 64 streams the weights: 64-row tiles; a persistent 64 x 128 kernel when N gives 64 or
//   more column tiles, else split-K, doubling the split while the CTAs still fit the SMs.
// - Larger M: the persistent 128 x BN kernel whose tile count wastes the least of its last wave,
//   wider tiles first; when even that keeps half the SMs idle, 128 x 128 tiles with split 2.
ARGUS_HOST_DEVICE GemmConfig chooseGemmConfig(int64_t m, int64_t n, int multiprocessors) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  if (m <= 64) {
    const int64_t tiles = ceilDiv(n, 128);
    if (tiles >= 64)
      return {true, 64, 128, 6, 1};
    int split = 1;
    while (split < 8 && 2 * split * tiles <= multiprocessors)
      split *= 2;
    return {false, 64, 128, 4, split};
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
    return {false, 128, 128, 4, 2};
  return {true, 128, best.bn, best.stages, 1};
}

}  // namespace argus::sm90
