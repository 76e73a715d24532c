//===- MoePlan.h - which MoE kernels a library holds ------------*- C++ -*-===//
//
// Per catalog MoE configuration (dtype, hidden, intermediate), and generically
// per dtype: a fused gate/up kernel (templates/moe/moe_gate_up.argus) and a
// down-projection GEMM (templates/gemm/gemm_tn.argus, f32 rows for the
// combine), each in a small-tile form for experts with few rows (decode)
// and a large-tile one (prefill), which plain weights may run transposed
// (templates/moe/moe_gate_up_t.argus). Routing, grouping and the combine are the
// runtime's (dist/runtime/argus_moe_dispatch.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_MOEPLAN_H
#define ARGUS_EMIT_MOEPLAN_H

#include "argus/Catalog/OpConfig.h"
#include "argus/Emit/GemmPlan.h"
#include "argus/Lowering/LowerToArgus.h"

#include <functional>
#include <string>
#include <vector>

namespace argus::emit {

/// Experts with at most this many rows are decode-sized: the runtime gives
/// whole experts to threads, their kernels single-threaded.
constexpr int64_t kMoeDecodeRows = 4;

/// One compiled kernel of an MoE entry.
struct MoeKernel {
  std::string symbol, templatePath;
  lowering::Specialization spec;
};

/// The kernels that serve experts with at most `maxRows` rows (the last tier
/// of an entry: any number), with tiles `maxRows` tall when that is small.
struct MoeTier {
  int64_t maxRows = 0; // INT64_MAX for the last tier
  MoeKernel gateUp, down;
  int64_t blockRows = 0; // rows per program instance (BM) of both kernels
  /// The kernels for plain (not pre-packed) weights where their rule tiles
  /// differ from gateUp's and down's (chooseCpuMoeTiles); an empty symbol:
  /// gateUp and down serve both layouts.
  MoeKernel gateUpPlain, downPlain;
  /// The last tier's kernels in the transposed form for plain weights, where
  /// the kernels read panels (else empty symbols): the weights are the row
  /// operand, the expert's rows (X, then H) packed per call. gate/up is
  /// moe_gate_up_t, down gemm_tn into f32 (C^T = Wd H^T).
  MoeKernel gateUpTransposed, downTransposed;
};

struct MoeEntry {
  std::string dtype;                  // MLIR spelling
  int64_t hidden = 0, intermediate = 0; // 0: generic
  int64_t numExperts = 0, topK = 0;     // of the catalog configuration (0: generic)
  bool inCatalog = false;
  std::vector<std::string> ops;
  std::string name;                   // for messages and the manifest
  std::vector<MoeTier> tiers; // ascending maxRows

  /// Every kernel of the entry, tier by tier (gate/up, then down).
  std::vector<const MoeKernel *> kernels() const;
};

/// The two kernels of a tier.
enum class MoeRole { GateUp, Down };

/// Tiles of a tier's kernel on the CPU target by rule (BM = `rows`, the
/// tier's tile height): the build without tuning and a sweep's first
/// candidate. `plainWeights`: for a kernel that only plain weights reach.
GemmTiles chooseCpuMoeTiles(MoeRole role, const std::string &dtype, int64_t rows, bool plainWeights = false);

/// The rule's tiles for a tier's main kernel on a target: the plain-weights
/// tiles where every weight comes plain (`bf16InF32`: cpu-avx2, as planMoe).
GemmTiles chooseCpuMoeTilesOnTarget(MoeRole role, const std::string &dtype, int64_t rows, bool bf16InF32);

/// Chooses the tiles of a catalog entry's tier kernel (BM must stay `rows`).
using MoeTileChooser = std::function<GemmTiles(MoeRole role, const MoeEntry &entry, int64_t rows)>;

/// Whether the tier kernels of `dtype` on `target` compute only the rows of a
/// partial row block that are in bounds (argus_cpu_mma.h, mma_ragged_rows:
/// f32 and bf16 on AVX-512). The runtime then runs a partial last block in the last
/// tier instead of splitting it off to smaller tiers, which would stream the
/// expert's weights again.
bool moeKernelsSkipPaddingRows(const std::string &dtype, const std::string &target);

/// The tile height of each tier, ascending; the last serves any rows.
std::vector<int64_t> moeTierBlockRows();

/// Entries of the catalog's MoE configurations (tiles by `choose`), then
/// generic ones per dtype (tiles by rule). `bf16InF32`: the target computes
/// bf16 in f32 (codegen::cpuTargetWidensBf16), whose kernels read every
/// weight plain.
std::vector<MoeEntry> planMoe(const std::vector<catalog::OpConfig> &configs,
                              const MoeTileChooser &choose = nullptr, bool bf16InF32 = false);

/// A tier kernel with the given tiles (what planMoe and a sweep instantiate).
MoeKernel moeKernel(MoeRole role, const MoeEntry &entry, const GemmTiles &tiles);

/// The transposed kernels of an entry's last tier (MoeTier::gateUpTransposed, downTransposed).
MoeKernel moeTransposedKernel(MoeRole role, const MoeEntry &entry);

} // namespace argus::emit

#endif // ARGUS_EMIT_MOEPLAN_H
