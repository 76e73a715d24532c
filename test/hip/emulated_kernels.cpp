//===- emulated_kernels.cpp - kernel symbols to emulated launches ---------===//
#include "emulated_kernels.h"

#include "argus_hip_emulator.h"
#include "argus_hip_decode_kernel.h"
#include "argus_hip_gemm_kernel.h"

#include <cstring>

namespace argus::hip::test {
namespace {

template <int BM, int BN, int WM, int WN>
void launch(const GemmParams &params, int gridX, int gridY) {
  constexpr GemmShape shape{BM, BN, WM, WN};
  emu::Launch grid;
  grid.gridX = gridX;
  grid.gridY = gridY;
  grid.threads = shape.threads();
  grid.ldsBytes = shape.ldsBytes();
  emu::run(grid, [&] { gemmTn<BM, BN, WM, WN>(params); });
}

constexpr char kBetaScale[] = "argus_hip_gemm_beta_scale";
constexpr char kDecode[] = "argus_hip_decode";

// The shape whose kernel is called `symbol`, or -1.
int shapeOf(const char *symbol) {
  for (int i = 0; i < kGemmShapeCount; ++i) {
    char name[40];
    gemmKernelSymbol(kGemmShapes[i], name);
    if (std::strcmp(name, symbol) == 0)
      return i;
  }
  return -1;
}

} // namespace

bool emulateGemm(const GemmShape &s, const GemmParams &p, int gridX, int gridY) {
  static_assert(kGemmShapeCount == 4, "add the new shape here");
  constexpr GemmShape s0 = kGemmShapes[0], s1 = kGemmShapes[1], s2 = kGemmShapes[2], s3 = kGemmShapes[3];
  if (s == s0) launch<s0.bm, s0.bn, s0.wm, s0.wn>(p, gridX, gridY);
  else if (s == s1) launch<s1.bm, s1.bn, s1.wm, s1.wn>(p, gridX, gridY);
  else if (s == s2) launch<s2.bm, s2.bn, s2.wm, s2.wn>(p, gridX, gridY);
  else if (s == s3) launch<s3.bm, s3.bn, s3.wm, s3.wn>(p, gridX, gridY);
  else return false;
  return true;
}

void emulateDecode(const DecodeParams &params, int kvHeads, int batch) {
  emu::Launch grid;
  grid.gridX = kvHeads;
  grid.gridY = batch;
  grid.threads = kDecodeWaves * kWaveSize;
  grid.ldsBytes = decodeLdsBytes(kDecodeWaves);
  emu::run(grid, [&] { decodeAttention<kDecodeWaves>(params); });
}

bool isEmulatedKernel(const char *symbol) {
  return shapeOf(symbol) >= 0 || std::strcmp(symbol, kBetaScale) == 0 || std::strcmp(symbol, kDecode) == 0;
}

int kernelThreads(const char *symbol) {
  if (std::strcmp(symbol, kBetaScale) == 0)
    return 256;
  if (std::strcmp(symbol, kDecode) == 0)
    return kDecodeWaves * kWaveSize;
  const int shape = shapeOf(symbol);
  return shape < 0 ? 0 : kGemmShapes[shape].threads();
}

bool emulateKernel(const char *symbol, int gridX, int gridY, void **arguments) {
  if (std::strcmp(symbol, kDecode) == 0) {
    emulateDecode(*static_cast<const DecodeParams *>(arguments[0]), gridX, gridY);
    return true;
  }
  const GemmParams &params = *static_cast<const GemmParams *>(arguments[0]);
  if (std::strcmp(symbol, kBetaScale) == 0) {
    const int workGroups = *static_cast<const int *>(arguments[1]);
    emu::Launch grid;
    grid.gridX = gridX;
    grid.gridY = gridY;
    grid.threads = 256;
    emu::run(grid, [&] { gemmBetaScale(params, workGroups); });
    return true;
  }
  const int shape = shapeOf(symbol);
  if (shape < 0)
    return false;
  return emulateGemm(kGemmShapes[shape], params, gridX, gridY);
}

} // namespace argus::hip::test
