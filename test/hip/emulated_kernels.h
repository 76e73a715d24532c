//===- emulated_kernels.h - the code object's kernels, on the emulator ----===//
//
// What a hip library's code object exports, by symbol, as host functions run
// by the wave emulator: the generated kernels (GEMM, attention, the MoE
// pipeline), which register themselves (generated_kernel_entry.cpp.in, one
// per unit test/hip emits with the library's symbols). The fake HIP runtime launches them by the name a
// library asks hipModuleGetFunction for.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_HIP_EMULATED_KERNELS_H
#define ARGUS_TEST_HIP_EMULATED_KERNELS_H

namespace argus::hip::test {

/// A generated kernel, compiled for the host: what its launch function wants
/// for the arguments a launch passes (work-items; 0 when it refuses them), and
/// its body run over a grid.
struct GeneratedEntry {
  const char *symbol;
  int (*threads)(void **arguments);
  void (*run)(int gridX, int gridY, int gridZ, void **arguments);
};
/// Adds `entry` to the kernels emulateKernel knows (at static initialisation).
bool registerEmulatedEntry(const GeneratedEntry &entry);

/// Whether the code object has a kernel called `symbol` that the emulator can run.
bool isEmulatedKernel(const char *symbol);
/// The work-items per workgroup the kernel `symbol` takes for `arguments` (0 if unknown).
int kernelThreads(const char *symbol, void **arguments);
/// Runs kernel `symbol` with hipModuleLaunchKernel's grid and kernelParams.
/// False for an unknown kernel.
bool emulateKernel(const char *symbol, int gridX, int gridY, int gridZ, void **arguments);

} // namespace argus::hip::test

#endif // ARGUS_TEST_HIP_EMULATED_KERNELS_H
