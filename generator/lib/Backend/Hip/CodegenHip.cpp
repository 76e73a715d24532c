//===- CodegenHip.cpp - public entry points of the HIP backend ------------===//
#include "argus/Backend/CodegenHip.h"

#include "HipEmitter.h"

namespace argus::codegen {

bool isHipTarget(llvm::StringRef name) { return name == "hip-gfx942" || name == "hip-gfx90a"; }

llvm::Expected<std::string> emitHipKernel(mlir::func::FuncOp kernel, llvm::StringRef symbol,
                                          const HipTarget &target) {
  if (!kernel)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "emitHipKernel: expected a kernel function, got null");
  hip::HipEmitter emitter(target);
  return emitter.emitUnit(kernel, symbol);
}

} // namespace argus::codegen
