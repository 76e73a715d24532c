//===- LaneTarget.cpp - the hip-* and cuda-sm90a lane targets --------------===//
#include "LaneTarget.h"

namespace argus::codegen::lanes {

std::string LaneTarget::kernelEntry(int64_t threads, const std::string &symbol, const std::string &params) const {
  if (isHip())
    return "ARGUS_HIP_KERNEL(" + std::to_string(threads) + ") void " + symbol + "(" + params + " p)";
  // Unmangled, so that the driver finds it by name; the parameters stay in the constant bank.
  return "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(threads) + ") " + symbol +
         "(const __grid_constant__ " + params + " p)";
}

std::string LaneTarget::sharedDeclaration(int64_t bytes) const {
  if (isHip())
    return "ARGUS_LDS(lds, " + std::to_string(bytes) + ");";
  if (mma == MmaFamily::Wgmma)
    return "char *const lds = ak::alignedShared();  // " + std::to_string(bytes) + " bytes from a 1024-byte boundary";
  return "char *const lds = argus::cuda::dynamicShared();  // " + std::to_string(bytes) + " bytes at launch";
}

int64_t LaneTarget::sharedAlignment() const { return mma == MmaFamily::Wgmma ? 1024 : 16; }

static LaneTarget hip(const std::string &name) {
  LaneTarget t;
  t.name = name;
  t.backend = "the HIP backend";
  t.language = "HIP";
  t.group = "wave";
  t.workgroup = "workgroup";
  t.oneWorkgroup = "a CDNA workgroup";
  t.sharedNoun = "LDS";
  t.lanes = 64;
  t.maxGroups = 16;     // 1024 work-items
  t.sharedBytes = 65536; // gfx90a and gfx942
  t.mma = MmaFamily::Mfma;
  t.launchHeader = "argus_hip_tile_launch.h";
  t.header = "argus_hip_tile.h";
  t.tileNamespace = "argus::hip::tile";
  t.fn = "ARGUS_HIP_FN";
  t.deviceCode = "ARGUS_HIP_DEVICE_CODE";
  t.groupIndex = "argus::hip::workGroup";
  t.groupInWorkgroup = "argus::hip::wave()";
  t.laneGroup = "ak::Wave";
  t.barrier = "argus::hip::barrier();";
  t.mathPrefix = "__builtin_";
  t.checksTileSpans = true;
  t.asyncCopies = true;
  t.readsTileElements = true;
  return t;
}

/// gfx942 (MI300): fp8 MFMAs read E4M3FNUZ, not the OCP E4M3 of gfx950 and Hopper.
static LaneTarget withFp8Fnuz(LaneTarget t) {
  t.fp8Fnuz = true;
  return t;
}

LaneTarget warpgroupsOf(const LaneTarget &cuda) {
  LaneTarget t = cuda;
  t.group = "warpgroup";
  t.lanes = 128;
  t.maxGroups = 8; // 1024 threads; named barriers 1..8 order each one's shared scratch
  t.mma = MmaFamily::Wgmma;
  t.groupInWorkgroup = "ak::warpgroup()";
  t.laneGroup = "ak::Warpgroup";
  return t;
}

static LaneTarget cudaSm90a() {
  LaneTarget t;
  t.name = "cuda-sm90a";
  t.backend = "the CUDA backend";
  t.language = "CUDA";
  t.group = "warp";
  t.workgroup = "CTA";
  t.oneWorkgroup = "an sm_90a CTA";
  t.sharedNoun = "shared memory";
  t.lanes = 32;
  t.maxGroups = 32;             // 1024 threads
  t.sharedBytes = 227 * 1024;   // sm_90's most dynamic shared memory per CTA
  t.mma = MmaFamily::MmaSync;
  t.launchHeader = "argus_cuda_tile_launch.h";
  t.header = "argus_cuda_tile.h";
  t.tileNamespace = "argus::cuda::tile";
  t.fn = "ARGUS_CUDA_FN";
  t.deviceCode = "ARGUS_CUDA_DEVICE_CODE";
  t.groupIndex = "argus::cuda::blockIndex";
  t.groupInWorkgroup = "ak::warp()";
  t.laneGroup = "ak::Warp";
  t.barrier = "argus::cuda::syncThreads();";
  t.mathPrefix = "";
  t.asyncCopies = true;
  return t;
}

const LaneTarget *laneTarget(const std::string &name) {
  static const LaneTarget gfx942 = withFp8Fnuz(hip("hip-gfx942")), gfx90a = hip("hip-gfx90a"), sm90a = cudaSm90a();
  if (name == gfx942.name)
    return &gfx942;
  if (name == gfx90a.name)
    return &gfx90a;
  if (name == sm90a.name)
    return &sm90a;
  return nullptr;
}

} // namespace argus::codegen::lanes
