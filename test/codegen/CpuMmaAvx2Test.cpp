//===- CpuMmaAvx2Test.cpp - mma's three forms on AVX2 ---------------------===//
//
// argus_cpu_mma_avx2.h (the inner-product form), argus_cpu_mma_avx2_packed.h
// (the packed form) and argus_cpu_mma_avx2_lanes.h (the lanes form) against
// a float64 reference, compiled the way the cpu-avx2 target compiles kernels
// (-mavx2 -mfma -mf16c, no AVX-512): f32, bf16 and f16 tiles, dense and strided operands with NaN padding past each
// row, ragged M, N and K (partial vectors and panels, remainder row blocks,
// k not a multiple of the 8 x 8 transpose), b as N x K rows and as K x N
// (attention's P·V; few rows of it take the broadcast form), tiles too
// large for one panel or row group, and through ak::mma / ak::mma_kn, which
// must pick the form the tile's shape calls for.
//
//===----------------------------------------------------------------------===//
#include "MmaCase.h"

namespace {

using namespace argus::test;

bool haveAvx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}

template <class DT, int64_t M, int64_t N, int64_t K> void checkDot(const char *path) {
  checkPath<DT, M, N, K>(path, [](MmaCase<DT> &c) {
    ak::detail::mma_dot8<M, N, K, typename ak::detail::avx2_dot<DT>::type>(c.acc.data(), c.aRef(), c.bRef());
  });
}

TEST(CpuMmaAvx2, InnerProductFormForDecodeTiles) {
  if (!haveAvx2()) GTEST_SKIP() << "this CPU has no AVX2/FMA/F16C";
  checkDot<ak::bf16, 1, 64, 512>("bf16 dot8, one row");
  checkDot<ak::bf16, 1, 19, 1000>("bf16 dot8, single-column tail");
  checkDot<ak::bf16, 2, 37, 77>("bf16 dot8, two rows, partial vector");
  checkDot<ak::bf16, 3, 13, 37>("bf16 dot8, three rows");
  checkDot<ak::bf16, 4, 64, 256>("bf16 dot8, four rows");
  checkDot<ak::f16, 4, 9, 13>("f16 dot8");
  checkDot<ak::f16, 1, 8, 5>("f16 dot8, k shorter than a vector");
  checkDot<ak::f32, 1, 64, 256>("f32 dot8");
  checkDot<ak::f32, 3, 13, 37>("f32 dot8, ragged");
}

TEST(CpuMmaAvx2, ShortF32TilesInRowBlocks) {
  if (!haveAvx2()) GTEST_SKIP() << "this CPU has no AVX2/FMA/F16C";
  // More than one 4-row block: a strided a is first copied dense.
  checkDot<ak::f32, 16, 64, 512>("f32 dot8, 4 row blocks");
  checkDot<ak::f32, 23, 37, 300>("f32 dot8, ragged rows and columns");
  checkDot<ak::bf16, 3, 64, 4096>("bf16 dot8, long k");
  // 16-bit a is widened once per call, up to 64 KiB of it; past that it is widened in registers.
  checkDot<ak::bf16, 9, 24, 2100>("bf16 dot8, a too large to widen once");
}

template <class DT, int64_t M, int64_t N, int64_t K> void checkLanes(const char *path) {
  checkPath<DT, M, N, K>(path, [](MmaCase<DT> &c) {
    ak::detail::mma_lanes8<DT, M, N, K>(c.acc.data(), c.aRef(), c.bRef());
  });
}

TEST(CpuMmaAvx2, LanesFormForUpToThirtyTwoRows) {
  if (!haveAvx2()) GTEST_SKIP() << "this CPU has no AVX2/FMA/F16C";
  // One vector of rows (f32 only): 12 columns a block.
  checkLanes<ak::f32, 8, 64, 512>("f32 lanes, one full vector of rows");
  checkLanes<ak::f32, 5, 37, 256>("f32 lanes, five rows, ragged columns");
  // Two vectors: 6 columns a block.
  checkLanes<ak::f32, 16, 64, 512>("f32 lanes, two full vectors of rows");
  checkLanes<ak::bf16, 16, 64, 512>("bf16 lanes, two full vectors of rows");
  checkLanes<ak::f32, 9, 37, 256>("f32 lanes, ragged rows and columns");
  checkLanes<ak::bf16, 13, 23, 1024>("bf16 lanes, ragged rows and columns, longest k");
  checkLanes<ak::bf16, 12, 6, 264>("bf16 lanes, one block of columns");
  checkLanes<ak::f32, 15, 5, 304>("f32 lanes, fewer columns than a block");
  // Three and four vectors: 4 and 3 columns a block.
  checkLanes<ak::bf16, 24, 13, 512>("bf16 lanes, three vectors");
  checkLanes<ak::f32, 17, 50, 256>("f32 lanes, three vectors, ragged");
  checkLanes<ak::bf16, 32, 64, 256>("bf16 lanes, four vectors");
  checkLanes<ak::f32, 29, 7, 512>("f32 lanes, four vectors, ragged");
}

