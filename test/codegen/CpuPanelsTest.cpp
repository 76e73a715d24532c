//===- CpuPanelsTest.cpp - tiles of pre-packed (PANELS) weight tensors ----===//
//
// Weights packed once into the PANELS layout (argus_cpu_abi.h) reach the mma
// micro-kernels through ak::load_ref: in place when the tile starts on a
// panel and stays inside the zero-padded panels, gathered into plain rows
// otherwise; ak::load and ak::read gather too. Each path against a float64
// reference, with ragged shapes (N and K not multiples of the panel, odd K
// for bf16 pairs), NaN in the packed buffer's unused tail, and a random
// accumulator. Compiled for AVX-512 with BF16 like CpuMmaTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "MmaCase.h"

#include <cstdlib>
#include <memory>

namespace {

using namespace argus::test;

bool haveAvx512Bf16() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16"); }

/// b (N x K rows of the case) packed into panels, 64-byte aligned, with NaN
/// after the last panel (a read past it shows).
template <class DT> struct PackedB {
  using S = typename DT::storage;
  int64_t panelStride = 0;
  std::unique_ptr<S[], void (*)(void *)> buffer{nullptr, std::free};
  argus_cpu_tensor tensor{};

  explicit PackedB(MmaCase<DT> &c) {
    const int64_t bytes = sizeof(S), panels = (c.N + 31) / 32;
    panelStride = argus_cpu_panel_elements(c.K, bytes);
    const int64_t total = panels * panelStride + 64;
    buffer.reset(static_cast<S *>(std::aligned_alloc(64, size_t(total * bytes))));
    for (int64_t i = 0; i < total; ++i) buffer[i] = i < panels * panelStride ? S(0) : DT::store(std::nanf(""));
    for (int64_t n = 0; n < c.N; ++n)
      for (int64_t k = 0; k < c.K; ++k) buffer[argus_cpu_panel_offset(n, k, panelStride, bytes)] = c.bAt(n, k);
    tensor.data = buffer.get();
    tensor.shape[0] = c.N, tensor.shape[1] = c.K;
    tensor.stride[0] = panelStride, tensor.stride[1] = 1;
    tensor.layout = ARGUS_CPU_PANELS;
  }
};

/// acc += a * b^T with b read from the packed tensor through ak::load_ref
/// (the whole matrix as one tile, as a kernel's tile of the weights).
template <class DT, int64_t M, int64_t N, int64_t K> void checkWholeTile(const char *path, bool expectInPlace) {
  MmaCase<DT> c(M, N, K, 3, BLayout::NK, unsigned(M * 7 + N * 3 + K));
  PackedB<DT> packed(c);
  using S = typename DT::storage;
  std::vector<S> scratch(N * K);
  const ak::tile_ref<S> b = ak::load_ref<DT, N, K>(scratch.data(), packed.tensor, {0, 0}, 0.0);
  EXPECT_EQ(b.panels, expectInPlace) << path;
  ak::mma<DT, M, N, K>(c.acc.data(), c.aRef(), b);
  c.expectClose(path);
}

TEST(CpuPanels, MmaComputesFromPanelsInPlace) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // f32: one row (decode), a ragged row count, full and partial panels.
  checkWholeTile<ak::f32, 1, 64, 128>("f32 panels, 1 row", true);
  checkWholeTile<ak::f32, 19, 40, 130>("f32 panels, 19 rows, a 8-column panel", true);
  checkWholeTile<ak::f32, 33, 96, 160>("f32 panels, 33 rows", true);
  checkWholeTile<ak::f32, 4, 16, 256>("f32 panels, a 16-column tile", true);
  // bf16: vdpbf16ps panels (and AMX tiles where the CPU has them), odd K.
  checkWholeTile<ak::bf16, 1, 64, 256>("bf16 panels, 1 row", true);
  checkWholeTile<ak::bf16, 21, 45, 96>("bf16 panels, ragged", true);
  checkWholeTile<ak::bf16, 5, 64, 77>("bf16 panels, odd K", true);
  checkWholeTile<ak::bf16, 32, 64, 128>("bf16 panels, AMX-sized", true);
  checkWholeTile<ak::bf16, 48, 96, 64>("bf16 panels, AMX-sized, 16-row tail", true);
  // Few rows (the streaming form, interleaved accumulator sets): ragged K and columns.
  checkWholeTile<ak::f32, 2, 40, 51>("f32 panels, 2 rows, odd K", true);
  checkWholeTile<ak::f32, 3, 16, 300>("f32 panels, 3 rows, one half panel", true);
  checkWholeTile<ak::bf16, 3, 40, 77>("bf16 panels, 3 rows, odd K", true);
  checkWholeTile<ak::bf16, 4, 96, 512>("bf16 panels, 4 rows", true);
  checkWholeTile<ak::bf16, 1, 16, 33>("bf16 panels, 1 row, odd K", true);
  // AMX tiles of fewer than 16 rows on panels (where the CPU has AMX): 2, 7, 15 rows.
  checkWholeTile<ak::bf16, 2, 64, 2048>("bf16 panels, 2 rows, AMX few rows", true);
  checkWholeTile<ak::bf16, 7, 96, 64>("bf16 panels, 7 rows, AMX few rows", true);
  checkWholeTile<ak::bf16, 15, 32, 160>("bf16 panels, 15 rows, AMX few rows", true);
}

