// The cluster emulator's mma.sync m16n8k16 against a plain matrix product, with the operands
// handed to the lanes by a second, independent statement of the fragment layouts: CuTe's
// SM80_16x8x16 MMA atom's thread-value layouts (A: ((4,8),(2,2,2)):((32,1),(16,8,128)) over
// m + 16 k; B: ((4,8),(2,2)):((16,1),(8,64)) over n + 8 k; C: ((4,8),(2,2)):((32,1),(16,8)) over
// m + 16 n), where argus_cuda_kernel_device.h states them as the PTX ISA does. The two must agree,
// or the kernels' fragment arithmetic is checked against the wrong hardware. Likewise wgmma with A
// in registers (attention's P · V) against CuTe's SM90 64x16 GMMA atom: A ((4,8,4),(2,2,2)):
// ((128,1,16),(64,8,512)) over m + 64 k, C ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)) over m + 64 n.
#include "argus_cuda_emulator.h"
#include "argus_cuda_kernel_device.h"
#include "argus_sm90.cuh"

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

// Fills a matrix with values in [-1, 1), rounded to bf16 when `bf16`.
template <int R, int C>
void fill(float (&m)[R][C], std::mt19937 &rng, bool bf16) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (auto &row : m)
    for (float &x : row)
      x = bf16 ? bf16ToFloat(floatToBf16(value(rng))) : value(rng);
}

// The same for the warpgroup layouts ((4,8,4),(2,2,R)):((128,1,16),(64,8,512)) of CuTe's GMMA atoms.
int gmmaOffset(int t, int v) {
  return (t % 4) * 128 + ((t / 4) % 8) + (t / 32) * 16 + (v % 2) * 64 + ((v / 2) % 2) * 8 + (v / 4) * 512;
}

TEST(CudaEmulatorMma, AgreesWithCuteLayoutsAndAPlainProduct) {
  std::mt19937 rng(5);
  float a[16][16], b[16][8], c[16][8];  // A is m x k, B is k x n, C is m x n
  fill(a, rng, true);
  fill(b, rng, true);
  fill(c, rng, false);

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

TEST(CudaEmulatorMma, RegisterAWgmmaAgreesWithCuteLayoutsAndAPlainProduct) {
  constexpr int N = 64;
  std::mt19937 rng(6);
  static float a[64][16], b[N][16], c[64][N], d[64][N];  // A is m x k, B is n x k (K-major), C is m x n
  fill(a, rng, true);
  fill(b, rng, true);
  fill(c, rng, false);
  emu::Launch launch;
  launch.threads = 128;
  launch.sharedBytes = N * 128;
  emu::run(launch, [&] {
    const int t = threadIndex();
    auto *tile = reinterpret_cast<uint8_t *>(dynamicShared());
    for (int e = t; e < N * 16; e += 128) {  // B in TMA's 128-byte swizzle: 16-byte chunk ^= row % 8
      const int n = e / 16, k = e % 16, byte = n * 128 + k * 2;
      *reinterpret_cast<uint16_t *>(tile + (byte ^ ((n % 8) << 4))) = floatToBf16(b[n][k]);
    }
    syncThreads();
    uint32_t fa[4];
    for (int r = 0; r < 4; ++r) {  // register r holds values 2r and 2r + 1
      const int lo = gmmaOffset(t, 2 * r), hi = gmmaOffset(t, 2 * r + 1);
      fa[r] = packBf16(a[lo % 64][lo / 64], a[hi % 64][hi / 64]);
    }
    float fc[N / 2];
    for (int v = 0; v < N / 2; ++v) {
      const int o = gmmaOffset(t, v);
      fc[v] = c[o % 64][o / 64];
    }
    argus::sm90::wgmmaFence();
    argus::sm90::WgmmaBf16Rs<N>::mma(fc, fa, argus::sm90::swizzled128Descriptor(tile, 0), 1);
    argus::sm90::wgmmaCommit();
    argus::sm90::wgmmaWait<0>();
    for (int v = 0; v < N / 2; ++v) {
      const int o = gmmaOffset(t, v);
      d[o % 64][o / 64] = fc[v];
    }
  });
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < N; ++n) {
      double expected = c[m][n];
      for (int k = 0; k < 16; ++k)
        expected += double(a[m][k]) * b[n][k];
      EXPECT_NEAR(d[m][n], expected, 1e-5) << "D[" << m << "][" << n << "]";
    }
}

} // namespace
