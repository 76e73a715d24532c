//===- emulated_kernels.cpp - kernel symbols to emulated launches ---------===//
#include "emulated_kernels.h"

#include "argus_hip_decode_kernel.h"
#include "argus_hip_emulator.h"
#include "argus_hip_gemm_kernel.h"
#include "argus_hip_moe_kernel.h"
#include "argus_hip_prefill_kernel.h"

#include <cstring>
#include <functional>
#include <string>

namespace argus::hip::test {
namespace {

template <Element E, int BM, int BN, int WM, int WN>
void launch(const GemmParams &params, int gridX, int gridY) {
  constexpr GemmShape shape{BM, BN, WM, WN};
  emu::Launch grid;
  grid.gridX = gridX;
  grid.gridY = gridY;
  grid.threads = shape.threads();
  grid.ldsBytes = shape.ldsBytes();
  emu::run(grid, [&] { gemmTn<E, BM, BN, WM, WN>(params); });
}

// The shape whose kernel is called `symbol`, or -1; *f16 says which element type.
int shapeOf(const char *symbol, bool *f16 = nullptr) {
  for (int i = 0; i < kGemmShapeCount; ++i)
    for (bool half : {false, true}) {
      char name[48];
      gemmKernelSymbol(kGemmShapes[i], half, name);
      if (std::strcmp(name, symbol) == 0) {
        if (f16)
          *f16 = half;
        return i;
      }
    }
  return -1;
}

template <Element E>
bool launchShape(const GemmShape &s, const GemmParams &p, int gridX, int gridY) {
  static_assert(kGemmShapeCount == 4, "add the new shape here");
  constexpr GemmShape s0 = kGemmShapes[0], s1 = kGemmShapes[1], s2 = kGemmShapes[2], s3 = kGemmShapes[3];
  if (s == s0) launch<E, s0.bm, s0.bn, s0.wm, s0.wn>(p, gridX, gridY);
  else if (s == s1) launch<E, s1.bm, s1.bn, s1.wm, s1.wn>(p, gridX, gridY);
  else if (s == s2) launch<E, s2.bm, s2.bn, s2.wm, s2.wn>(p, gridX, gridY);
  else if (s == s3) launch<E, s3.bm, s3.bn, s3.wm, s3.wn>(p, gridX, gridY);
  else return false;
  return true;
}

// The kernels other than the GEMM shapes: symbol, work-items, body over the launch's arguments.
struct OtherKernel {
  const char *symbol;
  int threads;
  std::function<void(void **arguments)> body;
};

template <class Params>
const Params &first(void **arguments) {
  return *static_cast<const Params *>(arguments[0]);
}

const OtherKernel kOthers[] = {
    {"argus_hip_gemm_beta_scale", 256,
     [](void **a) { gemmBetaScale<Element::Bf16>(first<GemmParams>(a), *static_cast<const int *>(a[1])); }},
    {"argus_hip_gemm_f16_beta_scale", 256,
     [](void **a) { gemmBetaScale<Element::F16>(first<GemmParams>(a), *static_cast<const int *>(a[1])); }},
    {"argus_hip_decode", kDecodeWaves * kWaveSize,
     [](void **a) { decodeAttention<Element::Bf16, kDecodeWaves>(first<DecodeParams>(a)); }},
    {"argus_hip_decode_f16", kDecodeWaves * kWaveSize,
     [](void **a) { decodeAttention<Element::F16, kDecodeWaves>(first<DecodeParams>(a)); }},
    {"argus_hip_prefill", kPrefillWaves * kWaveSize,
     [](void **a) { prefillAttention<Element::Bf16>(first<PrefillParams>(a)); }},
    {"argus_hip_prefill_f16", kPrefillWaves * kWaveSize,
     [](void **a) { prefillAttention<Element::F16>(first<PrefillParams>(a)); }},
    {"argus_hip_moe_route", kWaveSize, [](void **a) { moeRoute(first<MoeParams>(a)); }},
    {"argus_hip_moe_align", kMoeAlignThreads, [](void **a) { moeAlign(first<MoeParams>(a)); }},
    {"argus_hip_moe_gate_up", kMoeThreads, [](void **a) { moeGateUp(first<MoeParams>(a)); }},
    {"argus_hip_moe_down", kMoeThreads, [](void **a) { moeDown(first<MoeParams>(a)); }},
    {"argus_hip_moe_combine", kMoeCombineThreads, [](void **a) { moeCombine(first<MoeParams>(a)); }},
};

const OtherKernel *other(const char *symbol) {
  for (const OtherKernel &k : kOthers)
    if (std::strcmp(k.symbol, symbol) == 0)
      return &k;
  return nullptr;
}

} // namespace

bool emulateGemm(const GemmShape &s, bool f16, const GemmParams &p, int gridX, int gridY) {
  return f16 ? launchShape<Element::F16>(s, p, gridX, gridY) : launchShape<Element::Bf16>(s, p, gridX, gridY);
}

void emulateDecode(const DecodeParams &params, int kvHeads, int batch, bool f16) {
  const DecodeParams copy = params;
  void *arguments[] = {const_cast<DecodeParams *>(&copy)};
  emulateKernel(f16 ? "argus_hip_decode_f16" : "argus_hip_decode", kvHeads, batch, 1, arguments);
}

bool isEmulatedKernel(const char *symbol) { return shapeOf(symbol) >= 0 || other(symbol); }

int kernelThreads(const char *symbol) {
  if (const OtherKernel *k = other(symbol))
    return k->threads;
  const int shape = shapeOf(symbol);
  return shape < 0 ? 0 : kGemmShapes[shape].threads();
}

bool emulateKernel(const char *symbol, int gridX, int gridY, int gridZ, void **arguments) {
  if (const OtherKernel *k = other(symbol)) {
    emu::Launch grid;
    grid.gridX = gridX;
    grid.gridY = gridY;
    grid.gridZ = gridZ;
    grid.threads = k->threads;
    emu::run(grid, [&] { k->body(arguments); });
    return true;
  }
  bool f16 = false;
  const int shape = shapeOf(symbol, &f16);
  return shape >= 0 && gridZ == 1 && emulateGemm(kGemmShapes[shape], f16, *static_cast<const GemmParams *>(arguments[0]), gridX, gridY);
}

} // namespace argus::hip::test
