//===- argus_cuda_kernel_device.h - what a CUDA-core kernel may touch, either side -===//
//
// The CUDA kernels that need no TMA or wgmma (paged decode on CUDA cores,
// prefill on mma.sync) are written against this header only, so that one
// source builds two ways:
//
//   device   nvcc -gencode=arch=compute_90a,code=sm_90a: every call below is
//            one CUDA intrinsic or PTX instruction;
//   host     any C++17 compiler with ARGUS_CUDA_EMULATE defined: every call
//            goes to the cluster emulator (test/cuda/argus_cuda_emulator.h),
//            which runs a thread-block cluster as one fiber per thread, so the
//            kernels' indexing, masking, warp shuffles, barriers and reads of
//            other CTAs' shared memory are tested without a GPU.
//
// What the emulator cannot vouch for is timing and the memory model beyond
// what the barriers below order; both are the hardware's, and a GPU run of
// bench/cuda checks them.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_CUDA_KERNEL_DEVICE_H
#define ARGUS_CUDA_KERNEL_DEVICE_H

#include "argus_numerics.h"

#include <cstdint>

#if defined(__CUDACC__)
#define ARGUS_CUDA_DEVICE_CODE 1
#define ARGUS_CUDA_FN __device__ __forceinline__
#define ARGUS_CUDA_UNROLL _Pragma("unroll")
#define ARGUS_CUDA_NO_UNROLL _Pragma("unroll 1")
#elif defined(ARGUS_CUDA_EMULATE)
#define ARGUS_CUDA_DEVICE_CODE 0
#define ARGUS_CUDA_FN inline
#define ARGUS_CUDA_UNROLL
#define ARGUS_CUDA_NO_UNROLL
#include "argus_cuda_emulator.h"
#else
#error "argus_cuda_kernel_device.h: compile with nvcc, or define ARGUS_CUDA_EMULATE for the host"
#endif
// The qualifier of the kernels in dist/runtime/gpu written once for every target.
#define ARGUS_GPU_FN ARGUS_CUDA_FN
#define ARGUS_GPU_UNROLL ARGUS_CUDA_UNROLL

namespace argus::cuda {

inline constexpr int kWarpSize = 32;

//===----------------------------------------------------------------------===//
// Threads, blocks, clusters
//===----------------------------------------------------------------------===//

ARGUS_CUDA_FN int threadIndex() {
#if ARGUS_CUDA_DEVICE_CODE
  return int(threadIdx.x);
#else
  return emu::threadIndex();
#endif
}

/// Block coordinate `d` (0: x, 1: y, 2: z) in the grid.
ARGUS_CUDA_FN int blockIndex(int d) {
#if ARGUS_CUDA_DEVICE_CODE
  return int(d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : blockIdx.z);
#else
  return emu::blockIndex(d);
#endif
}

/// This CTA's rank in its thread-block cluster, and the cluster's CTA count.
ARGUS_CUDA_FN int clusterRank() {
#if ARGUS_CUDA_DEVICE_CODE
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return int(rank);
#else
  return emu::clusterRank();
#endif
}

ARGUS_CUDA_FN int clusterSize() {
#if ARGUS_CUDA_DEVICE_CODE
  uint32_t size;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  return int(size);
#else
  return emu::clusterSize();
#endif
}

/// __syncthreads: the CTA's shared-memory writes before it are seen by its reads after it.
ARGUS_CUDA_FN void syncThreads() {
#if ARGUS_CUDA_DEVICE_CODE
  __syncthreads();
#else
  emu::syncThreads();
#endif
}

/// __syncwarp: the same for the 32 threads of a warp.
ARGUS_CUDA_FN void syncWarp() {
#if ARGUS_CUDA_DEVICE_CODE
  __syncwarp();
#else
  emu::syncWarp();
#endif
}

/// Every thread of every CTA of the cluster arrives, with release semantics,
/// and waits, with acquire semantics: shared-memory writes before it are seen
/// by any CTA's reads after it (through peerShared).
ARGUS_CUDA_FN void clusterSync() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
  emu::clusterSync();
#endif
}

