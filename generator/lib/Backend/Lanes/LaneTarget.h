//===- LaneTarget.h - what a GPU target is to the lane backend -------------===//
//
// The lane backend lowers a kernel whose threads are lane groups of one GPU
// workgroup: CDNA waves of 64 (hip-*) or CUDA warps of 32 (cuda-sm90a). Both
// targets emit the same C++ dialect against a tile header that spells the
// same functions (gpu/argus_gpu_tile.h and the target's own); what differs
// is here: sizes, the matrix instruction family, and the spelling of the
// few statements that are not calls into the tile header.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_LANES_LANETARGET_H
#define ARGUS_BACKEND_LANES_LANETARGET_H

#include <cstdint>
#include <string>

namespace argus::codegen::lanes {

/// The matrix instructions mma lowers to, which fix the operand and
/// accumulator register layouts (RegisterLayouts.h).
enum class MmaFamily {
  Mfma,    // CDNA v_mfma_f32_32x32x8 / 16x16x16: square blocks, 64 lanes
  MmaSync, // CUDA mma.sync.m16n8k16: A 16 x 16, B 8 x 16, C 16 x 8 blocks, 32 lanes
  Wgmma,   // Hopper wgmma.m64nNk16: operands read in place from shared memory, 128 lanes
};

struct LaneTarget {
  std::string name;       // "hip-gfx942", "cuda-sm90a"
  std::string backend;    // in messages: "the HIP backend"
  std::string language;   // "HIP", "CUDA"
  std::string group;      // a lane group in messages and comments: "wave", "warp"
  std::string workgroup;  // "workgroup", "CTA"
  std::string oneWorkgroup; // "a CDNA workgroup", "an sm_90a CTA"
  std::string sharedNoun; // "LDS", "shared memory"
  int64_t lanes = 64;
  int64_t maxGroups = 16;        // lane groups per workgroup
  int64_t sharedBytes = 65536;   // the most shared memory one workgroup may have
  MmaFamily mma = MmaFamily::Mfma;
  std::string launchHeader;      // what the parameters and launch function need: "argus_hip_tile_launch.h"
  std::string header;            // what the kernel needs: "argus_hip_tile.h"
  std::string tileNamespace;     // "argus::hip::tile"
  std::string fn;                // the device-function qualifier macro
  std::string deviceCode;        // the macro that is 1 in a device compile
  std::string groupIndex;        // workgroup coordinate d: groupIndex + "(d)"
  std::string groupInWorkgroup;  // the DSL's thread id
  std::string laneGroup;         // the tile header's lane group policy: "ak::Warp"
  std::string barrier;           // the workgroup barrier statement
  std::string mathPrefix;        // f32 math functions: prefix + "expf"
  bool checksTileSpans = false;  // loads address a tile by 32-bit offsets (HIP buffers)
  bool asyncCopies = false;      // copy_async is asynchronous: cp.async (wait: cp.async.wait_group), CDNA's
                                 // direct-to-LDS buffer loads (wait: s_waitcnt vmcnt)
  bool readsTileElements = false; // has ak::TileReader: a load elementwise ops alone read may be read slot by
                                  // slot where they use it (ElementwiseFusion.h)
  bool fp8Fnuz = false;          // takes fp8_fnuz (E4M3FNUZ) tiles, mma on them in v_mfma_*_fp8_fp8 (gfx942)

  /// The kernel entry's declaration: "ARGUS_HIP_KERNEL(256) void sym(sym_params p)".
  std::string kernelEntry(int64_t threads, const std::string &symbol, const std::string &params) const;
  /// The statement that names the workgroup's shared memory `lds` of `bytes`.
  std::string sharedDeclaration(int64_t bytes) const;
  /// The alignment of every shared buffer (wgmma's swizzled operands: 1024
  /// bytes; the launch then asks for as many more, `lds` being aligned up).
  int64_t sharedAlignment() const;
  bool isHip() const { return mma == MmaFamily::Mfma; }
};

/// The targets, or null for a name that is neither.
const LaneTarget *laneTarget(const std::string &name);

/// cuda-sm90a with warpgroups of 128 lanes for lane groups and wgmma for mma:
/// what the backend lowers a kernel to when every mma of it can read its
/// operands in place (RegisterLayouts.h: wgmmaOperands).
LaneTarget warpgroupsOf(const LaneTarget &cuda);

} // namespace argus::codegen::lanes

#endif // ARGUS_BACKEND_LANES_LANETARGET_H
