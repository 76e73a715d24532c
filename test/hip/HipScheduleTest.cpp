// Invariants of the CDNA GEMM's bookkeeping (dist/runtime/hip/argus_hip_schedule.h): the LDS
// swizzle is the layout algebra's Sw<3,3,3>, every access group the hardware serves together hits
// distinct banks, each kernel shape fits its workgroup, and the rule picks sensible shapes.
#include "argus_hip_schedule.h"

#include "argus/Layout/Swizzle.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace argus::hip;

namespace {

TEST(HipSchedule, LdsPlacementIsSwizzle333OnBf16) {
  const auto swizzle = argus::layout::makeSwizzle(3, 3, 3);
  ASSERT_TRUE(bool(swizzle));
  for (int row = 0; row < 256; ++row)
    for (int chunk = 0; chunk < kChunksPerRow; ++chunk)
      for (int element = 0; element < 8; ++element) {
        const int64_t logical = int64_t(row) * kTileK + chunk * 8 + element;
        ASSERT_EQ(ldsByte(row, chunk) + 2 * element, 2 * (*swizzle)(logical)) << row << "," << chunk;
      }
}

// LDS has 32 banks of 4 bytes; ds_read_b128 / ds_write_b128 serve eight lanes at a time, which
// must then cover 8 distinct 16-byte bank groups (all 32 banks).
void expectDistinctBankGroups(const std::set<int> &offsets, const std::string &what) {
  std::set<int> groups;
  for (int offset : offsets)
    groups.insert((offset / 16) % 8);
  EXPECT_EQ(groups.size(), 8u) << what;
}

TEST(HipSchedule, OperandReadsAndTileWritesAreConflictFree) {
  for (int firstRow = 0; firstRow < 256; firstRow += 32)
    for (int chunk = 0; chunk < kChunksPerRow; ++chunk)
      for (int group = 0; group < 4; ++group) {  // lanes 8g..8g+7 of one 32-row operand read
        std::set<int> offsets;
        for (int r = 8 * group; r < 8 * group + 8; ++r)
          offsets.insert(ldsByte(firstRow + r, chunk));
        expectDistinctBankGroups(offsets, "read of rows from " + std::to_string(firstRow + 8 * group));
      }
  for (int q0 = 0; q0 < 256 * kChunksPerRow; q0 += 8) {  // work-items 8g..8g+7 storing a tile
    std::set<int> offsets;
    for (int q = q0; q < q0 + 8; ++q)
      offsets.insert(ldsByte(q / kChunksPerRow, q % kChunksPerRow));
    expectDistinctBankGroups(offsets, "write " + std::to_string(q0));
  }
}

TEST(HipSchedule, EveryKernelShapeFitsItsWorkgroup) {
  for (const GemmShape &s : kGemmShapes) {
    EXPECT_TRUE(s.valid()) << s.bm << "x" << s.bn;
    EXPECT_LE(s.ldsBytes(), kMaxLdsBytes);
    EXPECT_EQ(s.blocksM() * 32 * s.wm, s.bm);
    EXPECT_EQ(s.blocksN() * 32 * s.wn, s.bn);
    EXPECT_EQ((s.chunksA() + s.chunksB()) * s.threads(), (s.bm + s.bn) * kChunksPerRow);
  }
  EXPECT_FALSE((GemmShape{256, 256, 8, 8}.valid())) << "4096 work-items";
  EXPECT_FALSE((GemmShape{512, 256, 2, 4}.valid())) << "96 KiB of LDS";
  EXPECT_FALSE((GemmShape{96, 64, 2, 2}.valid())) << "48-row wave tile";
}

TEST(HipSchedule, RulePicksLargeTilesForPrefillAndSmallForDecode) {
  const GemmShape prefill = chooseGemmShape(8192, 8192, computeUnits(true));
  EXPECT_EQ(prefill.bm, 256);
  EXPECT_EQ(prefill.bn, 256);
  // 128 tiles of 256x256 would leave more than half of MI300X's 304 compute units idle.
  const GemmShape shorter = chooseGemmShape(2048, 4096, computeUnits(true));
  EXPECT_EQ(shorter.bm, 128);
  EXPECT_EQ(shorter.bn, 256);
  for (int64_t m : {1, 7, 16, 31}) {
    const GemmShape decode = chooseGemmShape(m, 4096, computeUnits(true));
    EXPECT_EQ(decode.bm, 32) << m;
  }
  // Whatever it picks, at least half of the compute units get a workgroup when any shape can give them one.
  for (int64_t m : {64, 200, 512, 1000, 4096})
    for (int64_t n : {1024, 4096, 14336}) {
      const GemmShape s = chooseGemmShape(m, n, computeUnits(false));
      const int64_t tiles = ((m + s.bm - 1) / s.bm) * ((n + s.bn - 1) / s.bn);
      const GemmShape smallest = kGemmShapes[kGemmShapeCount - 1];
      const int64_t most = ((m + smallest.bm - 1) / smallest.bm) * ((n + smallest.bn - 1) / smallest.bn);
      if (2 * most >= computeUnits(false))
        EXPECT_GE(2 * tiles, computeUnits(false)) << m << "x" << n;
    }
}

TEST(HipSchedule, KernelSymbolsNameTheirShape) {
  char name[48];
  gemmKernelSymbol(GemmShape{256, 256, 2, 4}, false, name);
  EXPECT_STREQ(name, "argus_hip_gemm_256x256_w2x4");
  gemmKernelSymbol(GemmShape{32, 64, 1, 2}, true, name);
  EXPECT_STREQ(name, "argus_hip_gemm_f16_32x64_w1x2");
}

} // namespace