/// A kernel's tile that is not a panel window: it starts inside a panel, or
/// reaches past the padded panels. ak::load_ref gathers it (masked) instead.
TEST(CpuPanels, TilesOffPanelsAreGathered) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  MmaCase<ak::f32> c(6, 70, 50, 0, BLayout::NK, 5);
  PackedB<ak::f32> packed(c);
  std::vector<float> scratch(32 * 64);
  // Rows 16..47, k 0..63 (past K = 50: padding 0): starts mid-panel.
  ak::tile_ref<float> t = ak::load_ref<ak::f32, 32, 64>(scratch.data(), packed.tensor, {16, 0}, 0.0);
  EXPECT_FALSE(t.panels);
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t k = 0; k < 64; ++k)
      ASSERT_EQ(t.data[r * t.ld + k], k < 50 ? c.bAt(16 + r, k) : 0.0f) << "row " << r << " k " << k;
  // Rows 64..127 of N = 70, k 16..79 of K = 50: past the 3 padded panels and past K. Whole panels of
  // the tile: copied into scratch as panels of its own, zero past the tensor.
  alignas(64) float scratch2[64 * 64];
  t = ak::load_ref<ak::f32, 64, 64>(scratch2, packed.tensor, {64, 16}, 0.0);
  EXPECT_TRUE(t.panels);
  EXPECT_EQ(t.data, scratch2);
  for (int64_t r = 0; r < 64; ++r)
    for (int64_t k = 0; k < 64; ++k)
      ASSERT_EQ(t.data[argus_cpu_panel_offset(r, k, t.ld, 4)], r < 6 && 16 + k < 50 ? c.bAt(64 + r, 16 + k) : 0.0f)
          << r << " " << k;
  std::vector<float> acc(6 * 64, 0.0f), aTile(6 * 64, 0.0f); /* a's k 16..79, zero past K like a masked load */
  for (int64_t m = 0; m < 6; ++m)
    for (int64_t k = 16; k < 50; ++k) aTile[m * 64 + k - 16] = c.a[m * c.lda + k];
  ak::mma<ak::f32, 6, 64, 64>(acc.data(), aTile.data(), t);
  for (int64_t n = 0; n < 6; ++n) {
    double want = 0;
    for (int64_t k = 16; k < 50; ++k) want += double(c.a[2 * c.lda + k]) * double(c.bAt(64 + n, k));
    ASSERT_NEAR(acc[2 * 64 + n], want, 1e-4) << n;
  }
  // Rows 32..63 start on a panel and stay inside: in place.
  t = ak::load_ref<ak::f32, 32, 50>(scratch2, packed.tensor, {32, 0}, 0.0);
  EXPECT_TRUE(t.panels);
  EXPECT_NE(t.data, scratch2);
  // 16 rows from the middle of a panel (decode's 16-column tiles): in place, and mma reads them right.
  t = ak::load_ref<ak::f32, 16, 50>(scratch2, packed.tensor, {48, 0}, 0.0);
  EXPECT_TRUE(t.panels);
  std::vector<float> acc16(6 * 16, 0.0f);
  ak::mma<ak::f32, 6, 16, 50>(acc16.data(), c.aRef(), t);
  for (int64_t m = 0; m < 6; ++m)
    for (int64_t n = 0; n < 16; ++n) {
      double want = 0;
      for (int64_t k = 0; k < 50; ++k) want += double(c.a[m * c.lda + k]) * double(c.bAt(48 + n, k));
      ASSERT_NEAR(acc16[m * 16 + n], want, 1e-4) << m << " " << n;
    }
  // A k step that does not start on a pair of bf16 k is gathered.
  MmaCase<ak::bf16> h(2, 32, 40, 0, BLayout::NK, 6);
  PackedB<ak::bf16> hp(h);
  std::vector<uint16_t> hs(32 * 16);
  ak::tile_ref<uint16_t> ht = ak::load_ref<ak::bf16, 32, 16>(hs.data(), hp.tensor, {0, 3}, 0.0);
  EXPECT_FALSE(ht.panels);
  for (int64_t r = 0; r < 32; ++r) ASSERT_EQ(ht.data[r * ht.ld + 5], h.bAt(r, 8)) << r;
}

