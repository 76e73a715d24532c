//===- CodeObject.h - what an AMDGPU code object says about its kernels -*- C++ -*-===//
//
// No AMD GPU runs here, so the code object clang emits is the evidence a hip
// library's kernels are what they claim: per kernel, the registers, LDS and
// scratch the compiler allotted (from the AMDGPU metadata note, read with
// LLVM's Object and MsgPack libraries) and the MFMA instructions in its
// disassembly (llvm-objdump). The hip builder records them in the manifest
// and refuses a kernel that goes to scratch, spills VGPRs, moves SGPRs through
// VGPR lanes more than now and then, or cannot keep the occupancy it assumes.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_CODEOBJECT_H
#define ARGUS_EMIT_CODEOBJECT_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace argus::emit {

struct KernelResources {
  std::string name;
  int64_t vgprs = 0, agprs = 0, sgprs = 0;  // vgprs: architectural and AGPRs together (gfx90a, gfx942)
  int64_t vgprSpills = 0, sgprSpills = 0;
  int64_t ldsBytes = 0;      // group segment
  int64_t scratchBytes = 0;  // private segment per work-item
  int64_t workgroupSize = 0; // the kernel's maximum flat workgroup size
  int64_t wavefrontSize = 0;
  int64_t mfmaInstructions = 0;
  std::vector<std::string> mfmaOpcodes;  // distinct, sorted: v_mfma_f32_32x32x8_bf16, ...
  int64_t instructions = 0;  // of the listing, every path counted once
  int64_t laneMoves = 0;     // v_writelane_b32 and v_readlane_b32: where SGPR spills go without scratch

  /// Waves of one workgroup on each of a compute unit's four SIMDs.
  int64_t wavesPerSimd() const;
  nlohmann::json toJson() const;
};

struct CodeObjectInfo {
  std::string target;  // amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
  std::string arch;    // the processor alone: "gfx942"
  std::vector<KernelResources> kernels;
};

/// Reads the code object at `path`; `objdump` is the llvm-objdump to
/// disassemble it with. The error says which file and what is wrong.
std::variant<CodeObjectInfo, std::string> inspectCodeObject(const std::string &path, const std::string &objdump);

/// What keeps `k` from running as the CDNA kernels assume (no scratch, no
/// VGPR spills, SGPR spills only into VGPR lanes and at most one lane move in
/// kMaxLaneMoveShare instructions, one workgroup per compute unit with its
/// registers and LDS); "" when nothing does. CDNA2/3 lanes have 512 registers, at most 256 of them
/// architectural VGPRs and 256 AGPRs, shared by the waves on a SIMD; `vgprs`
/// is the whole unified allocation, as LLVM reports it for gfx90a and gfx942.
std::string resourceProblems(const KernelResources &k);

/// An SGPR spill without scratch is a v_writelane_b32 into a spare VGPR lane
/// and a v_readlane_b32 back, one VALU instruction each: a few beside a
/// kernel's MFMAs cost nothing measurable (gfx90a's f16 decode parks one
/// 64-bit value across its page loop: 4 moves in ~2000 instructions), many
/// (a kernel at the SGPR limit inside its loop) would.
constexpr int64_t kMaxLaneMoveShare = 100;

/// The LLVM 22 tool `name` (clang++, llvm-objdump, ...): /usr/lib/llvm-22/bin/NAME
/// when present, else NAME-22 from the PATH. $ARGUS_HIP_CLANG overrides clang++.
std::string llvmTool(const std::string &name);

} // namespace argus::emit

#endif // ARGUS_EMIT_CODEOBJECT_H
