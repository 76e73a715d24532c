//===- cluster_state.h - what the cluster emulator keeps per cluster and CTA -===//
//
// Private to test/cuda's emulator sources (argus_cuda_emulator.cpp: threads,
// barriers, shuffles, mma.sync; argus_hopper_emulator.cpp: mbarriers, TMA,
// wgmma). A cluster runs as one fiber per thread: fiber i is thread
// i % threads of the cluster's CTA i / threads.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_CUDA_CLUSTER_STATE_H
#define ARGUS_TEST_CUDA_CLUSTER_STATE_H

#include "argus_cuda_emulator.h"
#include "fibers.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

namespace argus::cuda::emu::state {

inline constexpr const char *kWho = "argus cuda emulator";
inline constexpr int kWarpSize = 32;
inline constexpr int kWarpgroupSize = 128;

[[noreturn]] inline void abortWith(const char *what) { argus::emu::abortWith(kWho, what); }

using argus::emu::Barrier;

// What the lanes of one warp exchange in a shuffle or an mma.
struct Warp {
  Barrier barrier{kWarpSize};
  float value[kWarpSize];
  uint32_t a[kWarpSize][4], b[kWarpSize][2];
};

// One wgmma of a warpgroup: its operands' descriptors and every thread's accumulators.
struct WgmmaOp {
  uint64_t descA, descB;  // descA unused when A comes from registers
  int n;
  bool accumulate, registerA, f16;  // f16: both operands f16, else bf16
  float *d[kWarpgroupSize];
  uint32_t a[kWarpgroupSize][4];  // A's bf16 pairs per thread when issued, when registerA
  const uint32_t *aSource[kWarpgroupSize];  // the registers they came from: unchanged until it retires
  std::vector<uint16_t> shared;   // its shared-memory operands when first issued: unchanged until it retires
};

// A warpgroup's wgmmas: issued but not committed, and committed groups not yet waited for.
struct Warpgroup {
  Barrier barrier{kWarpgroupSize};
  float *d[kWarpgroupSize];
  uint32_t a[kWarpgroupSize][4];
  const uint32_t *aSource[kWarpgroupSize];
  int arrived = 0;                     // threads of the wgmma being issued so far
  std::vector<uint16_t> firstShared;   // its shared-memory operands when the first of them issued it
  std::vector<WgmmaOp> open;
  std::deque<std::vector<WgmmaOp>> groups;
};

// The emulator's encoding of a tensor map (in TensorMap's 128 bytes).
struct TensorMap2d {
  uint64_t magic;
  const char *base;
  uint64_t inner, outer, pitchBytes;
  uint32_t elementBytes, boxInner, boxOuter;
  bool swizzle128;
};
static_assert(sizeof(TensorMap2d) <= sizeof(TensorMap), "the encoding fits the driver's 128 bytes");
inline constexpr uint64_t kTensorMapMagic = 0x61726775735f746dull;  // "argus_tm"

// One box moved by TMA between a tensor and shared memory.
struct TensorMapCopy {
  TensorMap2d map;
  uint32_t shared;  // the box's first byte
  int32_t inner, outer;
  int issuer;  // the thread that issued it
};


// An mbarrier: arrivals and transaction bytes still due in the current phase,
// and the TMA copies that will complete bytes on it. A copy lands when a
// thread waits on its barrier, or when the thread that issued it next waits
// on any barrier: no earlier than a correct kernel could see it, and while
// a kernel that releases a stage too early may still be reading it.
struct MBarrier {
  int count = 0, pending = 0;
  int64_t bytes = 0;
  unsigned phase = 0;
  std::vector<std::unique_ptr<TensorMapCopy>> copies;
};

// A thread's TMA stores: committed groups, each read from shared memory and
// written to global memory when the thread waits for it.
struct BulkGroups {
  std::vector<std::unique_ptr<TensorMapCopy>> open;
  std::deque<std::vector<std::unique_ptr<TensorMapCopy>>> committed;
};

// A thread's cp.async copies: the open group and the committed ones, each
// performed when the thread waits for it.
struct AsyncCopy {
  char *shared;
  const char *global;
  int bytes, srcBytes;
};
struct AsyncCopyGroups {
  std::vector<AsyncCopy> open;
  std::deque<std::vector<AsyncCopy>> committed;
};

struct Cta {
  explicit Cta(const Launch &launch);
  std::vector<char> shared;  // poisoned; + 1024 to align the base as kernels align their tiles
  Barrier barrier;
  std::vector<Warp> warps;
  std::vector<Warpgroup> warpgroups;
  std::map<uint32_t, MBarrier> mbarriers;                // by shared-memory offset
  std::map<uint32_t, std::unique_ptr<Barrier>> named;    // bar.sync ids 1..15
  std::vector<BulkGroups> bulk;                          // per thread
  std::vector<AsyncCopyGroups> asyncCopies;              // per thread
  char *base() { return reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(shared.data()) + 1023) / 1024 * 1024); }
};

struct Cluster {
  Cluster(const Launch &launch, int x, int y, int z);
  const Launch &launch;
  const int x, y, z;  // the first CTA's coordinates
  Barrier barrier;
  std::vector<Cta> ctas;
};

/// The cluster whose threads are the running fibers.
Cluster &cluster();
/// The running thread's CTA, and its index in that CTA.
Cta &cta();
int thread();

} // namespace argus::cuda::emu::state

#endif // ARGUS_TEST_CUDA_CLUSTER_STATE_H
