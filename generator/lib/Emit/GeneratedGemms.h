//===- GeneratedGemms.h - GPU GEMM kernels generated from the template -*- C++ -*-===//
//
// A GPU library's GEMM kernels that argus-gen generates at build time: each an
// instance of templates/gemm/gemm_tn_cdna.argus (tile, wave or warp grid,
// bf16 or f16), proved by the verifier and emitted by the target's backend
// into the build's src/ directory. The hip builder's whole GEMM set, the cuda
// builder's fallback for what the Hopper kernels cannot take.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_GENERATEDGEMMS_H
#define ARGUS_EMIT_GENERATEDGEMMS_H

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace argus::emit {

struct GeneratedGemm {
  std::string symbol;
  int bm, bn, wm, wn; // the template's BM, BN, WM, WN
  bool f16;           // T = TC = f16 (else bf16)
};

/// Proves and emits every kernel of `gemms` for `target` into
/// srcDir/<symbol><extension> (instances cached in `cacheDir`); "" or why not.
std::string emitGeneratedGemms(const std::filesystem::path &home, const std::filesystem::path &srcDir,
                               const std::vector<GeneratedGemm> &gemms, const std::string &target,
                               const std::string &extension, const std::string &cacheDir);

/// The manifest's "generated_kernels": each kernel's symbol, template and parameters.
nlohmann::json generatedGemmsJson(const std::vector<GeneratedGemm> &gemms);

} // namespace argus::emit

#endif // ARGUS_EMIT_GENERATEDGEMMS_H
