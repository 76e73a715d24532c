//===- LibraryBuilder.h - catalog in, libargus_kernels.so out ---*- C++ -*-===//
//
// `argus-gen build`: reads a catalog, plans the kernels, instantiates the DSL
// templates, lowers them through the argus dialect and the target's backend,
// compiles everything with the runtime from dist/, and lays out the package:
//   OUT/lib/libargus_kernels.so.X.Y.Z (+ .so.X, .so links)
//   OUT/include/argus_kernels.h
//   OUT/manifest.json (also OUT/share/argus_kernels/manifest.json)
//   OUT/lib/pkgconfig/argus_kernels.pc, OUT/lib/cmake/ArgusKernels/ (find_package)
//   OUT/src/  generated kernel and table sources, for reading
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_LIBRARYBUILDER_H
#define ARGUS_EMIT_LIBRARYBUILDER_H

#include "argus/Backend/CodegenCpu.h"
#include "argus/Emit/AttentionPlan.h"
#include "argus/Emit/GemmPlan.h"
#include "argus/Emit/MoePlan.h"

#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace argus::emit {

/// Version of the generated libraries: X is the C ABI version (SONAME).
inline constexpr const char *kLibraryVersion = "1.0.0";
inline constexpr const char *kLibrarySoname = "libargus_kernels.so.1";

struct BuildOptions {
  std::string catalogPath;
  std::string target = codegen::defaultCpuTarget();
  std::string outDir;
  std::string homeDir;   // the Argus tree holding templates/ and dist/
  std::string cacheDir;  // object cache; empty = OUT/.cache
  int jobs = 2;
  std::function<void(const std::string &)> log; // progress lines
  GemmTileChooser chooseGemmTiles;  // empty: the rule for `target`                // tiles of each catalog GEMM bucket
  AttentionTileChooser chooseAttentionTiles = chooseCpuAttentionTiles; // of each catalog prefill kernel
  MoeTileChooser chooseMoeTiles;                                       // of catalog MoE tiers (null: rule)
  std::string tuning = "tiles by rule (no tuning database)"; // how they were chosen, for the manifest
  /// Kernels that are no file of the tree, by the name tiles give them
  /// (GemmTiles::kernel): the tuning database's (TuningDb::sources).
  std::map<std::string, std::string> kernelSources;
};

struct BuildReport {
  std::string libraryPath;
  int kernels = 0;        // distinct compiled kernels
  int tunedKernels = 0;   // of which tuned for catalog shapes
  int fallbacks = 0;      // of which generic fallbacks
  int groups = 0;         // catalog GEMM shapes dispatched
  int compiled = 0, fromCache = 0;
  double seconds = 0;
};

std::variant<BuildReport, std::string> buildLibrary(const BuildOptions &options);

/// The Argus tree: $ARGUS_HOME, else the source tree argus-gen was built from.
std::string defaultHomeDir();

/// Flags that compile a generated kernel of `target` for a library (a
/// sweep's candidates use the same, so the library reuses their objects).
std::vector<std::string> kernelCompileFlags(const std::string &homeDir, const std::string &target);

/// Writes `text` unless the file already holds exactly it (keeps mtimes, so
/// an unchanged source is not recompiled); false with `error` set on failure.
bool writeIfChanged(const std::string &path, const std::string &text, std::string &error);


} // namespace argus::emit

#endif // ARGUS_EMIT_LIBRARYBUILDER_H
