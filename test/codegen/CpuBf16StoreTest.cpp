//===- CpuBf16StoreTest.cpp - f32x16::store_bf16 against f32_to_bf16 -----===//
//
// The AVX-512 store of f32 lanes as bf16 takes vcvtneps2bf16 when no lane is
// denormal (the instruction reads those as zero) and the integer rounding
// otherwise; either way every lane must be bit for bit the scalar
// argus_num::f32_to_bf16 (ties to even, NaN kept quiet with its payload).
// Compiled for AVX-512 with BF16 as the cpu-avx512 kernels are.
//
//===----------------------------------------------------------------------===//
#include "argus_cpu_kernel.h"
#include "argus_numerics.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

bool haveAvx512Bf16() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16"); }

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// Stores `lanes` 16 at a time and compares each result with the scalar form.
void expectStoresMatchScalar(const std::vector<float> &lanes) {
  ASSERT_EQ(lanes.size() % 16, 0u);
  std::vector<uint16_t> got(lanes.size(), 0xdead);
  for (size_t i = 0; i < lanes.size(); i += 16)
    argus_cpu::f32x16::store_bf16(got.data() + i, argus_cpu::f32x16::load(lanes.data() + i));
  for (size_t i = 0; i < lanes.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &lanes[i], sizeof bits);
    EXPECT_EQ(got[i], argus_num::f32_to_bf16(lanes[i])) << "lane " << i << ", bits 0x" << std::hex << bits;
  }
}

// Random bit patterns: every class (normal, denormal, zero, inf, NaN) turns up,
// so vectors take both paths.
TEST(CpuBf16Store, RandomBitPatternsMatchScalar) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  std::mt19937 rng(7);
  std::vector<float> lanes(16 * 4096);
  for (float &f : lanes) f = fromBits(rng());
  expectStoresMatchScalar(lanes);
}

// Vectors of normal values only (the vcvtneps2bf16 path): ties in both
// directions, values that round up to the next binade and to infinity,
// infinities, zeros and NaNs with payloads.
TEST(CpuBf16Store, NormalVectorsMatchScalar) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  const uint32_t special[] = {0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f808001u, 0x3fff8000u, 0x7f7fffffu,
                              0xff7fffffu, 0x7f7f8000u, 0x7f800000u, 0xff800000u, 0x00000000u, 0x80000000u,
                              0x7fc00001u, 0x7f800001u, 0xffa5a5a5u, 0x00800000u};
  std::vector<float> lanes;
  for (uint32_t bits : special) lanes.push_back(fromBits(bits));
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-1e4f, 1e4f);
  while (lanes.size() < 16 * 1024) lanes.push_back(value(rng));
  expectStoresMatchScalar(lanes);
}

// One denormal lane sends its vector to the integer rounding, which keeps
// denormals (vcvtneps2bf16 would flush them to zero).
TEST(CpuBf16Store, VectorsWithADenormalMatchScalar) {
  if (!haveAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  std::vector<float> lanes;
  for (int v = 0; v < 16; ++v)
    for (int i = 0; i < 16; ++i)
      lanes.push_back(i == v ? fromBits(0x00400000u + uint32_t(v) * 0x8181u) : 1.0f + float(i) / 3.0f);
  expectStoresMatchScalar(lanes);
  for (float f : {fromBits(0x00018000u), fromBits(0x80018000u), fromBits(0x007fffffu)}) {
    std::vector<float> one(16, 2.5f);
    one[5] = f;
    expectStoresMatchScalar(one);
    EXPECT_NE(argus_num::f32_to_bf16(f) & 0x7fffu, 0u) << "the case must be a denormal that does not round to zero";
  }
}

} // namespace