/// A panel window whose rows end inside the tile, as the forms that read
/// every panel get it (AMX, gathers): the panels holding its rows copied
/// into its scratch, the rest zeros, unless the padded panels hold the tile.
TEST(CpuPanels, RaggedPanelWindowCopiedWhole) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "compiled for AVX-512 with BF16, which this CPU lacks";
  MmaCase<ak::bf16> c(1, 40, 50, 0, BLayout::NK, 7);
  PackedB<ak::bf16> packed(c);
  alignas(64) uint16_t scratch[96 * 48];
  const ak::tile_ref<uint16_t> w = ak::load_ref<ak::bf16, 96, 48>(scratch, packed.tensor, {0, 2}, 0.0);
  ASSERT_TRUE(w.panels);
  ASSERT_EQ(w.rows, 40);
  const ak::tile_ref<uint16_t> whole = ak::detail::whole_panels<uint16_t, 96, 48>(w);
  ASSERT_EQ(whole.data, scratch);
  ASSERT_EQ(whole.rows, -1);
  for (int64_t r = 0; r < 96; ++r)
    for (int64_t k = 0; k < 48; ++k)
      ASSERT_EQ(whole.data[argus_cpu_panel_offset(r, k, whole.ld, 2)], r < 40 ? c.bAt(r, 2 + k) : uint16_t(0))
          << r << " " << k;
  // A tile the padded panels hold (two panels for 40 rows): read whole in place.
  alignas(64) uint16_t two[64 * 48];
  const ak::tile_ref<uint16_t> w64 = ak::load_ref<ak::bf16, 64, 48>(two, packed.tensor, {0, 2}, 0.0);
  ASSERT_EQ(w64.rows, 40);
  const ak::tile_ref<uint16_t> inPlace = ak::detail::whole_panels<uint16_t, 64, 48>(w64);
  EXPECT_EQ(inPlace.data, w64.data);
  EXPECT_EQ(inPlace.ld, w64.ld);
  EXPECT_TRUE(inPlace.panels);
  EXPECT_EQ(inPlace.rows, -1);
  // Not a whole number of panels: not a ragged window (its scratch could not hold them); this one stays
  // inside the padded panels and is read whole.
  alignas(64) uint16_t small[48 * 48];
  const ak::tile_ref<uint16_t> partial = ak::load_ref<ak::bf16, 48, 48>(small, packed.tensor, {0, 2}, 0.0);
  EXPECT_TRUE(partial.panels);
  EXPECT_EQ(partial.rows, -1);
}

