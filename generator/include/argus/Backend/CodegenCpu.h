//===- CodegenCpu.h - argus kernels as C++ for x86-64 CPUs ------*- C++ -*-===//
//
// The CPU backend: one argus kernel (a `func.func` with `argus.kernel`) becomes
// one readable C++ translation unit that g++/clang compile into a shared
// library. The unit includes only "argus_cpu_kernel.h" (dist/runtime/cpu) and
// defines
//
//   extern "C" void <symbol>(const argus_cpu_arg *args, int num_threads);
//
// (argus_cpu_kernel_fn, dist/runtime/cpu/argus_cpu_abi.h): it computes the
// grid by inlining the kernel's grid function, then runs the program
// instances under `#pragma omp parallel for`, one static call per instance.
// Tiles become alignas(64) arrays reused in place where the value they held
// is dead (an mma accumulates into its accumulator's array across the K loop).
//
// Example:
//   auto cpp = argus::codegen::emitCpuKernel(kernel, "gemm_tn_cpu", {"cpu-avx512"});
//   if (!cpp) llvm::errs() << llvm::toString(cpp.takeError());
//   // g++ $(cpuCompileFlags(target)) -shared -I dist/runtime/cpu kernel.cpp -o kernel.so
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_CODEGENCPU_H
#define ARGUS_BACKEND_CODEGENCPU_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace argus::codegen {

/// The CPU target this machine runs best: cpu-avx512 where it has every
/// extension that target's flags enable (AVX-512 F/BW/VL/DQ/BF16, FMA, F16C),
/// else cpu-avx2. The default wherever a CPU target is not named, so that what
/// argus-gen tunes and tests it can also run.
std::string defaultCpuTarget();

/// True when this machine can run code built for `target` (a CPU target name).
bool hostRunsCpuTarget(llvm::StringRef target);

/// True where `target` has no AVX512_BF16, so mma computes bf16 operands in
/// f32: widened tiles on the stack, as f16's are everywhere.
bool cpuTargetWidensBf16(llvm::StringRef target);

/// The x86-64 flavour to compile for.
struct CpuTarget {
  /// "cpu-avx512" or "cpu-avx2". Only the compiler flags and the comments
  /// depend on it: the support header picks its code paths from the
  /// compiler's ISA macros (__AVX512F__, __AVX512BF16__, __AVX2__).
  std::string name = defaultCpuTarget();
};

/// Emits one C++ translation unit defining
/// `extern "C" void <symbol>(const argus_cpu_arg *args, int num_threads)`
/// for `kernel`. Fails, with a message that starts with the location of the
/// offending op ("file:line:col: ..."), for anything it cannot lower: an
/// unknown op, a thread-level kernel (argus.threads > 1), a missing grid
/// function, an unsupported type, an unknown target or a symbol that is not a
/// C identifier.
llvm::Expected<std::string> emitCpuKernel(mlir::func::FuncOp kernel, llvm::StringRef symbol,
                                          const CpuTarget &target);

/// Compiler flags for a target (without -shared / -I / -o), e.g. for
/// cpu-avx512: -O3 -std=c++17 -fPIC -fopenmp -fwrapv -ffp-contract=off
/// -fno-math-errno -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512bf16
/// -mfma -mf16c. An unknown target gets the portable flags only.
std::vector<std::string> cpuCompileFlags(const CpuTarget &target);

/// True for the target names this backend accepts.
bool isCpuTarget(llvm::StringRef name);

} // namespace argus::codegen

#endif // ARGUS_BACKEND_CODEGENCPU_H
