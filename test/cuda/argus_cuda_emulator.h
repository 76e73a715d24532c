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

namespace argus::cuda::emu {

int threadIndex();
int blockIndex(int d);
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

struct Launch {
  int gridX = 1, gridY = 1, gridZ = 1;
  int threads = 32;       // per CTA, a multiple of the warp size
  int clusterX = 1;       // CTAs per cluster along x; gridX must be a multiple
  int sharedBytes = 0;    // dynamic shared memory per CTA
};

/// Runs `kernel` on every thread of every CTA of `launch`.
void run(const Launch &launch, const std::function<void()> &kernel);

} // namespace argus::cuda::emu

#endif // ARGUS_CUDA_EMULATOR_H