/// The value `v` of the lane whose index is this lane's XOR `laneMask` (all 32 lanes take part).
ARGUS_CUDA_FN float warpXor(float v, int laneMask) {
#if ARGUS_CUDA_DEVICE_CODE
  return __shfl_xor_sync(0xffffffffu, v, laneMask);
#else
  return emu::warpXor(v, laneMask);
#endif
}

//===----------------------------------------------------------------------===//
// Tensor cores
//===----------------------------------------------------------------------===//

/// c += a·b on a 16 x 8 tile, k = 16, bf16 operands and f32 accumulators, one
/// call per warp (PTX mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32).
/// Lane l (group g = l / 4, t = l % 4) holds, two bf16 per word, low half first:
///   a[0]: A[g][2t, 2t+1]    a[1]: A[g+8][2t, 2t+1]
///   a[2]: A[g][2t+8, +9]    a[3]: A[g+8][2t+8, +9]
///   b[0]: B[2t, 2t+1][g]    b[1]: B[2t+8, 2t+9][g]     (B is k x n)
///   c[0], c[1]: C[g][2t, 2t+1]    c[2], c[3]: C[g+8][2t, 2t+1]
/// (PTX ISA, "Matrix fragments for mma.m16n8k16 with floating point type";
/// the emulator implements exactly these statements, and CudaEmulatorMmaTest
/// holds them to CuTe's SM80_16x8x16 atom, an independent statement of them.)
ARGUS_CUDA_FN void mmaBf16(const uint32_t (&a)[4], const uint32_t (&b)[2], float (&c)[4]) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  emu::mmaBf16(a, b, c);
#endif
}

/// The same with f16 operands (PTX mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32; same layouts).
ARGUS_CUDA_FN void mmaF16(const uint32_t (&a)[4], const uint32_t (&b)[2], float (&c)[4]) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  emu::mmaF16(a, b, c);
#endif
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

/// The CTA's dynamic shared memory (the launch's byte count), 16-byte aligned.
ARGUS_CUDA_FN char *dynamicShared() {
#if ARGUS_CUDA_DEVICE_CODE
  extern __shared__ __align__(16) char argusDynamicShared[];
  return argusDynamicShared;
#else
  return emu::dynamicShared();
#endif
}

/// The address of `*p`, a location in this CTA's shared memory, in the shared
/// memory of the cluster's CTA `rank` (PTX mapa: distributed shared memory).
template <class T>
ARGUS_CUDA_FN const T *peerShared(const T *p, int rank) {
#if ARGUS_CUDA_DEVICE_CODE
  uint64_t peer;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(peer) : "l"(reinterpret_cast<uint64_t>(p)), "r"(rank));
  return reinterpret_cast<const T *>(peer);
#else
  return static_cast<const T *>(emu::peerShared(p, rank));
#endif
}

/// cp.async.cg: starts copying 16 bytes from global `src` to shared `dst` (both
/// 16-byte aligned), of which the first `srcBytes` are read and the rest are
/// zeros. The copy joins this thread's open group (cpAsyncCommit) and lands
/// by the cpAsyncWait that retires it.
ARGUS_CUDA_FN void cpAsync16(void *dst, const void *src, int srcBytes) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(uint32_t(__cvta_generic_to_shared(dst))),
               "l"(src), "r"(srcBytes)
               : "memory");
#else
  emu::cpAsync(dst, src, 16, srcBytes);
#endif
}

/// Closes this thread's open group of cp.async copies.
ARGUS_CUDA_FN void cpAsyncCommit() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("cp.async.commit_group;" ::: "memory");
#else
  emu::cpAsyncCommit();
#endif
}

/// Waits until at most `Pending` of this thread's committed cp.async groups are in flight.
template <int Pending>
ARGUS_CUDA_FN void cpAsyncWait() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
#else
  emu::cpAsyncWait(Pending);
#endif
}

/// *p += v on a shared-memory int, atomically within the CTA; the old value.
ARGUS_CUDA_FN int sharedAtomicAdd(int *p, int v) {
#if ARGUS_CUDA_DEVICE_CODE
  return atomicAdd(p, v);
#else
  return emu::atomicAdd(p, v);
#endif
}

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

