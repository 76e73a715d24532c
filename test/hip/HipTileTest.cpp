// The register-layout contracts of argus_hip_tile.h that the generated kernels lean on, checked
// directly on the wave emulator: an MFMA over padded tiles (a decode tile's 4 query rows on a
// 16-row v_mfma_f32_16x16x16, k padded to a whole step) must treat the padding as zeros whatever
// it holds, since elementwise ops leave garbage there.
#include "argus_hip_emulator.h"
#include "argus_hip_tile.h"
#include "argus_hip_tile_launch.h"

#include "argus_numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace ak = argus::hip::tile;
using argus::hip::Element;

namespace {

TEST(HipTile, PaddedMfmaOperandsMultiplyAsZeros) {
  constexpr int M = 4, N = 16, K = 8;
  using A = ak::MfmaOperand<M, K, 16>;
  using B = ak::MfmaOperand<N, K, 16>;
  using C = ak::MfmaAcc<M, N, 16>;
  static_assert(A::kPadded && B::kPadded, "rows of A and k of both are padding");
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<uint16_t> a(M * K), b(N * K);
  for (uint16_t &x : a)
    x = argus_num::f32_to_bf16(value(rng));
  for (uint16_t &x : b)
    x = argus_num::f32_to_bf16(value(rng));
  const uint16_t nan = 0x7fc0;
  std::vector<float> out(M * N, std::nanf(""));
  argus::hip::emu::Launch launch;
  launch.threads = 64;
  launch.ldsBytes = 0;
  argus::hip::emu::run(launch, [&] {
    const int l = argus::hip::lane();
    uint16_t x[A::kPerLane], y[B::kPerLane];
    float acc[C::kPerLane] = {};
    for (int i = 0; i < A::kPerLane; ++i)
      x[i] = A::valid(l, i) ? a[A::row(l, i) * K + A::col(l, i)] : nan;
    for (int i = 0; i < B::kPerLane; ++i)
      y[i] = B::valid(l, i) ? b[B::row(l, i) * K + B::col(l, i)] : nan;
    ak::mma<Element::Bf16, 16, M, N, K>(acc, x, y);
    for (int i = 0; i < C::kPerLane; ++i)
      if (C::valid(l, i))
        out[C::row(l, i) * N + C::col(l, i)] = acc[i];
  });
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      double want = 0;
      for (int k = 0; k < K; ++k)
        want += double(argus_num::bf16_to_f32(a[r * K + k])) * argus_num::bf16_to_f32(b[c * K + k]);
      EXPECT_NEAR(out[r * N + c], want, 1e-5) << "row " << r << " column " << c;
    }
}

// gfx942's fp8 as the kernels convert it (argus_hip_device.h: integer and float steps, the same on
// the device) against argus_numerics.h's statement of the format: every code decodes to the
// same value, and floats round to the same code (ties, overflow to NaN, no -0) over every code's
// neighbourhood and a random sweep.
TEST(HipTile, Fp8FnuzConversionsMatchTheReference) {
  for (int code = 0; code < 256; ++code) {
    const float got = argus::hip::fp8FnuzToFloat(uint8_t(code));
    const double want = argus_num::fp8_e4m3fnuz_to_f32(uint8_t(code));
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << code;
    else
      EXPECT_EQ(got, float(want)) << code;
  }
  std::vector<float> values = {0.0f, -0.0f, 1e-30f, -1e-30f, 247.99f, 248.0f, 1e30f, -1e30f, std::nanf("")};
  for (int code = 1; code < 0x80; ++code) {
    const float v = argus::hip::fp8FnuzToFloat(uint8_t(code));
    const float next = code < 0x7f ? argus::hip::fp8FnuzToFloat(uint8_t(code + 1)) : 256.0f;
    values.insert(values.end(), {v, -v, (v + next) / 2, -(v + next) / 2, std::nextafter(v, 0.0f), std::nextafter(v, 1e9f)});
  }
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> wide(-300.0f, 300.0f), narrow(-0.02f, 0.02f);
  for (int i = 0; i < 2000; ++i)
    values.insert(values.end(), {wide(rng), narrow(rng)});
  for (float v : values)
    EXPECT_EQ(int(argus::hip::floatToFp8Fnuz(v)), int(argus_num::f32_to_fp8_e4m3fnuz(v))) << v;
}

