//===- BuildCommand.h - argus-gen build: sweep, then emit --------*- C++ -*-===//
#ifndef ARGUS_TOOLS_BUILDCOMMAND_H
#define ARGUS_TOOLS_BUILDCOMMAND_H

#include "argus/Emit/LibraryBuilder.h"
#include "argus/Tuning/Sweep.h"

#include <ostream>
#include <string>

namespace argus::tools {

struct BuildFlags {
  emit::BuildOptions build;
  std::string dbPath;   // default OUT/tuning.db
  int budget = 4;       // GEMM candidates per bucket; 0: tiles by rule, no database
  bool retune = false;  // discard a database made for another configuration
  std::string agent = "rule"; // who proposes candidates (tuning::sweepAgents())
  uint64_t seed = 1;          // of the planner and random search
  double searchSeconds = 0;   // per configuration, 0 = no limit
  tuning::LlmSettings llm;    // --agent llm (its key from $ARGUS_LLM_API_KEY or $OPENAI_API_KEY)
};

/// `argus-gen build`: sweeps the catalog's GEMM buckets into the tuning
/// database (resuming whatever an earlier run left), then emits the library
/// from its best. Progress goes to `out` (one rewritten line on a terminal,
/// one line per finished configuration otherwise). Returns "" or the error.
std::string buildCommand(BuildFlags flags, std::ostream &out, bool terminal);

} // namespace argus::tools

#endif // ARGUS_TOOLS_BUILDCOMMAND_H
