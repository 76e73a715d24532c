//===- CodegenCpu.cpp - public entry points of the CPU backend ------------===//
#include "argus/Backend/CodegenCpu.h"

#include "CpuEmitter.h"

namespace argus::codegen {

bool isCpuTarget(llvm::StringRef name) { return name == "cpu-avx512" || name == "cpu-avx2"; }

bool hostRunsCpuTarget(llvm::StringRef target) {
  if (target == "cpu-avx512")
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  if (target == "cpu-avx2")
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  return false;
}

bool cpuTargetWidensBf16(llvm::StringRef target) { return target != "cpu-avx512"; }

std::string defaultCpuTarget() { return hostRunsCpuTarget("cpu-avx512") ? "cpu-avx512" : "cpu-avx2"; }

llvm::Expected<std::string> emitCpuKernel(mlir::func::FuncOp kernel, llvm::StringRef symbol,
                                          const CpuTarget &target) {
  if (!kernel)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "emitCpuKernel: expected a kernel function, got null");
  cpu::CpuEmitter emitter(target);
  return emitter.emitUnit(kernel, symbol);
}

std::vector<std::string> cpuCompileFlags(const CpuTarget &target) {
  // -fwrapv: signed integer arithmetic wraps like arith's; -ffp-contract=off:
  // no fused multiply-adds outside the mma micro-kernels, so elementwise
  // results round exactly as the interpreter's do.
  std::vector<std::string> flags = {"-O3", "-std=c++17", "-fPIC", "-fopenmp", "-fwrapv",
                                    "-ffp-contract=off", "-fno-math-errno"};
  if (target.name == "cpu-avx512") {
    for (const char *f : {"-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mavx512bf16",
                          "-mfma", "-mf16c"})
      flags.push_back(f);
  } else if (target.name == "cpu-avx2") {
    for (const char *f : {"-mavx2", "-mfma", "-mf16c"})
      flags.push_back(f);
  }
  return flags;
}

} // namespace argus::codegen
