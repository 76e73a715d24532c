//===- argus_config.h - what the runtime learns once, at the first call ---===//
//
// The library has no init function (the contract: "no global state the caller
// must set up"), so everything that depends on the process rather than on a
// call is computed lazily, once, by the first call into the library, and
// then read without locks by every thread:
//
//   - environment: ARGUS_STRICT (1/true/yes/on or 0/false/no/off/empty),
//     ARGUS_NUM_THREADS (non-negative integer, 0 = OpenMP default),
//     ARGUS_FAKE_MISSING_ISA (features to pretend absent, for tests);
//   - the CPU ISA check against argus_generated_isa (argus_isa.h);
//   - a consistency check of the generated kernel tables (argus_registry.h).
//
// A malformed variable or a failed check does not abort: every entry point
// calls `ready()` first and returns the recorded error.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_CONFIG_H
#define ARGUS_RUNTIME_CONFIG_H

#include "argus_kernels.h"
#include "argus_registry.h"

#include <string>

namespace argus_rt {

struct Config {
  bool strict = false; ///< ARGUS_STRICT: a fallback kernel is an error.
  int numThreads = 0;  ///< ARGUS_NUM_THREADS, passed to the kernels.
  /// The first problem found, or ARGUS_OK / "" when the library is usable:
  /// INVALID_ARGUMENT for a malformed environment variable, UNSUPPORTED for
  /// a missing ISA feature, INTERNAL for inconsistent generated tables.
  argus_status status = ARGUS_OK;
  std::string message;
};

/// The process-wide configuration, computed on first use (thread-safe).
const Config &config();

/// Recomputes the configuration from the current environment. For tests
/// only: not exported from the library; references to the previous Config
/// stay valid (old snapshots are kept alive, never freed).
void reloadConfig();

/// ARGUS_OK when the library can run kernels; otherwise records
/// "<function>: <problem>" as the last error and returns its status.
argus_status ready(const char *function);

/// Checks GEMM tables (the generated ones, at the first call); "" when
/// consistent, else what is wrong, e.g. "GEMM group 2 (n=96, k=48,
/// bf16 x bf16 -> f32): NULL kernel or name for bucket 0".
std::string checkGemmTables(const argus_gemm_group *groups, int32_t groupCount,
                            const argus_gemm_fallback *fallbacks, int32_t fallbackCount);

/// Checks the MoE table the same way, e.g. "MoE entry 0 (bf16_generic):
/// the last tier must take any number of rows (max_rows INT64_MAX)".
std::string checkMoeTables(const argus_moe_kernel *entries, int32_t count);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_CONFIG_H
