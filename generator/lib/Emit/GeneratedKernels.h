//===- GeneratedKernels.h - GPU kernels generated from templates -*- C++ -*-===//
//
// A GPU library's kernels that argus-gen generates at build time: each an
// instance of a DSL template under the library's symbol, proved by the
// verifier and emitted by the target's backend into the build's src/
// directory. The hip builder's GEMMs (templates/gemm/gemm_tn_cdna.argus),
// varlen prefill and paged decode attention (templates/attention/
// attention_prefill_cdna.argus, attention_decode_cdna.argus) and MoE
// pipeline kernels (templates/moe/: gather, expert GEMMs, combine); the cuda
// builder's fallback GEMMs.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_GENERATEDKERNELS_H
#define ARGUS_EMIT_GENERATEDKERNELS_H

#include "argus/Lowering/LowerToArgus.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace argus::emit {

/// One template instance under a symbol.
struct GeneratedKernel {
  std::string symbol;
  std::string templatePath; // relative to the Argus tree
  lowering::Specialization spec;
  // The library works without it (an attention configuration: its calls are
  // refused), so a build that cannot make it leaves it out instead of failing.
  bool optional = false;
};

/// An optional kernel a build left out, and why.
struct LeftOutKernel {
  std::string symbol, why;
};

/// A GEMM of templates/gemm/gemm_tn_cdna.argus.
struct GeneratedGemm {
  std::string symbol;
  int bm, bn, wm, wn; // the template's BM, BN, WM, WN
  bool f16;           // T = TC = f16 (else bf16)

  GeneratedKernel kernel() const;
};

/// A varlen prefill of templates/attention/attention_prefill_cdna.argus.
struct GeneratedPrefill {
  std::string symbol;
  int group, headDim, valueDim; // the template's GROUP, D, DV
  bool f16;                     // T = f16 (else bf16)

  GeneratedKernel kernel() const;
};

/// A paged decode of templates/attention/attention_decode_cdna.argus.
struct GeneratedDecode {
  std::string symbol;
  int group, headDim, valueDim, pageSize; // the template's GROUP, D, DV, PAGE
  bool f16;                               // T = f16 (else bf16)

  GeneratedKernel kernel() const;
};

/// A kernel of the MoE pipeline (the gather, a grouped expert GEMM, the
/// combine: templates/moe/), at the template's defaults (bf16): one serves
/// every shape.
struct GeneratedMoe {
  std::string symbol;
  std::string templatePath; // relative to the Argus tree
  std::string fillParams;   // its parameters from the pipeline's (gpu/argus_gpu_generated_moe.h)

  GeneratedKernel kernel() const { return {symbol, templatePath, {}}; }
};

/// Every item's kernel().
template <class Items>
std::vector<GeneratedKernel> kernelsOf(const Items &items) {
  std::vector<GeneratedKernel> kernels;
  for (const auto &item : items)
    kernels.push_back(item.kernel());
  return kernels;
}

/// Proves and emits every kernel of `kernels` for `target` into
/// srcDir/<symbol><extension> (instances cached in `cacheDir`); "" or why not.
/// An optional kernel that fails is added to `leftOut` (when given) instead.
std::string emitGeneratedKernels(const std::filesystem::path &home, const std::filesystem::path &srcDir,
                                 const std::vector<GeneratedKernel> &kernels, const std::string &target,
                                 const std::string &extension, const std::string &cacheDir,
                                 std::vector<LeftOutKernel> *leftOut = nullptr);

/// The manifest's "generated_kernels": each kernel's symbol, template, the
/// parameters the build set ("set") and every const and dtype parameter's
/// value as the template resolves it, defaults included ("parameters").
nlohmann::json generatedKernelsJson(const std::filesystem::path &home, const std::vector<GeneratedKernel> &kernels);

} // namespace argus::emit

#endif // ARGUS_EMIT_GENERATEDKERNELS_H
