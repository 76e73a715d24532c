//===- CodegenGpu.cpp - public entry points of the GPU backend ------------===//
#include "argus/Backend/CodegenGpu.h"

#include "LaneEmitter.h"

namespace argus::codegen {

bool isGpuTarget(llvm::StringRef name) { return lanes::laneTarget(name.str()) != nullptr; }

llvm::Expected<std::string> emitGpuKernel(mlir::func::FuncOp kernel, llvm::StringRef symbol, llvm::StringRef target) {
  if (!kernel)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "emitGpuKernel: expected a kernel function, got null");
  const lanes::LaneTarget *lanes = lanes::laneTarget(target.str());
  if (!lanes)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown GPU target '" + target + "' (expected hip-gfx942, hip-gfx90a or cuda-sm90a)");
  lanes::LaneEmitter emitter(*lanes);
  return emitter.emitUnit(kernel, symbol);
}

} // namespace argus::codegen