TEST(CpuPanels, LoadAndReadGatherAnyTile) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "compiled for AVX-512 with BF16, which this CPU lacks";
  MmaCase<ak::bf16> c(1, 37, 11, 0, BLayout::NK, 4);
  PackedB<ak::bf16> packed(c);
  std::vector<uint16_t> tile(8 * 8);
  const uint16_t pad = ak::bf16::store(-2.0f);
  ak::load<ak::bf16, 8, 8>(tile.data(), packed.tensor, {33, 6}, -2.0); // the corner, partly outside
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t k = 0; k < 8; ++k)
      ASSERT_EQ(tile[r * 8 + k], 33 + r < 37 && 6 + k < 11 ? c.bAt(33 + r, 6 + k) : pad) << r << " " << k;
  EXPECT_EQ(ak::read<ak::bf16>(packed.tensor, {36, 10}), ak::bf16::load(c.bAt(36, 10)));
  EXPECT_EQ(ak::read<ak::bf16>(packed.tensor, {37, 0}), 0.0f); /* outside: 0, as for strided tensors */
}

/// Panels where the micro-kernel cannot take them (b as K x N, or packed
/// weights as the left operand) are gathered into plain rows first.
TEST(CpuPanels, OtherOperandPositionsGatherFirst) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  // mma_kn(a, v) with v's tile (K x N) read from a PANELS tensor of K rows.
  MmaCase<ak::f32> kn(3, 24, 40, 0, BLayout::KN, 12);
  MmaCase<ak::f32> vRows(1, 40, 24, 0, BLayout::NK, 13); /* only its shape: v as 40 rows of 24 */
  for (int64_t k = 0; k < 40; ++k)
    for (int64_t n = 0; n < 24; ++n) vRows.bAt(k, n) = kn.bAt(n, k);
  PackedB<ak::f32> v(vRows);
  std::vector<float> scratch(40 * 24);
  const ak::tile_ref<float> vt = ak::load_ref<ak::f32, 40, 24>(scratch.data(), v.tensor, {0, 0}, 0.0);
  ASSERT_TRUE(vt.panels);
  ak::mma_kn<ak::f32, 3, 24, 40>(kn.acc.data(), kn.aRef(), vt);
  kn.expectClose("mma_kn, v from panels");
  // mma(w, x): the packed weights on the left.
  MmaCase<ak::f32> left(32, 5, 64, 0, BLayout::NK, 14);
  MmaCase<ak::f32> aRows(1, 32, 64, 0, BLayout::NK, 15);
  for (int64_t m = 0; m < 32; ++m)
    for (int64_t k = 0; k < 64; ++k) aRows.bAt(m, k) = left.a[m * left.lda + k];
  PackedB<ak::f32> w(aRows);
  std::vector<float> scratch2(32 * 64);
  const ak::tile_ref<float> wt = ak::load_ref<ak::f32, 32, 64>(scratch2.data(), w.tensor, {0, 0}, 0.0);
  ASSERT_TRUE(wt.panels);
  ak::mma<ak::f32, 32, 5, 64>(left.acc.data(), wt, left.bRef());
  left.expectClose("mma, packed weights as a");
}

/// A rows x cols operand as a strided tensor (row stride cols) followed by
/// NaN: a read past its last column shows.
template <class DT> struct RowsWithNanAfter {
  using S = typename DT::storage;
  std::vector<S> data;
  argus_cpu_tensor tensor{};
  RowsWithNanAfter(const S *rows, int64_t ld, int64_t n, int64_t cols) : data(n * cols + 64, DT::store(std::nanf(""))) {
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < cols; ++c) data[r * cols + c] = rows[r * ld + c];
    tensor.data = data.data();
    tensor.shape[0] = n, tensor.shape[1] = cols;
    tensor.stride[0] = cols, tensor.stride[1] = 1;
  }
};

