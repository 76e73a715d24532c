//===- GemmPlan.h - which GEMM kernels a library holds ----------*- C++ -*-===//
//
// Turns a catalog's GEMM configurations into kernel instances: one per
// (shape, token bucket) with tile parameters chosen for that bucket, deduped
// when buckets share parameters, plus generic fallbacks per supported dtype
// combination (small, medium and large m). The bucket bounds come from the catalog and are looked
// up at run time with argus_bucket_index (dist/runtime/argus_bucketing.h),
// the same function the plan uses here.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_GEMMPLAN_H
#define ARGUS_EMIT_GEMMPLAN_H

#include "argus/Catalog/OpConfig.h"
#include "argus/Lowering/LowerToArgus.h"

#include <functional>
#include <string>
#include <vector>

namespace argus::emit {

/// Element types of one GEMM variant, by MLIR spelling ("bf16", "f32").
struct GemmTypes {
  std::string a, c; // a and b share one type
  bool operator<(const GemmTypes &o) const { return a != o.a ? a < o.a : c < o.c; }
  bool operator==(const GemmTypes &o) const { return a == o.a && c == o.c; }
};

struct GemmTiles {
  int64_t bm = 0, bn = 0, bk = 0;
  /// A kernel that replaces the template (the tuning database's name of an
  /// LLM's kernel, "llm/<hash>.argus"); "" for the template itself.
  std::string kernel;
};

/// The template every GEMM kernel instantiates unless its tiles name a replacement.
inline constexpr const char *kGemmTemplatePath = "templates/gemm/gemm_tn.argus";

/// One compiled kernel.
struct GemmKernel {
  std::string symbol;   // C symbol in the library (argusk_*: never exported)
  int64_t n = 0, k = 0; // 0 = symbolic (fallback)
  GemmTypes types;
  GemmTiles tiles;
  std::vector<std::string> ops; // catalog ops served (qkv, o, ...)
  lowering::Specialization specialization() const;
  std::string templatePath() const { return tiles.kernel.empty() ? kGemmTemplatePath : tiles.kernel; }
};

/// One dispatch group: a static (n, k, types) and a kernel per bucket; a
/// fallback is a group with n = k = 0 (any shape of its types).
struct GemmGroup {
  int64_t n = 0, k = 0;
  GemmTypes types;
  std::vector<std::string> ops;
  std::vector<int64_t> bucketBounds;   // ascending m upper bounds
  std::vector<size_t> kernelPerBucket; // index into GemmPlan::kernels
};

struct GemmPlan {
  std::vector<GemmKernel> kernels;   // tuned kernels, then fallbacks
  std::vector<GemmGroup> groups;
  std::vector<GemmGroup> fallbacks;  // n = k = 0, bucketed on m like the groups
};

/// Whether this target's kernels may read the weights pre-packed in panels
/// of 32 rows (argus_pack_weights). `bf16InF32`: as chooseCpuGemmTiles.
bool weightsMayComePacked(const GemmTypes &types, bool bf16InF32);

/// The k-step of a 64-column CPU tile `bm` rows tall: long where mma takes
/// its inner-product form, shorter where it takes the outer-product form.
int64_t cpuGemmKStep(int64_t bm, const GemmTypes &types);

/// Tile parameters for a bucket of `m` tokens on the CPU target: the rule
/// a build without tuning uses, and the first candidate of a sweep.
/// `bf16InF32`: the target computes bf16 in f32 (codegen::cpuTargetWidensBf16),
/// which holds bf16 to f16's 128-row tiles within the stack budget.
GemmTiles chooseCpuGemmTiles(int64_t m, int64_t n, int64_t k, const GemmTypes &types, bool bf16InF32 = false);

/// Up to `budget` tile candidates for that bucket, the rule's first, then its
/// neighbours (one parameter changed, then two), each within the limits of
/// the CPU backend's mma (BK a multiple of 32, tiles within the stack budget).
std::vector<GemmTiles> cpuGemmCandidates(int64_t m, int64_t n, int64_t k, const GemmTypes &types, int budget,
                                         bool bf16InF32 = false);
/// The same around another `rule` (MoE tiers); with `rowsFixed`, only BN and
/// BK move (a tier's row count is its contract with the runtime).
std::vector<GemmTiles> cpuGemmCandidates(const GemmTiles &rule, int64_t m, int64_t n, int64_t k,
                                         const GemmTypes &types, int budget, bool rowsFixed, bool bf16InF32 = false);

/// Chooses the tiles of a catalog bucket (m is its upper bound).
using GemmTileChooser = std::function<GemmTiles(int64_t m, int64_t n, int64_t k, const GemmTypes &types)>;

/// The plan for every GEMM configuration in `configs`, tiles by `choose`
/// (empty: the rule; fallbacks always by rule: they serve shapes no sweep
/// has seen).
GemmPlan planGemms(const std::vector<catalog::OpConfig> &configs, const GemmTileChooser &choose = {},
                   bool bf16InF32 = false);

/// The C symbol of a kernel: dtypes, static shape and tiles, so equal kernels
/// (and only they) share a symbol.
std::string gemmKernelSymbol(const GemmKernel &kernel);

/// The dtype combinations every library can run (generic fallbacks).
std::vector<GemmTypes> fallbackGemmTypes();

} // namespace argus::emit

#endif // ARGUS_EMIT_GEMMPLAN_H
