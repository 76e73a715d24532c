//===- Replay.h - confirm a counterexample in the interpreter ---*- C++ -*-===//
//
// A finding is only as good as its counterexample: the interpreter runs the
// kernel on the counterexample's sizes and program instance, with inputs
// whose values encode their own coordinates, and observes the offending
// assertion / store. Races whose interleaving the interpreter's lockstep
// schedule cannot produce are reported as "not confirmed", with the reason.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_VERIFY_REPLAY_H
#define ARGUS_LIB_VERIFY_REPLAY_H

#include "Executor.h"

namespace argus::verify::detail {

/// Replays `finding` of the kernel `ex` executed.
Replay replayFinding(Executor &ex, mlir::func::FuncOp kernel, const Finding &finding);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_REPLAY_H