TEST(CpuMmaAvx2, EntryPointPicksTheFormForTheShape) {
  if (!haveAvx2()) GTEST_SKIP() << "this CPU has no AVX2/FMA/F16C";
  checkPath<ak::bf16, 1, 40, 300>("ak::mma bf16", [](MmaCase<ak::bf16> &c) {
    ak::mma<ak::bf16, 1, 40, 300>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::f32, 12, 40, 260>("ak::mma f32", [](MmaCase<ak::f32> &c) {
    ak::mma<ak::f32, 12, 40, 260>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 16, 40, 512>("ak::mma bf16, lanes", [](MmaCase<ak::bf16> &c) {
    ak::mma<ak::bf16, 16, 40, 512>(c.acc.data(), c.aRef(), c.bRef());
  });
  // Taller tiles take the packed form.
  checkPath<ak::bf16, 16, 20, 70>("ak::mma bf16, packed", [](MmaCase<ak::bf16> &c) {
    ak::mma<ak::bf16, 16, 20, 70>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::f32, 37, 50, 64, BLayout::KN>("ak::mma_kn f32, packed", [](MmaCase<ak::f32> &c) {
    ak::mma_kn<ak::f32, 37, 50, 64>(c.acc.data(), c.aRef(), c.bRef());
  });
}

template <class DT, int64_t M, int64_t N, int64_t K, BLayout L = BLayout::NK> void checkPacked(const char *path) {
  checkPath<DT, M, N, K, L>(path, [](MmaCase<DT> &c) {
    ak::detail::mma_packed8<DT, M, N, K, L>(c.acc.data(), c.aRef(), c.bRef());
  });
}

TEST(CpuMmaAvx2, PackedFormForTallTiles) {
  if (!haveAvx2()) GTEST_SKIP() << "this CPU has no AVX2/FMA/F16C";
  checkPacked<ak::f32, 64, 64, 256>("f32 packed, whole blocks");
  checkPacked<ak::f32, 37, 45, 29>("f32 packed, ragged rows, panels and k");
  checkPacked<ak::f32, 5, 7, 3>("f32 packed, one partial block");
  checkPacked<ak::bf16, 128, 48, 64>("bf16 packed");
  checkPacked<ak::bf16, 61, 100, 300>("bf16 packed, ragged");
  checkPacked<ak::f16, 13, 17, 19>("f16 packed, ragged");
  // 4096-deep k: one panel per group, so the a rows are widened once per panel.
  checkPacked<ak::bf16, 7, 40, 4096>("bf16 packed, panel groups");
  // More than 128 KiB of a: rows in groups (30 + 10 and 24 + 21 here), each passing every panel.
  checkPacked<ak::bf16, 40, 20, 1000>("bf16 packed, row groups");
  checkPacked<ak::f32, 45, 33, 1100>("f32 packed, row groups");
}

template <class DT, int64_t M, int64_t N, int64_t K> void checkKnRows(const char *path) {
  checkPath<DT, M, N, K, BLayout::KN>(path, [](MmaCase<DT> &c) {
    ak::detail::mma_kn_rows8<M, N, K, typename ak::detail::avx2_dot<DT>::type>(c.acc.data(), c.aRef(), c.bRef());
  });
}

TEST(CpuMmaAvx2, BroadcastFormForFewRowsOfValues) {
  if (!haveAvx2()) GTEST_SKIP() << "this CPU has no AVX2/FMA/F16C";
  checkKnRows<ak::bf16, 4, 128, 16>("bf16 kn rows, decode's P·V (GQA 4, a page of 16)");
  checkKnRows<ak::bf16, 1, 64, 32>("bf16 kn rows, one row");
  checkKnRows<ak::bf16, 3, 37, 13>("bf16 kn rows, ragged: a partial second vector");
  checkKnRows<ak::f16, 2, 5, 9>("f16 kn rows, fewer columns than a vector");
  checkKnRows<ak::f32, 4, 24, 7>("f32 kn rows, one and a half blocks");
  checkKnRows<ak::f32, 1, 200, 3>("f32 kn rows, many blocks");
  checkPath<ak::bf16, 2, 40, 16, BLayout::KN>("ak::mma_kn bf16, two rows", [](MmaCase<ak::bf16> &c) {
    ak::mma_kn<ak::bf16, 2, 40, 16>(c.acc.data(), c.aRef(), c.bRef());
  });
}

TEST(CpuMmaAvx2, PackedFormReadsValuesAsKRows) {
  if (!haveAvx2()) GTEST_SKIP() << "this CPU has no AVX2/FMA/F16C";
  checkPacked<ak::f32, 64, 128, 64, BLayout::KN>("f32 packed, P·V");
  checkPacked<ak::bf16, 33, 70, 13, BLayout::KN>("bf16 packed, P·V, ragged");
  checkPacked<ak::f16, 6, 9, 40, BLayout::KN>("f16 packed, P·V");
}

} // namespace
