//===- Verifier.cpp - execute, check, report ----------------------------===//

#include "argus/Verify/Verifier.h"

#include "Checks.h"
#include "Replay.h"

#include "argus/Interpreter/Interpreter.h"

#include <chrono>

namespace argus::verify {

bool KernelReport::proved_all() const {
  for (const Finding &f : findings)
    if (f.severity == Severity::Error)
      return false;
  return true;
}

bool VerifyResult::proved() const {
  for (const KernelReport &k : kernels)
    if (!k.proved_all())
      return false;
  return true;
}

KernelReport verifyKernel(mlir::func::FuncOp kernel, const VerifyOptions &options) {
  auto start = std::chrono::steady_clock::now();
  KernelReport report;
  report.kernel = kernel.getSymName().str();
  {
    detail::SymContext ctx;
    detail::Executor ex(ctx, options);
    ex.run(kernel);
    // What cannot be modelled is a finding: never a silent pass.
    for (auto &[op, what] : ex.exec.problems) {
      Finding f;
      f.kind = CheckKind::Unsupported;
      f.message = what;
      Access at;
      at.point.location = interp::formatLocation(op->getLoc());
      at.point.op = op->getName().getStringRef().str();
      f.accesses.push_back(at);
      report.findings.push_back(std::move(f));
    }
    detail::Checker(ex, report).runAll();
    if (options.replay)
      for (Finding &f : report.findings)
        f.replay = detail::replayFinding(ex, kernel, f);
  } // the Z3 context goes here, and its teardown counts too
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

VerifyResult verifyModule(mlir::ModuleOp module, const VerifyOptions &options) {
  VerifyResult result;
  module.walk([&](mlir::func::FuncOp fn) {
    if (fn->hasAttr(kernel_attr::kKernel))
      result.kernels.push_back(verifyKernel(fn, options));
  });
  return result;
}

} // namespace argus::verify
