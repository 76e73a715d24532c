//===- argus_gemm_dispatch.h - which GEMM kernel runs, and running it ------===//
//
// Choosing a kernel is split from running it so that argus_gemm and the
// debugging extension argus_gemm_kernel_name share one decision:
//
//   GemmPlan plan;
//   if (auto s = planGemm(args, config(), "argus_gemm", &plan)) return s;
//   runGemm(args, plan, config().numThreads, packedB);   // packedB: NULL or opened b_packed
//
// The decision (see argus_registry.h for the tables):
//   m == 0 or n == 0                  -> Noop            "argus_noop"
//   k == 0                            -> BetaScale       "argus_beta_scale"
//                                        (C = beta*C + bias, by the runtime)
//   group with equal (n, k, dtypes)   -> its kernel for argus_bucket_index(m)
//   fallback for the dtypes           -> it, or UNSUPPORTED under ARGUS_STRICT
//   nothing                           -> UNSUPPORTED
// and then, unless ARGUS_STRICT: f32 with plain weights where
// transposedFormFits -> the generic f32 kernel in the transposed form
// (argus_gemm_transposed.h), reported by its name; the kernel above stays
// the plan's for when that form's scratch cannot be allocated.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_GEMM_DISPATCH_H
#define ARGUS_RUNTIME_GEMM_DISPATCH_H

#include "argus_config.h"
#include "argus_kernels.h"
#include "argus_packed_weights.h"
#include "cpu/argus_cpu_abi.h"

#include <cstdint>

namespace argus_rt {

enum class GemmPlanKind { Noop, BetaScale, Kernel };

struct GemmPlan {
  GemmPlanKind kind = GemmPlanKind::Noop;
  argus_cpu_kernel_fn kernel = nullptr; ///< set when kind == Kernel
  const char *name = "argus_noop";      ///< what argus_gemm_kernel_name reports
  bool fallback = false;                ///< the generic kernel, not a catalog one
  int32_t group = -1;                   ///< index in argus_gemm_groups, or -1
  int32_t bucket = -1;                  ///< bucket inside that group, or -1
  /// Set: computes C^T = B A^T with this generic f32 kernel (argus_gemm_transposed.h).
  argus_cpu_kernel_fn transposed = nullptr;
};

/// Picks what runs for a VALID `args` (validateGemm returned ARGUS_OK).
/// Fails with ARGUS_ERROR_UNSUPPORTED (message prefixed by `function`) when
/// the library has no kernel, or only the fallback and `config.strict`.
argus_status planGemm(const argus_gemm_args &args, const Config &config, const char *function,
                      GemmPlan *plan);

/// Builds the kernel's argus_cpu_arg[ARGUS_GEMM_KERNEL_ARGS] (exposed for
/// tests of the calling convention); B is `packedB` (PANELS) when given.
void buildGemmKernelArgs(const argus_gemm_args &args, argus_cpu_arg out[7], const PackedWeights *packedB = nullptr);

/// Executes `plan` on `args`, B read from `packedB` when given.
/// @pre planGemm(args, ...) produced `plan`.
void runGemm(const argus_gemm_args &args, const GemmPlan &plan, int numThreads,
             const PackedWeights *packedB = nullptr);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_GEMM_DISPATCH_H
