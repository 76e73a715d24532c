//===- DialectTestUtil.h - parse/print helpers for dialect tests ----------===//
#ifndef ARGUS_TEST_DIALECT_UTIL_H
#define ARGUS_TEST_DIALECT_UTIL_H

#include "argus/Dialect/Argus.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <string>

namespace argus::test {

/// Parses and verifies `text`; on failure returns null and the diagnostics.
inline mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &ctx, const std::string &text,
                                              std::string &diagnostics) {
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> m = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (m && failed(mlir::verify(*m)))
    return nullptr;
  return m;
}

inline std::string print(mlir::Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

inline mlir::DialectRegistry registry() {
  mlir::DialectRegistry r;
  registerArgusDialects(r);
  return r;
}

} // namespace argus::test

#endif