// copy_async moves tiles into LDS in dwords, so a launch refuses a source whose rows do not start on
// 4-byte boundaries with unit column stride (the generated launch functions call rowsInDwords).
TEST(HipTile, DirectToLdsCopiesNeedRowsOfWholeDwords) {
  alignas(16) static uint16_t data[64];
  const ak::Tensor even{data, {4, 6, 0, 0}, {8, 1, 0, 0}}, oddPitch{data, {4, 6, 0, 0}, {7, 1, 0, 0}};
  const ak::Tensor oddStart{data + 1, {4, 6, 0, 0}, {8, 1, 0, 0}}, strided{data, {4, 6, 0, 0}, {16, 2, 0, 0}};
  EXPECT_TRUE(ak::rowsInDwords<uint16_t>(even, 2));
  EXPECT_FALSE(ak::rowsInDwords<uint16_t>(oddPitch, 2));
  EXPECT_FALSE(ak::rowsInDwords<uint16_t>(oddStart, 2));
  EXPECT_FALSE(ak::rowsInDwords<uint16_t>(strided, 2));
  EXPECT_TRUE(ak::rowsInDwords<float>(oddPitch, 2)); // a float row is whole dwords at any pitch
  const ak::Tensor bytes{data, {4, 6, 0, 0}, {6, 1, 0, 0}};
  EXPECT_FALSE(ak::rowsInDwords<uint8_t>(bytes, 2));
}

// loadGlobal and storeGlobal at every kind of tile: inside the tensor (run by run where rows are
// aligned, element by element where they are not), over its first row and column (negative
// offsets) and over its last. A load reads the tensor inside and `padding` outside; a store
// writes exactly the tile's part of the tensor, nothing past a row's end or the tensor's.
template <class L, int R, int C>
void checkGlobalTileAccesses(int originElement) {
  constexpr int rows = 20, cols = 40, pitch = 44;
  static uint16_t memory[rows * pitch + 16];
  uint16_t *const data = memory + originElement;
  const ak::Tensor t{data, {rows, cols, 0, 0}, {pitch, 1, 0, 0}};
  const int64_t origins[][2] = {{4, 8}, {-3, -5}, {15, 30}, {-1, 36}, {19, -2}};
  for (const auto &at : origins) {
    const auto fill = [&] {
      for (int i = 0; i < rows * pitch + 16; ++i)
        memory[i] = argus_num::f32_to_bf16(float(i % 251) - 125.0f);
    };
    fill();
    std::vector<float> loaded(R * C, std::nanf(""));
    std::vector<uint16_t> stored(R * C);
    for (int i = 0; i < R * C; ++i)
      stored[i] = argus_num::f32_to_bf16(1000.0f + float(i));
    argus::hip::emu::Launch launch;
    launch.threads = 64;
    launch.ldsBytes = 0;
    argus::hip::emu::run(launch, [&] {
      const int l = argus::hip::lane();
      uint16_t x[L::kPerLane], y[L::kPerLane];
      ak::loadGlobal<L, ak::Bf16, R, C>(x, t, {at[0], at[1]}, -7.0f);
      for (int i = 0; i < L::kPerLane; ++i)
        if (L::valid(l, i)) {
          loaded[L::row(l, i) * C + L::col(l, i)] = argus_num::bf16_to_f32(x[i]);
          y[i] = stored[L::row(l, i) * C + L::col(l, i)];
        }
      argus::hip::waveBarrier(); // every lane has loaded before any stores
      ak::storeGlobal<L, ak::Bf16, R, C>(t, {at[0], at[1]}, y);
    });
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) {
        const int64_t tr = at[0] + r, tc = at[1] + c;
        const bool inside = tr >= 0 && tr < rows && tc >= 0 && tc < cols;
        const float want = inside ? float((originElement + tr * pitch + tc) % 251) - 125.0f : -7.0f;
        EXPECT_EQ(loaded[r * C + c], want) << "tile at (" << at[0] << ", " << at[1] << "), element " << r << ", " << c;
      }
    for (int i = 0; i < rows * pitch + 16; ++i) {
      const int64_t e = i - originElement, tr = e >= 0 ? e / pitch : -1, tc = e >= 0 ? e % pitch : -1;
      const bool written = e >= 0 && tr < rows && tc < cols && tr >= at[0] && tr < at[0] + R && tc >= at[1] &&
                           tc < at[1] + C;
      const uint16_t want = written ? stored[(tr - at[0]) * C + (tc - at[1])]
                                    : argus_num::f32_to_bf16(float(i % 251) - 125.0f);
      ASSERT_EQ(memory[i], want) << "tile at (" << at[0] << ", " << at[1] << "), memory element " << i;
    }
  }
}

TEST(HipTile, GlobalTilesReadPaddingAndWriteNothingPastTheTensor) {
  checkGlobalTileAccesses<ak::Striped<8, 16, 4>, 8, 16>(0);     // runs of 4: one load each inside
  checkGlobalTileAccesses<ak::Striped<8, 16, 4>, 8, 16>(1);     // rows not 8-byte aligned: elements
  checkGlobalTileAccesses<ak::MfmaAcc<16, 32, 16>, 16, 32>(0);  // no runs: elements, every tile
  checkGlobalTileAccesses<ak::MfmaOperand<4, 16, 16>, 4, 16>(0); // padded to 16 rows: padding unread
}

} // namespace
