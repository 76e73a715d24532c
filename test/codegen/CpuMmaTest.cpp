//===- CpuMmaTest.cpp - the mma micro-kernels of argus_cpu_mma.h ----------===//
//
// Every path of ak::mma against a float64 reference, called directly so that
// each is covered whatever the CPU would pick: the inner-product form
// (short tiles), the lanes form (9-16 rows), the packed broadcast form (f32 FMA, bf16 vdpbf16ps)
// and AMX tiles, with b as N x K rows (ak::mma) and as K x N rows (ak::mma_kn). Operands come both as dense tiles and as tile_refs with a
// row stride larger than K (a tile read in place inside a wider tensor);
// shapes are ragged (N not a multiple of the panel or block width, odd K).
// The accumulator starts from random values: mma adds to it. This file is
// compiled for AVX-512 with BF16; paths the CPU lacks are skipped.
//
//===----------------------------------------------------------------------===//
#include "MmaCase.h"

#include <set>

namespace {

using namespace argus::test;

bool haveAvx512() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"); }
bool haveAvx512Bf16() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16"); }

TEST(CpuMma, InnerProductFormForDecodeTiles) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  checkPath<ak::f32, 1, 64, 256>("f32 dot", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_dot<1, 64, 256, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::f32, 3, 13, 37>("f32 dot", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_dot<3, 13, 37, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 1, 19, 1000>("bf16 dot", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot<1, 19, 1000, ak::detail::bf16_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 4, 64, 77>("bf16 dot", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot<4, 64, 77, ak::detail::bf16_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::f32, 2, 37, 50>("f32 dot", [](MmaCase<ak::f32> &c) { // 8-column blocks and a tail
    ak::detail::mma_dot<2, 37, 50, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
}

TEST(CpuMma, WidenedInnerProductForm) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // bf16 on f32 FMAs: decode attention's q k^T (4 x 16 x 128), k ending
  // inside a 32-k step (77, 1000: zero-padded a, masked b), single-column
  // blocks (13 columns of 3 rows), strided operands (MmaCase pads rows).
  checkPath<ak::bf16, 4, 16, 128>("bf16 widened dot, decode q.k", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot_widened<4, 16, 128>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 2, 19, 1000>("bf16 widened dot", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot_widened<2, 19, 1000>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 3, 13, 77>("bf16 widened dot", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot_widened<3, 13, 77>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 4, 64, 5>("bf16 widened dot, k shorter than a step", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot_widened<4, 64, 5>(c.acc.data(), c.aRef(), c.bRef());
  });
  EXPECT_FALSE(ak::detail::bf16_widen_fits<1>()); // one row: vdpbf16ps does the widening's work in one
  EXPECT_TRUE(ak::detail::bf16_widen_fits<2>());
}

TEST(CpuMma, InnerProductFormForShortTiles) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // Several 4-row blocks per column block; with a strided a (pad 6) the rows
  // are first copied dense. 23 rows end in a 3-row block, 37 columns in
  // single-column blocks, K = 300 in a partial vector.
  checkPath<ak::f32, 16, 64, 512>("f32 dot, 4 row blocks", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_dot<16, 64, 512, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::f32, 23, 37, 300>("f32 dot, ragged rows and columns", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_dot<23, 37, 300, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::f32, 6, 8, 20>("f32 dot, one block and 2 rows", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_dot<6, 8, 20, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  // Which form ak::mma picks: short f32 tiles only with long k steps.
  using ak::detail::inner_product_fits;
  EXPECT_TRUE((inner_product_fits<ak::f32, 16, 256>()));
  EXPECT_FALSE((inner_product_fits<ak::f32, 32, 512>())); // MoE's 32-row expert tiles run packed
  EXPECT_TRUE((inner_product_fits<ak::bf16, 4, 64>()));
  EXPECT_FALSE((inner_product_fits<ak::f32, 32, 128>())); // attention's q k^T over head_dim 128
  EXPECT_FALSE((inner_product_fits<ak::f32, 33, 512>()));
  // bf16 up to 32 rows with long k steps (where AMX does not take them first).
  EXPECT_TRUE((inner_product_fits<ak::bf16, 16, 512>()));
  EXPECT_TRUE((inner_product_fits<ak::bf16, 32, 256>()));
  EXPECT_FALSE((inner_product_fits<ak::bf16, 33, 512>()));
  EXPECT_FALSE((inner_product_fits<ak::bf16, 32, 128>())); // attention's q k^T over head_dim 128
  // Through the entry point, a short strided f32 tile with a long K.
  MmaCase<ak::f32> viaMma(12, 40, 260, 6, BLayout::NK, 11);
  ak::mma<ak::f32, 12, 40, 260>(viaMma.acc.data(), viaMma.aRef(), viaMma.bRef());
  viaMma.expectClose("ak::mma, short f32 tile");
  // bf16 tiles of 16 and 32 rows: several 4-row blocks, a strided a copied
  // dense, K = 300 in a partial pair vector, 37 columns in single-column blocks.
  checkPath<ak::bf16, 16, 64, 512>("bf16 dot, 4 row blocks", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot<16, 64, 512, ak::detail::bf16_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 30, 37, 300>("bf16 dot, ragged rows and columns", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot<30, 37, 300, ak::detail::bf16_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  MmaCase<ak::bf16> viaMmaBf16(24, 40, 260, 6, BLayout::NK, 12);
  ak::mma<ak::bf16, 24, 40, 260>(viaMmaBf16.acc.data(), viaMmaBf16.aRef(), viaMmaBf16.bRef());
  viaMmaBf16.expectClose("ak::mma, short bf16 tile");
}

TEST(CpuMma, LanesFormForNineToSixteenRows) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // a's rows in lanes, b's units broadcast: full 16-column blocks, tails of
  // 5, 8 and 13 columns (one group of 8 rows of b, or a group and a part),
  // rows that leave lanes empty, k-steps with and without b's rows fetched
  // ahead (K >= 4 lines ahead), strided operands (checkPath pads rows).
  checkPath<ak::f32, 16, 64, 512>("f32 lanes", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_lanes<16, 64, 512, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::f32, 9, 37, 48>("f32 lanes, 5-column tail", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_lanes<9, 37, 48, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 16, 64, 512>("bf16 lanes", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_lanes<16, 64, 512, ak::detail::bf16_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 12, 24, 96>("bf16 lanes, 8-column tail", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_lanes<12, 24, 96, ak::detail::bf16_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 13, 45, 1024>("bf16 lanes, 13-column tail", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_lanes<13, 45, 1024, ak::detail::bf16_dot>(c.acc.data(), c.aRef(), c.bRef());
  });
  // Ragged rows: only a.rows rows of a are read (the rest NaN) and written.
  for (int64_t rows : {0, 5, 15}) {
    MmaCase<ak::bf16> c(16, 21, 256, 6, BLayout::NK, unsigned(100 + rows));
    for (int64_t m = rows; m < 16; ++m)
      for (int64_t k = 0; k < 256; ++k) c.a[m * c.lda + k] = ak::bf16::store(std::nanf(""));
    const std::vector<float> before = c.acc;
    ak::tile_ref<uint16_t> a = c.aRef();
    a.rows = rows;
    ak::detail::mma_lanes<16, 21, 256, ak::detail::bf16_dot, true>(c.acc.data(), a, c.bRef());
    for (int64_t i = rows * 21; i < 16 * 21; ++i) ASSERT_EQ(c.acc[i], before[i]) << "row " << i / 21 << " changed";
    for (int64_t i = rows * 21; i < 16 * 21; ++i) c.acc[i] = float(c.want[i]); /* checked above */
    c.expectClose("bf16 lanes, ragged rows");
  }
  // Through the entry point: short tiles of 9-16 rows with whole lines of k.
  using ak::detail::lanes_fit;
  EXPECT_TRUE((lanes_fit<ak::detail::bf16_dot, 16, 512>()));
  EXPECT_TRUE((lanes_fit<ak::detail::f32_dot, 9, 256>()));
  EXPECT_FALSE((lanes_fit<ak::detail::bf16_dot, 8, 512>())); // half the lanes empty: 4 x 4 blocks
  EXPECT_FALSE((lanes_fit<ak::detail::bf16_dot, 17, 512>()));
  EXPECT_FALSE((lanes_fit<ak::detail::bf16_dot, 16, 300>())); // k ends inside a line
  MmaCase<ak::f32> viaMma(12, 40, 256, 6, BLayout::NK, 13);
  ak::mma<ak::f32, 12, 40, 256>(viaMma.acc.data(), viaMma.aRef(), viaMma.bRef());
  viaMma.expectClose("ak::mma, f32 tile of 12 rows");
}

/// The packed forms in both layouts of b.
template <BLayout L> void checkPackedForms() {
  checkPath<ak::f32, 19, 40, 130, L>("f32 packed", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_f32_avx512<19, 40, 130, L>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::f32, 13, 70, 33, L>("f32 packed, full panels and a 6-column one", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_f32_avx512<13, 70, 33, L>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::f32, 8, 16, 16, L>("f32 packed", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_f32_avx512<8, 16, 16, L>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 21, 45, 96, L>("bf16 packed", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_avx512<21, 45, 96, L>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 9, 33, 31, L>("bf16 packed, odd K", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_avx512<9, 33, 31, L>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 4, 128, 16, L>("bf16 packed, decode p.v", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_avx512<4, 128, 16, L>(c.acc.data(), c.aRef(), c.bRef());
  });
}

TEST(CpuMma, RowsFormForFewRowsOfKn) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // Decode attention's p.v, then every register block width (1, 2, 3-4 and
  // 5-8 rows), columns ending inside a 32-column chunk and inside a block,
  // odd K (the last k pairs with zero).
  checkPath<ak::bf16, 4, 128, 16, BLayout::KN>("bf16 kn rows, decode p.v", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_kn_rows<4, 128, 16>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 1, 300, 33, BLayout::KN>("bf16 kn rows", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_kn_rows<1, 300, 33>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 2, 100, 17, BLayout::KN>("bf16 kn rows", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_kn_rows<2, 100, 17>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 3, 45, 1, BLayout::KN>("bf16 kn rows, one k", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_kn_rows<3, 45, 1>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 7, 70, 64, BLayout::KN>("bf16 kn rows", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_kn_rows<7, 70, 64>(c.acc.data(), c.aRef(), c.bRef());
  });
  // The widened rows form (f32 FMAs on v's rows widened as read): the same
  // shapes, one k, odd K (no pairs of rows here).
  checkPath<ak::bf16, 4, 128, 16, BLayout::KN>("bf16 kn widened, decode p.v", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_kn_widened<4, 128, 16>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 1, 300, 33, BLayout::KN>("bf16 kn widened", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_kn_widened<1, 300, 33>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 2, 100, 17, BLayout::KN>("bf16 kn widened", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_kn_widened<2, 100, 17>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 3, 45, 1, BLayout::KN>("bf16 kn widened, one k", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_kn_widened<3, 45, 1>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 7, 70, 64, BLayout::KN>("bf16 kn widened", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_kn_widened<7, 70, 64>(c.acc.data(), c.aRef(), c.bRef());
  });
  // The entry point takes it for short tiles only.
  EXPECT_TRUE(ak::detail::kn_rows_fit<8>());
  EXPECT_FALSE(ak::detail::kn_rows_fit<9>());
  MmaCase<ak::bf16> viaKn(5, 64, 16, 6, BLayout::KN, 12);
  ak::mma_kn<ak::bf16, 5, 64, 16>(viaKn.acc.data(), viaKn.aRef(), viaKn.bRef());
  viaKn.expectClose("ak::mma_kn, short bf16 tile");
}

TEST(CpuMma, PackedBroadcastForm) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  checkPackedForms<BLayout::NK>();
  checkPackedForms<BLayout::KN>();
}

#if defined(ARGUS_CPU_HAVE_AMX)
// A panel's fetches, spread over its iterations, cover each line once: the
// next k-step's 32 rows of a plain b (K = 256: 8 lines a row, rows 8 KiB
// apart) over 4 row groups x 8 k-steps, and a pre-packed panel's 16 KiB over
// a step count that does not divide them.
TEST(CpuMma, PanelFetchCoversEachLineOnce) {
  using ak::detail::panel_fetch;
  static const char base[1] = {};
  auto check = [](const panel_fetch &f, int64_t steps, const std::vector<int64_t> &expectedOffsets) {
    panel_fetch::cursor fetching(f, steps);
    std::vector<int64_t> offsets;
    for (int64_t step = 0; step < steps; ++step) {
      const size_t before = offsets.size();
      fetching.next([&](const char *line) { offsets.push_back(line - base); });
      const int64_t share = int64_t(offsets.size() - before);
      EXPECT_TRUE(share == f.lines / steps || share == f.lines / steps + 1) << "step " << step; /* evenly */
    }
    EXPECT_EQ(offsets, expectedOffsets);
  };
  std::vector<int64_t> rows, contiguous;
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t l = 0; l < 8; ++l) rows.push_back(r * 8192 + l * 64);
  check(panel_fetch::strided(base, 32, 512, 8192), 32, rows);
  for (int64_t l = 0; l < 256; ++l) contiguous.push_back(l * 64);
  check(panel_fetch::contiguous(base, 16384), 24, contiguous);
  check(panel_fetch::strided(base, 32, 512, 8192), 7, rows); /* steps that split rows */
  int calls = 0;
  panel_fetch::cursor(panel_fetch{}, 8).next([&](const char *) { ++calls; });
  EXPECT_EQ(calls, 0); /* nothing to fetch */
}

TEST(CpuMma, AmxTiles) {
  if (!ak::detail::amx_usable()) GTEST_SKIP() << "AMX is not usable here (CPU, kernel or ARGUS_CPU_AMX=0)";
  checkPath<ak::bf16, 48, 64, 96>("bf16 amx", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx<48, 64, 96, BLayout::NK>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 32, 128, 64, BLayout::KN>("bf16 amx", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx<32, 128, 64, BLayout::KN>(c.acc.data(), c.aRef(), c.bRef());
  });
  // A GEMM k-step of a tall tile: the panels fetch b's next step as they go.
  checkPath<ak::bf16, 128, 64, 256>("bf16 amx, next step fetched", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx<128, 64, 256, BLayout::NK>(c.acc.data(), c.aRef(), c.bRef());
  });
  using ak::detail::amx_fetches_next_step;
  EXPECT_TRUE((amx_fetches_next_step<256, 256>()));
  EXPECT_FALSE((amx_fetches_next_step<16, 256>())); /* decode tiles: memory-bound */
  EXPECT_FALSE((amx_fetches_next_step<128, 128>())); /* attention: the next head's columns */
}

TEST(CpuMma, AmxFewRowsForm) {
  if (!ak::detail::amx_usable()) GTEST_SKIP() << "AMX is not usable here (CPU, kernel or ARGUS_CPU_AMX=0)";
  // Decode GEMM and MoE expert tiles: 2 to 16 rows, every 16 rows of b one
  // transposed product; strided operands read in place.
  checkPath<ak::bf16, 4, 64, 512>("bf16 amx few rows", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_few_rows<4, 64, 512>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 2, 16, 256>("bf16 amx few rows", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_few_rows<2, 16, 256>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 5, 48, 1024>("bf16 amx few rows", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_few_rows<5, 48, 1024>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 16, 32, 288>("bf16 amx few rows", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_few_rows<16, 32, 288>(c.acc.data(), c.aRef(), c.bRef());
  });
  // Short k-steps: decode attention's scores (a page of keys, two 32-k
  // chains), one 32-k tile (one chain), odd row counts (the permute packing
  // with a lone last row), more than 8 rows (the scalar packing).
  checkPath<ak::bf16, 7, 16, 64>("bf16 amx few rows, short k", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_few_rows<7, 16, 64>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 4, 16, 128>("bf16 amx few rows, decode q.k", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_few_rows<4, 16, 128>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 8, 32, 32>("bf16 amx few rows, one k tile", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_few_rows<8, 32, 32>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 3, 16, 96>("bf16 amx few rows, odd rows", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_few_rows<3, 16, 96>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 12, 16, 64>("bf16 amx few rows, scalar packing", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_few_rows<12, 16, 64>(c.acc.data(), c.aRef(), c.bRef());
  });
  // Which tiles the entry point sends there: not one row (the inner-product
  // form streams it), whole 16-row tiles of b and 32-k steps.
  using ak::detail::amx_few_rows_fit;
  EXPECT_TRUE((amx_few_rows_fit<4, 64, 512>()));
  EXPECT_TRUE((amx_few_rows_fit<4, 16, 128>()));
  EXPECT_FALSE((amx_few_rows_fit<1, 64, 512>()));
  EXPECT_FALSE((amx_few_rows_fit<4, 40, 512>()));
  EXPECT_FALSE((amx_few_rows_fit<4, 16, 80>()));
  MmaCase<ak::bf16> viaMma(3, 32, 512, 6, BLayout::NK, 13);
  ak::mma<ak::bf16, 3, 32, 512>(viaMma.acc.data(), viaMma.aRef(), viaMma.bRef());
  viaMma.expectClose("ak::mma, few bf16 rows on AMX");
}

TEST(CpuMma, AmxPairsFormForValues) {
  if (!ak::detail::amx_usable()) GTEST_SKIP() << "AMX is not usable here (CPU, kernel or ARGUS_CPU_AMX=0)";
  // Decode attention's p v: v's rows read in place as B tiles against a's
  // values paired with zeros; two 32-column chunks at a time (an odd count:
  // the last alone), one or more 16-row blocks of v, odd row counts.
  checkPath<ak::bf16, 4, 128, 16, BLayout::KN>("bf16 amx pairs, decode p.v", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_kn_pairs<4, 128, 16>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 2, 64, 32, BLayout::KN>("bf16 amx pairs, two blocks of v", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_kn_pairs<2, 64, 32>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 8, 96, 16, BLayout::KN>("bf16 amx pairs, three chunks", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_kn_pairs<8, 96, 16>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 3, 32, 48, BLayout::KN>("bf16 amx pairs, odd rows", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_bf16_amx_kn_pairs<3, 32, 48>(c.acc.data(), c.aRef(), c.bRef());
  });
  using ak::detail::amx_kn_pairs_fit;
  EXPECT_TRUE((amx_kn_pairs_fit<4, 128, 16>()));
  EXPECT_FALSE((amx_kn_pairs_fit<1, 128, 16>())); /* one row: the rows forms */
  EXPECT_FALSE((amx_kn_pairs_fit<9, 128, 16>())); /* 2M rows of pairs fill a tile at 8 */
  EXPECT_FALSE((amx_kn_pairs_fit<4, 48, 16>()));
  EXPECT_FALSE((amx_kn_pairs_fit<4, 128, 24>()));
  // Through the entry point, with the rows scale its epilogue takes.
  MmaCase<ak::bf16> viaMma(4, 64, 16, 6, BLayout::KN, 17);
  ak::mma_kn<ak::bf16, 4, 64, 16>(viaMma.acc.data(), viaMma.aRef(), viaMma.bRef());
  viaMma.expectClose("ak::mma_kn, few bf16 rows on AMX");
}

// The few-rows tile configuration stays loaded between products; another one
// loaded in between (another library's AMX code) is replaced, not used.
TEST(CpuMma, AmxFewRowsAfterAnotherConfiguration) {
  if (!ak::detail::amx_usable()) GTEST_SKIP() << "AMX is not usable here (CPU, kernel or ARGUS_CPU_AMX=0)";
  MmaCase<ak::bf16> first(4, 64, 256, 6, BLayout::NK, 21), second(4, 64, 256, 6, BLayout::NK, 22);
  ak::detail::mma_bf16_amx_few_rows<4, 64, 256>(first.acc.data(), first.aRef(), first.bRef());
  ak::detail::amx_configure_square();
  ak::detail::mma_bf16_amx_few_rows<4, 64, 256>(second.acc.data(), second.aRef(), second.bRef());
  first.expectClose("few rows on AMX");
  second.expectClose("few rows on AMX after the square configuration");
}
#endif

/// A line_shadow that records the lines it fetches (b's bytes moved by
/// `delta`); the forms under test spread it, so none may burst it.
struct RecordedShadow {
  std::set<uintptr_t> *lines;
  std::ptrdiff_t delta;
  void fetch(const void *bBytes) const {
    lines->insert((reinterpret_cast<uintptr_t>(bBytes) + uintptr_t(delta)) & ~uintptr_t(63));
  }
  template <int64_t ROWS, int64_t COLS, class S> void burst(ak::tile_ref<S>) const {
    ADD_FAILURE() << "a form that spreads its shadow fetched it at once";
  }
};

/// Runs `kernel(c, shadow)` and checks its result and that the shadow
/// fetched exactly the lines of a tile lying like b, `delta` bytes on (put
/// on a cache line: rows of b are whole lines apart, `pad` chosen so).
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, class Kernel>
void checkShadow(const char *path, int64_t pad, Kernel kernel) {
  MmaCase<DT> c(M, N, K, pad, L, unsigned(M * 7 + N * 3 + K));
  ASSERT_EQ(c.ldb * int64_t(sizeof(typename DT::storage)) % 64, 0) << path;
  const std::ptrdiff_t delta = (1 << 20) - std::ptrdiff_t(reinterpret_cast<uintptr_t>(c.b.data()) % 64);
  std::set<uintptr_t> want, fetched;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) want.insert((reinterpret_cast<uintptr_t>(&c.bAt(n, k)) + delta) & ~uintptr_t(63));
  kernel(c, RecordedShadow{&fetched, delta});
  c.expectClose(path);
  EXPECT_EQ(fetched, want) << path;
}

TEST(CpuMma, FewRowFormsFetchTheirShadowAsTheyReadB) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // Decode attention's q k^T and p v (the next page lies like this one),
  // on each CPU's form; ragged columns and odd K; several row blocks, of
  // which only the first reads b from memory.
  checkShadow<ak::bf16, 4, 16, 128, BLayout::NK>("bf16 widened dot", 0, [](MmaCase<ak::bf16> &c, auto shadow) {
    ak::detail::mma_dot_widened<4, 16, 128>(c.acc.data(), c.aRef(), c.bRef(), shadow);
  });
  checkShadow<ak::bf16, 4, 16, 128, BLayout::NK>("bf16 dot", 32, [](MmaCase<ak::bf16> &c, auto shadow) {
    ak::detail::mma_dot<4, 16, 128, ak::detail::bf16_dot>(c.acc.data(), c.aRef(), c.bRef(), shadow);
  });
  checkShadow<ak::f32, 1, 16, 128, BLayout::NK>("f32 dot", 0, [](MmaCase<ak::f32> &c, auto shadow) {
    ak::detail::mma_dot<1, 16, 128, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef(), shadow);
  });
  checkShadow<ak::f32, 10, 13, 100, BLayout::NK>("f32 dot, 3 row blocks", 12, [](MmaCase<ak::f32> &c, auto shadow) {
    ak::detail::mma_dot<10, 13, 100, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef(), shadow);
  });
  checkShadow<ak::bf16, 16, 40, 256, BLayout::NK>("bf16 lanes", 0, [](MmaCase<ak::bf16> &c, auto shadow) {
    ak::detail::mma_lanes<16, 40, 256, ak::detail::bf16_dot>(c.acc.data(), c.aRef(), c.bRef(), shadow);
  });
  checkShadow<ak::f32, 10, 13, 128, BLayout::NK>("f32 lanes", 16, [](MmaCase<ak::f32> &c, auto shadow) {
    ak::detail::mma_lanes<10, 13, 128, ak::detail::f32_dot>(c.acc.data(), c.aRef(), c.bRef(), shadow);
  });
  checkShadow<ak::bf16, 4, 128, 16, BLayout::KN>("bf16 kn widened", 0, [](MmaCase<ak::bf16> &c, auto shadow) {
    ak::detail::mma_kn_widened<4, 128, 16>(c.acc.data(), c.aRef(), c.bRef(), shadow);
  });
  checkShadow<ak::bf16, 3, 45, 17, BLayout::KN>("bf16 kn widened", 19, [](MmaCase<ak::bf16> &c, auto shadow) {
    ak::detail::mma_kn_widened<3, 45, 17>(c.acc.data(), c.aRef(), c.bRef(), shadow);
  });
  checkShadow<ak::bf16, 4, 128, 16, BLayout::KN>("bf16 kn rows", 0, [](MmaCase<ak::bf16> &c, auto shadow) {
    ak::detail::mma_kn_rows<4, 128, 16>(c.acc.data(), c.aRef(), c.bRef(), shadow);
  });
  checkShadow<ak::bf16, 3, 45, 17, BLayout::KN>("bf16 kn rows, odd K", 19, [](MmaCase<ak::bf16> &c, auto shadow) {
    ak::detail::mma_kn_rows<3, 45, 17>(c.acc.data(), c.aRef(), c.bRef(), shadow);
  });
#if defined(ARGUS_CPU_HAVE_AMX)
  if (ak::detail::amx_usable()) { /* the AMX forms: a line of each row of b per tile they load */
    checkShadow<ak::bf16, 4, 16, 128, BLayout::NK>("bf16 amx few rows", 0, [](MmaCase<ak::bf16> &c, auto shadow) {
      ak::detail::mma_bf16_amx_few_rows<4, 16, 128>(c.acc.data(), c.aRef(), c.bRef(), shadow);
    });
    checkShadow<ak::bf16, 4, 128, 16, BLayout::KN>("bf16 amx pairs", 0, [](MmaCase<ak::bf16> &c, auto shadow) {
      ak::detail::mma_bf16_amx_kn_pairs<4, 128, 16>(c.acc.data(), c.aRef(), c.bRef(), shadow);
    });
    checkShadow<ak::bf16, 2, 96, 32, BLayout::KN>("bf16 amx pairs, three chunks", 32, [](MmaCase<ak::bf16> &c, auto shadow) {
      ak::detail::mma_bf16_amx_kn_pairs<2, 96, 32>(c.acc.data(), c.aRef(), c.bRef(), shadow);
    });
  }
#endif
}

TEST(CpuMma, OneRowWithAndWithoutItsFetch) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // One row of a, whichever form this CPU prefers (one_row_fetch_preferred):
  // sixteen rows of b fetched ahead, or left to the prefetchers, there four
  // rows at a time where the k-step is long (dot_row_groups); ragged columns.
  checkPath<ak::bf16, 1, 37, 2048>("bf16 dot, rows fetched", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot_fetching<1, 37, 2048, ak::detail::bf16_dot, true>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 1, 37, 2048>("bf16 dot, four rows at a time", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot_fetching<1, 37, 2048, ak::detail::bf16_dot, false>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::f32, 1, 20, 2048>("f32 dot, four rows at a time", [](MmaCase<ak::f32> &c) {
    ak::detail::mma_dot_fetching<1, 20, 2048, ak::detail::f32_dot, false>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkPath<ak::bf16, 1, 19, 1000>("bf16 dot, short k-step unfetched", [](MmaCase<ak::bf16> &c) {
    ak::detail::mma_dot_fetching<1, 19, 1000, ak::detail::bf16_dot, false>(c.acc.data(), c.aRef(), c.bRef());
  });
  checkShadow<ak::f32, 1, 16, 2048, BLayout::NK>("f32 dot, four rows at a time", 0,
                                                 [](MmaCase<ak::f32> &c, auto shadow) {
                                                   ak::detail::mma_dot_fetching<1, 16, 2048, ak::detail::f32_dot, false>(
                                                       c.acc.data(), c.aRef(), c.bRef(), shadow);
                                                 });
}

TEST(CpuMma, EntryPointsHandTheirShadowOnce) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // b and the next tile as windows of one tensor (rows 160 apart), then a
  // dense b (rows 128 apart) that cannot spread it: either way the product
  // consumes the shadow (no line left for the end of its scope) and its
  // result is right. Which lines a spreading form fetches: the test above.
  alignas(64) static uint16_t pool[2 * 16 * 160];
  argus_cpu_tensor t{};
  t.data = pool, t.shape[0] = 32, t.shape[1] = 128, t.stride[0] = 160, t.stride[1] = 1;
  const int64_t second[2] = {16, 0}, page[2] = {16, 128};
  MmaCase<ak::bf16> qk(4, 16, 128, 32, BLayout::NK, 31), pv(4, 128, 16, 0, BLayout::KN, 32);
  std::copy(qk.b.begin(), qk.b.end(), pool);
  ak::tile_shadow<2> next = ak::prefetch_shadow<ak::bf16, 2>(t, second, page);
  ak::mma<ak::bf16, 4, 16, 128>(qk.acc.data(), qk.aRef(), ak::tile_ref<uint16_t>{pool, 160}, next);
  qk.expectClose("ak::mma with a shadow");
  int left = 0;
  next.for_each_line([&](const char *) { ++left; });
  EXPECT_EQ(left, 0);
  ak::tile_shadow<2> again = ak::prefetch_shadow<ak::bf16, 2>(t, second, page);
  ak::mma_kn<ak::bf16, 4, 128, 16>(pv.acc.data(), pv.aRef(), pv.b.data(), again); /* dense: rows 128 apart */
  pv.expectClose("ak::mma_kn with a shadow it cannot spread");
  again.for_each_line([&](const char *) { ++left; });
  EXPECT_EQ(left, 0);
}

/// Runs `kernel(c, scale)` on a case whose expectation is recomputed as
/// acc * by + a b^T, by[m] in [0.25, 2): each row of acc scaled before the sum.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, class Kernel>
void checkRowScale(const char *path, Kernel kernel) {
  for (int64_t pad : {0, 6}) {
    MmaCase<DT> c(M, N, K, pad, L, unsigned(M * 5 + N + K + pad));
    std::vector<float> by(M);
    for (int64_t m = 0; m < M; ++m) by[size_t(m)] = 0.25f + 0.125f * float(m % 14);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) c.want[m * N + n] += double(c.acc[m * N + n]) * (double(by[m]) - 1.0);
    kernel(c, ak::row_scale{by.data()});
    c.expectClose(path);
  }
}

TEST(CpuMma, RowScaleInTheEpilogueOrBefore) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // The rows forms scale in their epilogue (decode's p v: acc * alpha + e v);
  // every other path scales acc first. Ragged columns, odd K, strided.
  checkRowScale<ak::bf16, 4, 128, 16, BLayout::KN>("bf16 kn widened, scaled", [](MmaCase<ak::bf16> &c, auto scale) {
    ak::detail::mma_kn_widened<4, 128, 16>(c.acc.data(), c.aRef(), c.bRef(), ak::detail::no_shadow{}, scale);
  });
  checkRowScale<ak::bf16, 3, 45, 17, BLayout::KN>("bf16 kn rows, scaled", [](MmaCase<ak::bf16> &c, auto scale) {
    ak::detail::mma_kn_rows<3, 45, 17>(c.acc.data(), c.aRef(), c.bRef(), ak::detail::no_shadow{}, scale);
  });
#if defined(ARGUS_CPU_HAVE_AMX)
  if (ak::detail::amx_usable())
    checkRowScale<ak::bf16, 4, 128, 16, BLayout::KN>("bf16 amx pairs, scaled", [](MmaCase<ak::bf16> &c, auto scale) {
      ak::detail::mma_bf16_amx_kn_pairs<4, 128, 16>(c.acc.data(), c.aRef(), c.bRef(), ak::detail::no_shadow{}, scale);
    });
#endif
  checkRowScale<ak::bf16, 4, 128, 16, BLayout::KN>("ak::mma_kn, scaled", [](MmaCase<ak::bf16> &c, auto scale) {
    ak::mma_kn<ak::bf16, 4, 128, 16>(c.acc.data(), c.aRef(), c.bRef(), scale);
  });
  checkRowScale<ak::f32, 4, 128, 16, BLayout::KN>("ak::mma_kn f32, scaled first", [](MmaCase<ak::f32> &c, auto scale) {
    ak::mma_kn<ak::f32, 4, 128, 16>(c.acc.data(), c.aRef(), c.bRef(), scale);
  });
  checkRowScale<ak::bf16, 12, 64, 32, BLayout::KN>("ak::mma_kn, 12 rows, scaled first",
                                                   [](MmaCase<ak::bf16> &c, auto scale) {
                                                     ak::mma_kn<ak::bf16, 12, 64, 32>(c.acc.data(), c.aRef(), c.bRef(),
                                                                                     scale);
                                                   });
  checkRowScale<ak::bf16, 4, 16, 128, BLayout::NK>("ak::mma, scaled first", [](MmaCase<ak::bf16> &c, auto scale) {
    ak::mma<ak::bf16, 4, 16, 128>(c.acc.data(), c.aRef(), c.bRef(), scale);
  });
  // With a tile to fetch as well (a dense pool: the shadow is taken or burst; the sums are what is checked).
  checkRowScale<ak::bf16, 4, 128, 16, BLayout::KN>("ak::mma_kn, shadow and scale", [](MmaCase<ak::bf16> &c, auto scale) {
    alignas(64) static uint16_t pool[16 * 128];
    argus_cpu_tensor t{};
    t.data = pool, t.shape[0] = 16, t.shape[1] = 128, t.stride[0] = 128, t.stride[1] = 1;
    const int64_t off[2] = {0, 0}, page[2] = {16, 128};
    ak::tile_shadow<2> next = ak::prefetch_shadow<ak::bf16, 2>(t, off, page);
    ak::mma_kn<ak::bf16, 4, 128, 16>(c.acc.data(), c.aRef(), c.bRef(), next, scale);
  });
}

// ak::mma_scaled: acc = (a b^T) * scale whatever acc held, bit for bit
// what zeros, ak::mma and a multiply give: packed register blocks starting
// from zeros and scaling as they store (f32 and bf16, ragged N, odd K,
// strided operands), the inner-product forms zeroing and scaling around.
template <class DT, int64_t M, int64_t N, int64_t K> void expectScaledProductAsZerosMmaMultiply(int64_t pad) {
  SCOPED_TRACE(::testing::Message() << "M=" << M << " N=" << N << " K=" << K << " pad=" << pad);
  const float scale = 0.0883883f; /* 1 / sqrt(128) */
  MmaCase<DT> scaled(M, N, K, pad, BLayout::NK, 11), plain(M, N, K, pad, BLayout::NK, 11);
  std::fill(plain.acc.begin(), plain.acc.end(), 0.0f);
  ak::mma<DT, M, N, K>(plain.acc.data(), plain.aRef(), plain.bRef());
  for (float &x : plain.acc) x *= scale;
  ak::mma_scaled<DT, M, N, K>(scaled.acc.data(), scaled.aRef(), scaled.bRef(), scale); /* acc: random before */
  for (int64_t i = 0; i < M * N; ++i) ASSERT_EQ(scaled.acc[i], plain.acc[i]) << "acc[" << i << "]";
}

TEST(CpuMma, ScaledProductStartsFromZeros) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  expectScaledProductAsZerosMmaMultiply<ak::bf16, 128, 64, 128>(0); /* prefill's scores */
  expectScaledProductAsZerosMmaMultiply<ak::f32, 128, 64, 128>(3);
  expectScaledProductAsZerosMmaMultiply<ak::bf16, 24, 45, 33>(5);
  expectScaledProductAsZerosMmaMultiply<ak::f32, 17, 21, 19>(1);
  expectScaledProductAsZerosMmaMultiply<ak::bf16, 4, 16, 128>(0); /* decode's scores: inner products */
  expectScaledProductAsZerosMmaMultiply<ak::f32, 2, 37, 50>(2);
  EXPECT_TRUE((ak::detail::uses_packed_blocks<ak::f32, 128, 64, 128, BLayout::NK>()));
  EXPECT_FALSE((ak::detail::uses_packed_blocks<ak::f32, 2, 37, 50, BLayout::NK>()));
}

// Products tagged ak::pack_reuse (prefill attention's keys and values) keep
// b's packed panels for the launch the thread entered. Proven by changing b's
// bytes under a window the products read (what the emitter's contract rules
// out): in the same launch a product still reads the panels packed before;
// in a new launch, for a load_ref copy (its scratch set) and outside any
// launch it packs b as it is now, bit for bit as an untagged product.
template <class DT, BLayout L, int64_t M, int64_t N, int64_t K> void expectPanelsKeptForTheLaunch() {
  using S = typename DT::storage;
  SCOPED_TRACE(::testing::Message() << (std::is_same<DT, ak::f32>::value ? "f32 " : "bf16 ")
                                    << (L == BLayout::NK ? "NK" : "KN") << " M=" << M << " N=" << N << " K=" << K);
  MmaCase<DT> c(M, N, K, 0, L, 31), other(M, N, K, 0, L, 32);
  std::vector<S> b = c.b; /* the tensor the windows lie in */
  const ak::tile_ref<S> window{b.data(), c.ldb};
  auto product = [&](ak::tile_ref<S> bw, bool tagged) {
    std::vector<float> acc = c.acc;
    if constexpr (L == BLayout::NK) {
      if (tagged) ak::mma<DT, M, N, K>(acc.data(), c.aRef(), bw, ak::pack_reuse{});
      else ak::mma<DT, M, N, K>(acc.data(), c.aRef(), bw);
    } else {
      if (tagged) ak::mma_kn<DT, M, N, K>(acc.data(), c.aRef(), bw, ak::pack_reuse{});
      else ak::mma_kn<DT, M, N, K>(acc.data(), c.aRef(), bw);
    }
    return acc;
  };
  auto rewriteB = [&](const std::vector<S> &from) { std::copy(from.begin(), from.end(), b.begin()); };
  ak::enter_pack_launch(ak::next_pack_launch());
  std::vector<float> kept = product(window, true);
  c.acc.swap(kept);
  c.expectClose("first product of the launch");
  c.acc.swap(kept);
  rewriteB(other.b);
  EXPECT_EQ(product(window, true), kept) << "the same launch reads the panels it packed";
  ak::enter_pack_launch(ak::next_pack_launch());
  const std::vector<float> fresh = product(window, false);
  EXPECT_NE(fresh, kept);
  EXPECT_EQ(product(window, true), fresh) << "a new launch packs again";
  rewriteB(c.b);
  const ak::tile_ref<S> copy{b.data(), c.ldb, false, -1, b.data()};
  EXPECT_EQ(product(copy, true), kept) << "a copy is packed each call";
  ak::enter_pack_launch(0);
  rewriteB(other.b);
  EXPECT_EQ(product(window, true), fresh) << "outside a launch each call packs";
}

TEST(CpuMma, PanelsKeptForTheLaunch) {
  if (!haveAvx512()) GTEST_SKIP() << "this CPU has no AVX-512";
  expectPanelsKeptForTheLaunch<ak::f32, BLayout::NK, 128, 64, 128>(); /* prefill's scores */
  expectPanelsKeptForTheLaunch<ak::f32, BLayout::KN, 128, 128, 64>(); /* prefill's values */
  expectPanelsKeptForTheLaunch<ak::f32, BLayout::NK, 40, 48, 66>();   /* a partial panel */
  expectPanelsKeptForTheLaunch<ak::f32, BLayout::NK, 64, 64, 192>();  /* latent attention's keys: 24 KiB panels */
  // Panels past 1/64 of the arena are packed each call.
  EXPECT_FALSE((ak::detail::panel_keepable<float, 32, 1040>()));
  MmaCase<ak::f32> deep(16, 32, 1040, 0, BLayout::NK, 33);
  ak::enter_pack_launch(ak::next_pack_launch());
  ak::mma<ak::f32, 16, 32, 1040>(deep.acc.data(), deep.aRef(), deep.bRef(), ak::pack_reuse{});
  deep.expectClose("f32 k = 1040, tagged");
  ak::enter_pack_launch(0);
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  if (!ak::detail::uses_packed_blocks<ak::bf16, 128, 64, 128, BLayout::NK>())
    GTEST_SKIP() << "AMX computes the bf16 tiles (no panels to keep)";
  expectPanelsKeptForTheLaunch<ak::bf16, BLayout::NK, 128, 64, 128>();
  expectPanelsKeptForTheLaunch<ak::bf16, BLayout::KN, 128, 128, 64>();
  expectPanelsKeptForTheLaunch<ak::bf16, BLayout::NK, 40, 48, 66>(); /* odd pairs of k */
  expectPanelsKeptForTheLaunch<ak::bf16, BLayout::NK, 64, 64, 192>(); /* latent attention's keys */
}

// A product that keeps its panels scales acc's rows as its register blocks
// load them (acc_start::rowScale), not in a pass before: bit for bit what
// the pass gives, on every row block (13 rows: a partial block), partial
// panels, f32 and bf16, keys (NK) and values (KN).
template <class DT, BLayout L, int64_t M, int64_t N, int64_t K> void expectKeptPanelsScaleRowsAsTheyLoad() {
  SCOPED_TRACE(::testing::Message() << (std::is_same<DT, ak::f32>::value ? "f32 " : "bf16 ")
                                    << (L == BLayout::NK ? "NK" : "KN") << " M=" << M << " N=" << N << " K=" << K);
  checkRowScale<DT, M, N, K, L>("kept panels, scaled as loaded", [](MmaCase<DT> &c, auto scale) {
    std::vector<float> apart = c.acc;
    ak::enter_pack_launch(ak::next_pack_launch());
    EXPECT_TRUE((ak::detail::keeps_panels<DT, M, N, K, L>(c.aRef(), c.bRef())));
    if constexpr (L == BLayout::NK) {
      ak::mma<DT, M, N, K>(c.acc.data(), c.aRef(), c.bRef(), scale, ak::pack_reuse{});
      ak::enter_pack_launch(0);
      ak::mma<DT, M, N, K>(apart.data(), c.aRef(), c.bRef(), scale);
    } else {
      ak::mma_kn<DT, M, N, K>(c.acc.data(), c.aRef(), c.bRef(), scale, ak::pack_reuse{});
      ak::enter_pack_launch(0);
      ak::mma_kn<DT, M, N, K>(apart.data(), c.aRef(), c.bRef(), scale);
    }
    EXPECT_EQ(c.acc, apart) << "the pass before the product and the scaled loads round alike";
  });
}

TEST(CpuMma, KeptPanelsScaleRowsAsTheyLoad) {
  if (!haveAvx512()) GTEST_SKIP() << "this CPU has no AVX-512";
  expectKeptPanelsScaleRowsAsTheyLoad<ak::f32, BLayout::KN, 128, 128, 64>(); /* prefill's values */
  expectKeptPanelsScaleRowsAsTheyLoad<ak::f32, BLayout::NK, 13, 45, 33>();
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  if (!ak::detail::uses_packed_blocks<ak::bf16, 128, 128, 64, BLayout::KN>())
    GTEST_SKIP() << "AMX computes the bf16 tiles (no panels to keep)";
  expectKeptPanelsScaleRowsAsTheyLoad<ak::bf16, BLayout::KN, 128, 128, 64>();
  expectKeptPanelsScaleRowsAsTheyLoad<ak::bf16, BLayout::KN, 13, 45, 33>();
}

// The arena: every panel of a launch keeps its own bytes while they last;
// once full it keeps what it holds, and starts over at the next product
// after more misses in a row than it holds panels (the walk moved on), or
// in a new launch.
TEST(CpuMma, PackCacheKeepsPanelsUntilTheWalkMovesOn) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "compiled for AVX-512 with BF16, which this CPU lacks";
  using ak::detail::pack_cache;
  constexpr size_t bytes = pack_cache::kMaxPanelBytes;
  constexpr int fit = int(pack_cache::kArenaBytes / bytes);
  static char tiles[4 * fit];
  pack_cache cache;
  bool hit = true;
  auto find = [&](int tile) { return static_cast<char *>(cache.find(tiles + tile, 1, 0, bytes, hit)); };
  cache.begin_product(7);
  std::vector<char *> panels;
  for (int t = 0; t < fit; ++t) {
    panels.push_back(find(t));
    ASSERT_NE(panels.back(), nullptr);
    EXPECT_FALSE(hit);
    if (t > 0) EXPECT_GE(panels[t] - panels[t - 1], std::ptrdiff_t(bytes)) << "panels never overlap";
  }
  EXPECT_EQ(cache.find(tiles, 1, 1, bytes, hit), nullptr) << "another column of the tile; the arena is full";
  EXPECT_EQ(cache.find(tiles, 2, 0, bytes, hit), nullptr) << "another tag";
  EXPECT_FALSE(hit);
  cache.begin_product(7);
  for (int t = 0; t < fit - 1; ++t) {
    EXPECT_EQ(find(t), panels[t]);
    EXPECT_TRUE(hit) << "found again";
  }
  for (int t = fit; t < 2 * fit; ++t) EXPECT_EQ(find(t), nullptr) << "full: the rest is packed each call";
  EXPECT_EQ(find(0), panels[0]) << "what it holds stays";
  EXPECT_TRUE(hit);
  for (int t = fit; t < 2 * fit + 1; ++t) find(t);
  EXPECT_EQ(find(1), panels[1]) << "nothing moves during a product";
  EXPECT_TRUE(hit);
  for (int t = fit; t < 2 * fit + 1; ++t) find(t);
  cache.begin_product(7);
  EXPECT_EQ(find(2 * fit), panels[0]) << "more misses in a row than panels: the arena starts over";
  EXPECT_FALSE(hit);
  EXPECT_EQ(find(1), panels[1]);
  EXPECT_FALSE(hit) << "the old panels are gone";
  cache.begin_product(8);
  EXPECT_EQ(find(2 * fit), panels[0]);
  EXPECT_FALSE(hit) << "another launch";
}

TEST(CpuMma, EntryPointsTakeDenseTilesAndRefs) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // Dense arrays: ak::mma reads b with row stride K, ak::mma_kn with N.
  MmaCase<ak::bf16> dense(32, 64, 64, 0, BLayout::NK, 7);
  ak::mma<ak::bf16, 32, 64, 64>(dense.acc.data(), dense.a.data(), dense.b.data());
  dense.expectClose("ak::mma dense");
  MmaCase<ak::f32> denseKn(5, 24, 16, 0, BLayout::KN, 9);
  ak::mma_kn<ak::f32, 5, 24, 16>(denseKn.acc.data(), denseKn.a.data(), denseKn.b.data());
  denseKn.expectClose("ak::mma_kn dense");
  // a in place inside a wider tensor, b dense.
  MmaCase<ak::f32> mixed(2, 24, 40, 8, BLayout::NK, 8);
  std::vector<float> bDense(24 * 40);
  for (int64_t n = 0; n < 24; ++n)
    for (int64_t k = 0; k < 40; ++k) bDense[n * 40 + k] = mixed.bAt(n, k);
  ak::mma<ak::f32, 2, 24, 40>(mixed.acc.data(), mixed.aRef(), bDense.data());
  mixed.expectClose("ak::mma ref + dense");
}

} // namespace