/// The last k-step of a K the step does not divide (K = 300 in 512-long
/// steps): ak::load_ref reads both operands in place as ragged windows and
/// mma computes only the columns in bounds (in chunks, the last from a
/// zero-padded copy); with b packed or laid out K x N, the ragged a is
/// copied dense first.
template <class DT, int64_t M, int64_t N> void checkRaggedStep(unsigned seed) {
  using S = typename DT::storage;
  constexpr int64_t K = 300, BK = 512;
  MmaCase<DT> c(M, N, K, 0, BLayout::NK, seed);
  RowsWithNanAfter<DT> a(c.a.data(), c.lda, M, K), b(c.b.data(), c.ldb, N, K);
  alignas(64) S aScratch[M * BK], bScratch[N * BK]; /* as a kernel's: 64-byte aligned */
  const ak::tile_ref<S> at = ak::load_ref<DT, M, BK>(aScratch, a.tensor, {0, 0}, 0.0);
  const ak::tile_ref<S> bt = ak::load_ref<DT, N, BK>(bScratch, b.tensor, {0, 0}, 0.0);
  ASSERT_EQ(at.cols, K);
  ASSERT_EQ(at.data, a.data.data()) << "read in place";
  ASSERT_EQ(bt.cols, K);
  ak::mma<DT, M, N, BK>(c.acc.data(), at, bt);
  c.expectClose("ragged a and b");

  MmaCase<DT> p(M, N, K, 0, BLayout::NK, seed + 1); // b packed: its tile past K is copied as panels
  RowsWithNanAfter<DT> pa(p.a.data(), p.lda, M, K);
  PackedB<DT> packed(p);
  const ak::tile_ref<S> pat = ak::load_ref<DT, M, BK>(aScratch, pa.tensor, {0, 0}, 0.0);
  const ak::tile_ref<S> pbt = ak::load_ref<DT, N, BK>(bScratch, packed.tensor, {0, 0}, 0.0);
  ASSERT_EQ(pat.cols, K);
  ak::mma<DT, M, N, BK>(p.acc.data(), pat, pbt);
  p.expectClose("ragged a, packed b");

  MmaCase<DT> kn(M, N, K, 0, BLayout::KN, seed + 2); // v (K x N): its rows past K are gathered as zeros
  RowsWithNanAfter<DT> ka(kn.a.data(), kn.lda, M, K), v(kn.b.data(), kn.ldb, K, N);
  alignas(64) S vScratch[BK * N];
  const ak::tile_ref<S> kat = ak::load_ref<DT, M, BK>(aScratch, ka.tensor, {0, 0}, 0.0);
  const ak::tile_ref<S> vt = ak::load_ref<DT, BK, N>(vScratch, v.tensor, {0, 0}, 0.0);
  ASSERT_EQ(kat.cols, K);
  ak::mma_kn<DT, M, N, BK>(kn.acc.data(), kat, vt);
  kn.expectClose("ragged a, v laid out K x N");
}

TEST(CpuPanels, RaggedLastKStepComputesOnlyColumnsInBounds) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  checkRaggedStep<ak::f32, 1, 32>(21);
  checkRaggedStep<ak::f32, 5, 40>(22);
  checkRaggedStep<ak::f32, 16, 64>(23);
  checkRaggedStep<ak::bf16, 1, 32>(24);
  checkRaggedStep<ak::bf16, 5, 40>(25);
  checkRaggedStep<ak::bf16, 16, 64>(26);
}

