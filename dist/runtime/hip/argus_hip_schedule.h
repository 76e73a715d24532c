//===- argus_hip_schedule.h - the CDNA GEMM's tiles, LDS swizzle and rule --===//
//
// The LDS swizzle of the CDNA kernels' operand tiles (the templates'
// swizzle(3, 3, 3)) and the GEMM kernel shapes of a hip library (generated
// from templates/gemm/gemm_tn_cdna.argus), as constexpr C++ that clang
// compiles for gfx90a/gfx942 and any C++17 compiler for the host, so the host runtime plans with the very numbers the
// kernels use and test/hip checks their invariants without a GPU.
//
// LDS holds each operand tile as rows of BK = 64 bf16, one 128-byte row per
// tile row, in 16-byte chunks placed by an XOR swizzle:
//
//   byte(row, chunk) = 128·row + 16·(chunk ^ (row mod 8))      (Sw<3,3,3> on bf16)
//
// Eight consecutive work-items write one row's eight chunks (16 bytes each,
// one coalesced 128-byte global read); an MFMA operand read takes the same
// chunk of 32 consecutive rows, which the swizzle spreads over all 32 banks
// for every eight lanes that ds_read_b128 serves together.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_SCHEDULE_H
#define ARGUS_HIP_SCHEDULE_H

#include <stdint.h>

namespace argus::hip {

inline constexpr int kTileK = 64;          // bf16 per LDS row
inline constexpr int kChunksPerRow = 8;    // 16-byte chunks per LDS row
inline constexpr int kLdsRowBytes = 128;
inline constexpr int kMaxLdsBytes = 65536; // one workgroup, gfx90a and gfx942

constexpr int ldsByte(int row, int chunk) { return kLdsRowBytes * row + 16 * (chunk ^ (row & 7)); }

/// One GEMM kernel's shape: a BM x BN tile of C per workgroup, WM x WN waves,
/// each wave a (BM/WM) x (BN/WN) block of 32x32 MFMA results.
struct GemmShape {
  int bm, bn, wm, wn;
  /// Whether the library has an f16 kernel of it too (argus_hip_gemm_f16_*),
  /// besides the bf16 one.
  bool inF16 = true;

  constexpr int waves() const { return wm * wn; }
  constexpr int threads() const { return waves() * 64; }
  constexpr int waveRows() const { return bm / wm; }
  constexpr int waveCols() const { return bn / wn; }
  constexpr int blocksM() const { return waveRows() / 32; }
  constexpr int blocksN() const { return waveCols() / 32; }
  constexpr int chunksA() const { return bm * kChunksPerRow / threads(); }  // per work-item
  constexpr int chunksB() const { return bn * kChunksPerRow / threads(); }
  constexpr int ldsBytes() const { return (bm + bn) * kLdsRowBytes; }
  /// Accumulator registers per lane: 16 per 32x32 block (AGPRs on gfx90a, VGPRs or AGPRs on gfx942).
  constexpr int accumulatorRegisters() const { return 16 * blocksM() * blocksN(); }

  /// The kernels' preconditions, checked at compile time where they are instantiated.
  constexpr bool valid() const {
    return bm > 0 && bn > 0 && wm > 0 && wn > 0 && bm % (32 * wm) == 0 && bn % (32 * wn) == 0 &&
           (bm * kChunksPerRow) % threads() == 0 && (bn * kChunksPerRow) % threads() == 0 &&
           threads() <= 1024 && ldsBytes() <= kMaxLdsBytes;
  }
  constexpr bool operator==(const GemmShape &o) const {
    return bm == o.bm && bn == o.bn && wm == o.wm && wn == o.wn;
  }
};

/// Every GEMM kernel shape a hip library's code object holds (each an
/// instance of templates/gemm/gemm_tn_cdna.argus, bf16 and f16), largest tile
/// first. The largest is HipKittens' and hipBLASLt's 256x256 on eight waves:
/// each wave's 128 x 64 quadrant is 128 accumulator registers of the 256 an
/// 8-wave workgroup leaves a lane, and all 64 KiB of LDS. In bf16 it takes
/// 225 VGPRs (its epilogue reads C one element at a time, ElementwiseFusion.h:
/// read whole, C and the accumulator together spilled 43 registers); in f16
/// clang spills 14 at the join of the bias branch, so f16 calls stop at 128x256.
inline constexpr GemmShape kGemmShapes[] = {
    {256, 256, 2, 4, /*inF16=*/false},
    {128, 256, 2, 4},
    {128, 128, 2, 2},
    {64, 128, 2, 2},
    {32, 64, 1, 2},
};
inline constexpr int kGemmShapeCount = int(sizeof(kGemmShapes) / sizeof(kGemmShapes[0]));

/// Compute units: MI300X has 304, one MI250X GCD 110 (MI250: 104).
constexpr int computeUnits(bool gfx942) { return gfx942 ? 304 : 104; }

/// The kernel for an m x n GEMM (bf16, or f16) on `units` compute units: the
/// largest tile that still gives at least half of the compute units a
/// workgroup, else the smallest tile (decode: m <= 64 leaves too few tiles
/// for any larger shape). A rule by occupancy, not fitted to measurements:
/// no AMD GPU has run these kernels.
constexpr GemmShape chooseGemmShape(int64_t m, int64_t n, int units, bool f16 = false) {
  for (const GemmShape &s : kGemmShapes) {
    if (f16 && !s.inF16)
      continue;
    const int64_t tiles = ((m + s.bm - 1) / s.bm) * ((n + s.bn - 1) / s.bn);
    // Not a tile that is mostly padding: m must fill at least half of its rows.
    if (2 * tiles >= units && 2 * m >= s.bm)
      return s;
  }
  return kGemmShapes[kGemmShapeCount - 1];
}

/// The symbol of the kernel for `s` in the code object: argus_hip_gemm_128x256_w2x4
/// (bf16), argus_hip_gemm_f16_128x256_w2x4 (f16). Written into `out` (at least 48 bytes).
inline void gemmKernelSymbol(const GemmShape &s, bool f16, char *out) {
  const int values[4] = {s.bm, s.bn, s.wm, s.wn};
  const char *separators[4] = {"", "x", "_w", "x"};
  char *p = out;
  for (const char *c = f16 ? "argus_hip_gemm_f16_" : "argus_hip_gemm_"; *c; ++c)
    *p++ = *c;
  for (int i = 0; i < 4; ++i) {
    for (const char *c = separators[i]; *c; ++c)
      *p++ = *c;
    char digits[12];
    int count = 0;
    for (int v = values[i]; v > 0 || count == 0; v /= 10)
      digits[count++] = char('0' + v % 10);
    while (count)
      *p++ = digits[--count];
  }
  *p = '\0';
}

} // namespace argus::hip

#endif // ARGUS_HIP_SCHEDULE_H
