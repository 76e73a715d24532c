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

} // namespace