/// The last row tile of M (a: MT rows of which `rows` are in bounds) and of
/// N (b: NT rows, `cols` in bounds), rows of the tensors followed by NaN:
/// ak::load_ref reads a in place with its row count, mma computes the rows
/// in bounds (AVX-512 register blocks, AMX in 16-row groups with the last
/// partial one copied, the f32 inner-product form; few-row forms from a
/// zero-padded copy) and leaves the accumulator's other rows and columns as
/// they were. `packed`: b pre-packed into panels, read in place with its row
/// count too when they end before the tile's (panel_window: the panel forms
/// compute the columns in bounds, AMX a copy of the whole panels), with NaN
/// past its last panel.
template <class DT, int64_t MT, int64_t NT, int64_t K, BLayout L = BLayout::NK>
void checkRaggedRows(int64_t rows, int64_t cols, bool packed, unsigned seed) {
  using S = typename DT::storage;
  MmaCase<DT> c(rows, cols, K, 0, L, seed);
  RowsWithNanAfter<DT> a(c.a.data(), c.lda, rows, K);
  RowsWithNanAfter<DT> b(c.b.data(), c.ldb, L == BLayout::NK ? cols : K, L == BLayout::NK ? K : cols);
  std::unique_ptr<PackedB<DT>> panels;
  if (packed) panels = std::make_unique<PackedB<DT>>(c);
  alignas(64) S aScratch[MT * K], bScratch[NT * K];
  const ak::tile_ref<S> at = ak::load_ref<DT, MT, K>(aScratch, a.tensor, {0, 0}, 0.0);
  ASSERT_EQ(at.rows, rows);
  ASSERT_EQ(at.data, a.data.data()) << "read in place";
  std::vector<float> acc(MT * NT);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float &x : acc) x = dist(rng);
  const std::vector<float> before = acc;
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t n = 0; n < cols; ++n) acc[m * NT + n] = c.acc[m * cols + n];
  if constexpr (L == BLayout::NK) {
    const ak::tile_ref<S> bt = ak::load_ref<DT, NT, K>(bScratch, packed ? panels->tensor : b.tensor, {0, 0}, 0.0);
    if (packed) {
      ASSERT_TRUE(bt.panels);
      ASSERT_EQ(bt.data, panels->buffer.get()) << "panels read in place";
      ASSERT_EQ(bt.rows, cols < NT ? cols : -1);
    }
    ak::mma<DT, MT, NT, K>(acc.data(), at, bt);
  } else {
    const ak::tile_ref<S> vt = ak::load_ref<DT, K, NT>(bScratch, b.tensor, {0, 0}, 0.0);
    ak::mma_kn<DT, MT, NT, K>(acc.data(), at, vt);
  }
  for (int64_t m = 0; m < MT; ++m)
    for (int64_t n = 0; n < NT; ++n) {
      if (m < rows && n < cols)
        c.acc[m * cols + n] = acc[m * NT + n];
      else
        ASSERT_EQ(acc[m * NT + n], before[m * NT + n]) << "a row or column past the tensor changed at " << m << ", "
                                                       << n;
    }
  c.expectClose(packed ? "ragged rows, packed b" : "ragged rows");
}

TEST(CpuPanels, RaggedLastRowTileComputesOnlyRowsInBounds) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  checkRaggedRows<ak::f32, 64, 64, 128>(33, 64, false, 31);                 // register blocks: 5 of 8
  checkRaggedRows<ak::f32, 64, 64, 128>(45, 50, false, 32);                 // and b's last 14 rows
  checkRaggedRows<ak::f32, 32, 64, 128>(20, 64, true, 33);                  // packed weights
  checkRaggedRows<ak::f32, 16, 64, 512>(13, 64, false, 34);                 // the lanes form
  checkRaggedRows<ak::f32, 4, 32, 128>(3, 32, false, 35);                   // few rows: a copied dense
  checkRaggedRows<ak::f32, 64, 128, 64, BLayout::KN>(40, 128, false, 36);   // values laid out K x N
  checkRaggedRows<ak::bf16, 32, 64, 128>(20, 64, false, 37);                // AMX: 16 rows + 4 copied
  checkRaggedRows<ak::bf16, 64, 64, 256>(33, 64, true, 38);                 // AMX on panels: 32 + 1
  checkRaggedRows<ak::bf16, 24, 64, 128>(13, 40, false, 39);                // vdpbf16ps blocks
  checkRaggedRows<ak::bf16, 16, 64, 512>(9, 64, false, 40);                 // AMX few rows (a copied dense), else lanes
  checkRaggedRows<ak::bf16, 8, 64, 256>(5, 64, true, 41);                   // AMX few rows on panels: the same
  // Packed b whose rows end inside the tile (a transposed MoE expert's tokens): one panel of two, half of
  // the second, or a panel and a half.
  checkRaggedRows<ak::f32, 64, 64, 128>(40, 20, true, 42);
  checkRaggedRows<ak::f32, 32, 64, 96>(20, 9, true, 43);
  checkRaggedRows<ak::f32, 128, 64, 64>(100, 40, true, 44);
  checkRaggedRows<ak::f32, 4, 64, 128>(3, 33, true, 45);                   // few rows
  checkRaggedRows<ak::bf16, 64, 64, 128>(40, 20, true, 46);                // AMX: the panels copied whole
  checkRaggedRows<ak::bf16, 32, 64, 256>(17, 48, true, 47);
  checkRaggedRows<ak::bf16, 128, 64, 64>(127, 12, true, 48);
  checkRaggedRows<ak::bf16, 4, 64, 512>(2, 31, true, 49);                  // few rows
  checkRaggedRows<ak::bf16, 8, 64, 256>(6, 17, true, 50);                  // AMX few rows
}

} // namespace
