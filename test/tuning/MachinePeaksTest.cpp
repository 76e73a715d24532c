// The read roof's loop (argus::machine::readSlice): it reads its parts side by side, and must
// still read every 128-float block of the slice exactly once, the rest after the parts included.
#include "argus/Tuning/MachinePeaks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>

namespace {

/// Block b of the slice holds b + 1 in every element: the sum is 128 * blocks * (blocks + 1) / 2,
/// exact in f32 for these sizes, and wrong if any block is read twice or skipped.
double expectedSum(size_t blocks) { return 128.0 * double(blocks) * double(blocks + 1) / 2.0; }

float sumOf(size_t blocks, bool avx512) {
  std::unique_ptr<float, decltype(&std::free)> buffer(
      static_cast<float *>(std::aligned_alloc(64, blocks * 128 * sizeof(float))), &std::free);
  for (size_t b = 0; b < blocks; ++b)
    for (size_t i = 0; i < 128; ++i) buffer.get()[b * 128 + i] = float(b + 1);
  return avx512 ? argus::machine::readSlice(buffer.get(), blocks * 128)
                : argus::machine::readSliceAvx2(buffer.get(), blocks * 128);
}

TEST(MachinePeaks, ReadSliceReadsEveryBlockOnce) {
  // Fewer blocks than parts (all in the rest), a whole number of rounds, and rounds plus a rest.
  for (size_t blocks : {1, 7, 8, 16, 29, 131}) {
    if (argus::machine::hasAvx512())
      EXPECT_EQ(double(sumOf(blocks, true)), expectedSum(blocks)) << blocks << " blocks, AVX-512";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      EXPECT_EQ(double(sumOf(blocks, false)), expectedSum(blocks)) << blocks << " blocks, AVX2";
  }
}

} // namespace
