//===- VerifyTestUtil.h - lower a DSL file and verify it --------*- C++ -*-===//
#ifndef ARGUS_TEST_VERIFIER_VERIFYTESTUTIL_H
#define ARGUS_TEST_VERIFIER_VERIFYTESTUTIL_H

#include "argus/Dialect/Argus.h"
#include "argus/Lowering/LowerToArgus.h"
#include "argus/Verify/Verifier.h"

#include <fstream>
#include <sstream>
#include <string>

namespace argus::test {

struct Verified {
  std::string error; // lowering failure
  verify::VerifyResult result;
};

inline std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Lowers `source` (from `path`, for locations) with `spec` and verifies it.
inline Verified verifySource(const std::string &source, const std::string &path,
                             const lowering::Specialization &spec = {},
                             const verify::VerifyOptions &options = {}) {
  mlir::DialectRegistry registry;
  registerArgusDialects(registry);
  mlir::MLIRContext context(registry);
  auto lowered = lowering::compileKernelSource(source, path, context, spec);
  if (auto *f = std::get_if<lowering::LoweringFailure>(&lowered))
    return {f->message, {}};
  return {"", verify::verifyModule(*std::get<mlir::OwningOpRef<mlir::ModuleOp>>(lowered), options)};
}

} // namespace argus::test

#endif
