//===- emulated_kernels.h - the code object's kernels, on the emulator ----===//
//
// What argus_hip_kernels.hip exports, by symbol, as host functions run by the
// wave emulator: the emulated GEMM test launches them by shape, the fake HIP
// runtime by the name a library asks hipModuleGetFunction for.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_HIP_EMULATED_KERNELS_H
#define ARGUS_TEST_HIP_EMULATED_KERNELS_H

#include "argus_hip_attention_params.h"
#include "argus_hip_gemm_params.h"
#include "argus_hip_schedule.h"

namespace argus::hip::test {

/// Runs the GEMM kernel of `shape` (f16 or bf16) over a gridX x gridY grid;
/// false when the code object has no kernel of that shape.
bool emulateGemm(const GemmShape &shape, bool f16, const GemmParams &params, int gridX, int gridY);

/// Runs the decode attention kernel over (KV heads, sequences).
void emulateDecode(const DecodeParams &params, int kvHeads, int batch, bool f16 = false);

/// Whether the code object has a kernel called `symbol` that the emulator can run.
bool isEmulatedKernel(const char *symbol);
/// The work-items per workgroup the kernel `symbol` is compiled for (0 if unknown).
int kernelThreads(const char *symbol);
/// Runs kernel `symbol` with hipModuleLaunchKernel's grid and kernelParams.
/// False for an unknown kernel.
bool emulateKernel(const char *symbol, int gridX, int gridY, int gridZ, void **arguments);

} // namespace argus::hip::test

#endif // ARGUS_TEST_HIP_EMULATED_KERNELS_H
