// The cluster emulator's mma.sync m16n8k16 against a plain matrix product, with the operands
// handed to the lanes by a second, independent statement of the fragment layouts: CuTe's
// SM80_16x8x16 MMA atom's thread-value layouts (A: ((4,8),(2,2,2)):((32,1),(16,8,128)) over
// m + 16 k; B: ((4,8),(2,2)):((16,1),(8,64)) over n + 8 k; C: ((4,8),(2,2)):((32,1),(16,8)) over
// m + 16 n), where argus_cuda_kernel_device.h states them as the PTX ISA does. The two must agree,
// or the kernels' fragment arithmetic is checked against the wrong hardware.
#include "argus_cuda_emulator.h"
#include "argus_cuda_kernel_device.h"

#include <gtest/gtest.h>

#include <random>

using namespace argus::cuda;

namespace {

// Offset of value v of thread t in a TV layout ((4,8),(2,2[,2])):((s0,s1),(v0,v1[,v2])).
int tvOffset(int t, int v, const int (&threadStride)[2], const int *valueStride, int values) {
  int offset = (t % 4) * threadStride[0] + (t / 4) * threadStride[1];
  for (int i = 0; i < values; ++i, v /= 2)
    offset += (v % 2) * valueStride[i];
  return offset;
}

TEST(CudaEmulatorMma, AgreesWithCuteLayoutsAndAPlainProduct) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  float a[16][16], b[16][8], c[16][8];  // A is m x k, B is k x n, C is m x n
  for (auto &row : a)
    for (float &x : row)
      x = bf16ToFloat(floatToBf16(value(rng)));
  for (auto &row : b)
    for (float &x : row)
      x = bf16ToFloat(floatToBf16(value(rng)));
  for (auto &row : c)
    for (float &x : row)
      x = value(rng);

  const int aThreads[2] = {32, 1}, aValues[3] = {16, 8, 128};
  const int bThreads[2] = {16, 1}, bValues[2] = {8, 64};
  const int cThreads[2] = {32, 1}, cValues[2] = {16, 8};
  float d[16][8] = {};
  emu::Launch launch;
  launch.threads = 32;
  emu::run(launch, [&] {
    const int t = threadIndex();
    uint32_t fa[4], fb[2];
    float fc[4];
    for (int r = 0; r < 4; ++r) {  // register r holds values 2r and 2r + 1
      const int lo = tvOffset(t, 2 * r, aThreads, aValues, 3), hi = tvOffset(t, 2 * r + 1, aThreads, aValues, 3);
      fa[r] = packBf16(a[lo % 16][lo / 16], a[hi % 16][hi / 16]);
    }
    for (int r = 0; r < 2; ++r) {
      const int lo = tvOffset(t, 2 * r, bThreads, bValues, 2), hi = tvOffset(t, 2 * r + 1, bThreads, bValues, 2);
      fb[r] = packBf16(b[lo / 8][lo % 8], b[hi / 8][hi % 8]);
    }
    for (int v = 0; v < 4; ++v) {
      const int o = tvOffset(t, v, cThreads, cValues, 2);
      fc[v] = c[o % 16][o / 16];
    }
    mmaBf16(fa, fb, fc);
    for (int v = 0; v < 4; ++v) {
      const int o = tvOffset(t, v, cThreads, cValues, 2);
      d[o % 16][o / 16] = fc[v];
    }
  });
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double expected = c[m][n];
      for (int k = 0; k < 16; ++k)
        expected += double(a[m][k]) * b[k][n];
      EXPECT_NEAR(d[m][n], expected, 1e-5) << "D[" << m << "][" << n << "]";
    }
}

} // namespace
