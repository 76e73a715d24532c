//===- LoweringTestUtil.h - lower DSL text for tests ----------------------===//
#ifndef ARGUS_TEST_LOWERING_UTIL_H
#define ARGUS_TEST_LOWERING_UTIL_H

#include "argus/Dialect/Argus.h"
#include "argus/Lowering/LowerToArgus.h"

#include <string>

namespace argus::test {

struct Lowered {
  std::string ir;    // printed module, empty on failure
  std::string error; // formatted diagnostics, empty on success
};

inline Lowered lower(const std::string &source, const lowering::Specialization &spec = {},
                     const std::string &kernel = "") {
  mlir::DialectRegistry registry;
  registerArgusDialects(registry);
  mlir::MLIRContext ctx(registry);
  auto result = lowering::compileKernelSource(source, "t.argus", ctx, spec, kernel);
  Lowered out;
  if (auto *f = std::get_if<lowering::LoweringFailure>(&result)) {
    out.error = f->message;
    return out;
  }
  llvm::raw_string_ostream os(out.ir);
  std::get<mlir::OwningOpRef<mlir::ModuleOp>>(result)->print(os);
  return out;
}

} // namespace argus::test

#endif
