//===- argus_cuda_emulator.h - CUDA-core kernels on the host, a cluster at a time -===//
//
// The host side of argus_cuda_kernel_device.h (built with ARGUS_CUDA_EMULATE):
// a thread-block cluster runs as one fiber per thread (test/emulation's
// scheduler), so __syncthreads, __syncwarp, shuffles and cluster barriers
// block exactly where the hardware's would, and the kernels' own source runs.
// Clusters run one after another. The emulator is strict where the hardware
// is lenient:
//   - shared memory starts poisoned (0xff bytes: a NaN in every float);
//   - a shuffle or __syncwarp waits for all 32 lanes of the warp, so a
//     kernel whose lanes diverge around one deadlocks here (and aborts)
//     instead of reading stale lanes;
//   - peerShared of an address outside the CTA's shared memory aborts;
//   - an mma waits for all 32 lanes' operands, like a shuffle.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_CUDA_EMULATOR_H
#define ARGUS_CUDA_EMULATOR_H

#include <cstdint>
#include <functional>

namespace argus::cuda {

/// CUtensorMap on the host (outside namespace emu, so that argument-dependent
/// lookup of a kernel's tmaLoad2d finds only argus_sm90.cuh's).
struct alignas(64) EmulatedTensorMap {
  unsigned long long opaque[16];
};

} // namespace argus::cuda

namespace argus::cuda::emu {

int threadIndex();
int blockIndex(int d);
/// The grid's size in CTAs along dimension d.
int gridSize(int d);
int clusterRank();
int clusterSize();
void syncThreads();
void syncWarp();
void clusterSync();
float warpXor(float v, int laneMask);
char *dynamicShared();
const void *peerShared(const void *p, int rank);
/// *p += v; atomic because fibers switch only at barriers, shuffles and mma.
int atomicAdd(int *p, int v);
float exp2(float x);
/// mma.sync m16n8k16 bf16 -> f32, with the fragment layouts argus_cuda_kernel_device.h states.
void mmaBf16(const uint32_t (&a)[4], const uint32_t (&b)[2], float (&c)[4]);
/// The same with f16 operands.
void mmaF16(const uint32_t (&a)[4], const uint32_t (&b)[2], float (&c)[4]);

/// cp.async: copies `bytes` from global `src` to shared `dst`, the first `srcBytes` read and the
/// rest zeros, when the issuing thread waits for its group (no earlier: a kernel that reads the
/// destination before its wait sees the poison); a thread that ends with copies pending aborts.
void cpAsync(void *dst, const void *src, int bytes, int srcBytes);
void cpAsyncCommit();
/// Lands all but the newest `pending` committed groups of this thread.
void cpAsyncWait(int pending);

//===----------------------------------------------------------------------===//
// Hopper's asynchronous units (argus_sm90.cuh), modelled strictly: a TMA load
// lands in shared memory only when a thread waits on its mbarrier (or its
// issuing thread waits on another, as a producer moving on does, unless the
// launch says landAtOwnBarrierOnly), a wgmma
// reads its operands and writes its accumulators only at the wgmma.wait_group
// that retires it (and aborts if its shared-memory operands changed since it
// was issued), a TMA store reads shared memory only at the
// cp.async.bulk.wait_group that retires it. A kernel that reads too early
// sees the poison; one that overwrites too early changes the result.
//===----------------------------------------------------------------------===//

/// `p` as a shared-memory address (its offset in the CTA's shared memory, whose base is 1024-byte aligned).
uint32_t sharedAddress(const void *p);
void barrierInit(uint64_t *barrier, uint32_t count);
void barrierArrive(uint64_t *barrier);
void barrierArriveExpectBytes(uint64_t *barrier, uint32_t bytes);
void barrierWait(uint64_t *barrier, uint32_t parity);
void namedBarrier(uint32_t id, uint32_t threads);
/// bar.arrive: counts towards the named barrier's next completion without waiting for it.
void namedBarrierArrive(uint32_t id, uint32_t threads);

/// A tensor map as the emulator encodes it (the driver's is opaque; both are 128 bytes).
using TensorMap = argus::cuda::EmulatedTensorMap;
/// cuTensorMapEncodeTiled for a 2-D tensor of `elementBytes` elements: `inner` x `outer`
/// elements, rows `pitchBytes` apart, boxes of boxInner x boxOuter, 128-byte swizzle or none.
void encodeTensorMap2d(TensorMap *map, const void *base, int elementBytes, uint64_t inner, uint64_t outer,
                       uint64_t pitchBytes, uint32_t boxInner, uint32_t boxOuter, bool swizzle128);
void tmaLoad2d(void *destination, const TensorMap *map, uint64_t *barrier, int32_t inner, int32_t outer);
void tmaStore2d(const TensorMap *map, const void *source, int32_t inner, int32_t outer);
void bulkCommit();
/// Retires all but the newest `pending` committed store groups of this thread.
void bulkWait(int pending);

/// wgmma.mma_async m64nNk16 f32 += bf16 x bf16, both operands K-major in shared memory with
/// 128-byte swizzle (the descriptors argus_sm90.cuh builds); d is this thread's N / 2 accumulators.
void wgmmaBf16(float *d, int n, uint64_t descA, uint64_t descB, bool accumulate);
/// The same with A from registers: a[] holds this thread's bf16 pairs of A in mma.m16n8k16's A
/// layout within its warp's 16 rows (read at issue, as registers are).
void wgmmaBf16Rs(float *d, int n, const uint32_t (&a)[4], uint64_t descB, bool accumulate);
/// The same two with f16 operands.
void wgmmaF16(float *d, int n, uint64_t descA, uint64_t descB, bool accumulate);
void wgmmaF16Rs(float *d, int n, const uint32_t (&a)[4], uint64_t descB, bool accumulate);
void wgmmaCommit();
/// Retires all but the newest `pending` committed wgmma groups of this warpgroup.
void wgmmaWait(int pending);

struct Launch {
  int gridX = 1, gridY = 1, gridZ = 1;
  int threads = 32;       // per CTA, a multiple of the warp size
  int clusterX = 1;       // CTAs per cluster along x; gridX must be a multiple
  int clusterZ = 1;       // and along z (rank = x + clusterX z within the cluster); gridZ a multiple
  int clusterCtas() const { return clusterX * clusterZ; }
  int sharedBytes = 0;    // dynamic shared memory per CTA
  unsigned schedule = 0;  // the threads' order in each round (argus::emu::Schedule: 0 index, 1 reversed, else a seed)
  // A TMA load lands only when some thread waits on its own mbarrier, never at its issuer's wait on
  // another: the latest it may land, so that a wait on the wrong barrier reads what was there before.
  bool landAtOwnBarrierOnly = false;
};

/// Runs `kernel` on every thread of every CTA of `launch`.
void run(const Launch &launch, const std::function<void()> &kernel);

} // namespace argus::cuda::emu

#endif // ARGUS_CUDA_EMULATOR_H