ARGUS_CUDA_FN float exp2Fast(float x) {
#if ARGUS_CUDA_DEVICE_CODE
  return exp2f(x);
#else
  return emu::exp2(x);
#endif
}

ARGUS_CUDA_FN float bf16ToFloat(uint16_t h) { return argus_num::bf16_to_f32(h); }

/// Round to nearest, ties to even; NaN stays NaN (argus_numerics.h, on either side).
ARGUS_CUDA_FN uint16_t floatToBf16(float f) { return argus_num::f32_to_bf16(f); }

/// Two floats as the bf16 pair of an mma operand word: `low` in bits 0-15.
ARGUS_CUDA_FN uint32_t packBf16(float low, float high) {
  return uint32_t(floatToBf16(low)) | uint32_t(floatToBf16(high)) << 16;
}

/// 16 and 8 bytes read in one load (16- and 8-byte aligned addresses), and 4 floats.
struct alignas(16) Bytes16 {
  uint32_t word[4];
};
struct alignas(8) Bytes8 {
  uint32_t word[2];
};
struct alignas(16) Floats4 {
  float f[4];
};

/// 16 bytes at `p` (16-byte aligned) that no kernel writes while this one runs. Streaming: kept
/// out of L1 (ld.global.nc.L1::no_allocate), for data read once, so that reused data stays there.
ARGUS_CUDA_FN Bytes16 loadStreaming16(const void *p) {
#if ARGUS_CUDA_DEVICE_CODE
  Bytes16 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.word[0]), "=r"(v.word[1]), "=r"(v.word[2]), "=r"(v.word[3])
               : "l"(p));
  return v;
#else
  return *static_cast<const Bytes16 *>(p);
#endif
}

/// The same through L1 (ld.global.nc), for data that many warps read.
ARGUS_CUDA_FN Bytes16 loadReadOnly16(const void *p) {
#if ARGUS_CUDA_DEVICE_CODE
  const uint4 v = __ldg(static_cast<const uint4 *>(p));
  return {{v.x, v.y, v.z, v.w}};
#else
  return *static_cast<const Bytes16 *>(p);
#endif
}

/// Element i (0 .. 2 * words - 1) of bf16 pairs packed in 32-bit words.
ARGUS_CUDA_FN float bf16Of(const uint32_t *words, int i) {
  return bf16ToFloat(uint16_t(words[i / 2] >> (16 * (i % 2))));
}

//===----------------------------------------------------------------------===//
// The 16-bit element types of attention: conversions and the mma that takes them
//===----------------------------------------------------------------------===//

struct Bf16 {
  static constexpr bool kHalf = false;
  static ARGUS_CUDA_FN float toFloat(uint16_t h) { return bf16ToFloat(h); }
  static ARGUS_CUDA_FN uint16_t fromFloat(float f) { return floatToBf16(f); }
  static ARGUS_CUDA_FN void mma(const uint32_t (&a)[4], const uint32_t (&b)[2], float (&c)[4]) { mmaBf16(a, b, c); }
};

struct F16 {
  static constexpr bool kHalf = true;
  static ARGUS_CUDA_FN float toFloat(uint16_t h) { return argus_num::f16_to_f32(h); }
  static ARGUS_CUDA_FN uint16_t fromFloat(float f) { return argus_num::f32_to_f16(f); }
  static ARGUS_CUDA_FN void mma(const uint32_t (&a)[4], const uint32_t (&b)[2], float (&c)[4]) { mmaF16(a, b, c); }
};

/// Two floats as an operand word of element type E: `low` in bits 0-15.
template <class E>
ARGUS_CUDA_FN uint32_t packPair(float low, float high) {
  return uint32_t(E::fromFloat(low)) | uint32_t(E::fromFloat(high)) << 16;
}

/// Element i of E pairs packed in 32-bit words.
template <class E>
ARGUS_CUDA_FN float elementOf(const uint32_t *words, int i) {
  return E::toFloat(uint16_t(words[i / 2] >> (16 * (i % 2))));
}

} // namespace argus::cuda

#endif // ARGUS_CUDA_KERNEL_DEVICE_H
