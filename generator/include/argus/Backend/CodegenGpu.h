//===- CodegenGpu.h - argus kernels as HIP C++ or CUDA C++ -------*- C++ -*-===//
//
// The GPU backend: one argus kernel whose threads are lane groups of one
// workgroup (argus.threads = groups) becomes one translation unit, written
// against the target's tile header only:
//
//   hip-gfx942, hip-gfx90a   HIP C++, a thread per CDNA wave of 64 lanes,
//                            dist/runtime/hip/argus_hip_tile.h; mma becomes
//                            v_mfma_f32_32x32x8 / 16x16x16, buffers LDS;
//   cuda-sm90a               CUDA C++, a thread per warp of 32 lanes,
//                            dist/runtime/cuda/argus_cuda_tile.h; mma becomes
//                            mma.sync.m16n8k16, buffers dynamic shared memory.
//
// Either unit defines, for symbol `sym`:
//
//   struct sym_params { ak::Tensor A; ...; float alpha; ...; int64_t num_programs[3]; };
//   ak::LaunchShape sym_launch(sym_params &p);  // host: grid, threads, shared bytes
//   void sym_body(const sym_params &p);         // one lane's program (a device function)
//   kernel sym(sym_params p);                   // device compiles only
//
// so that it compiles two ways: for the GPU (clang++-22 -x hip --offload-arch
// gfx942 / gfx90a; nvcc -gencode=arch=compute_90a,code=sm_90a), and for the
// host with ARGUS_HIP_EMULATE / ARGUS_CUDA_EMULATE, where the target's
// emulator runs sym_body on every thread. Each tile of the DSL lives in the
// registers of one lane group, spread over its lanes by a register layout
// (generator/lib/Backend/Lanes/RegisterLayouts.h).
//
// Example:
//   auto cuda = argus::codegen::emitGpuKernel(kernel, "moe_gate_up", "cuda-sm90a");
//   // nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I dist/runtime
//   //   -I dist/runtime/cuda -c kernel.cu
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_CODEGENGPU_H
#define ARGUS_BACKEND_CODEGENGPU_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace argus::codegen {

/// True for the target names this backend accepts (hip-gfx942, hip-gfx90a, cuda-sm90a).
bool isGpuTarget(llvm::StringRef name);

/// Emits one translation unit for `kernel` (see above). Fails, with a
/// message that starts with the location of the offending op, for what it
/// cannot lower: a kernel whose threads are not lane groups of a workgroup
/// (1 to 16 waves, 1 to 32 warps), an op without a lowering (local buffers,
/// a reduce along another dimension, ...), an mma that is not bf16 / f16
/// into f32, too much shared memory, or a symbol that is not a C identifier.
llvm::Expected<std::string> emitGpuKernel(mlir::func::FuncOp kernel, llvm::StringRef symbol, llvm::StringRef target);

} // namespace argus::codegen

#endif // ARGUS_BACKEND_CODEGENGPU_H
