//===- CodegenHip.h - argus kernels as HIP C++ for CDNA GPUs ----*- C++ -*-===//
//
// The HIP backend: one argus kernel whose threads are waves (argus.threads =
// waves per workgroup) becomes one HIP C++ translation unit, written against
// dist/runtime/hip/argus_hip_tile.h only. It defines, for symbol `sym`:
//
//   struct sym_params { ak::Tensor A; ...; float alpha; ...; int64_t num_programs[3]; };
//   ak::LaunchShape sym_launch(sym_params &p);      // host: grid, work-items, LDS
//   ARGUS_HIP_FN void sym_body(const sym_params &p); // one work-item's program
//   ARGUS_HIP_KERNEL(threads) void sym(sym_params p); // device compiles only
//
// so that the unit compiles two ways: with clang++-22 -x hip for gfx942 /
// gfx90a (a code object), and with the host compiler and ARGUS_HIP_EMULATE,
// where the wave emulator runs sym_body on every work-item. Each tile of the
// DSL lives in the registers of one wave, spread over its lanes by a register
// layout (RegisterLayouts.h); mma becomes v_mfma_f32_32x32x8 (bf16 / f16),
// shared buffers LDS, barrier s_barrier.
//
// Example:
//   auto hip = argus::codegen::emitHipKernel(kernel, "gemm_cdna", {"hip-gfx942"});
//   // clang++-22 -x hip --offload-arch=gfx942 -nogpulib -nogpuinc --offload-device-only
//   //   -O3 -std=c++17 -I dist/runtime -I dist/runtime/hip kernel.hip -o kernel.co
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_CODEGENHIP_H
#define ARGUS_BACKEND_CODEGENHIP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace argus::codegen {

/// The CDNA processor to compile for: "hip-gfx942" or "hip-gfx90a". Both take
/// the same source; only the compiler's --offload-arch differs.
struct HipTarget {
  std::string name = "hip-gfx942";
};

/// Emits one HIP C++ translation unit for `kernel` (see above). Fails, with a
/// message that starts with the location of the offending op, for what it
/// cannot lower: a kernel whose threads are not waves of a workgroup (1 to
/// 16), an op without a lowering (transpose, reduce, local buffers, ...), a
/// tile needed in two register layouts, an mma that is not 32x32-blocked
/// bf16 / f16, or a symbol that is not a C identifier.
llvm::Expected<std::string> emitHipKernel(mlir::func::FuncOp kernel, llvm::StringRef symbol,
                                          const HipTarget &target);

/// True for the target names this backend accepts.
bool isHipTarget(llvm::StringRef name);

} // namespace argus::codegen

#endif // ARGUS_BACKEND_CODEGENHIP_H
