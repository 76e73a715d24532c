// Hopper (sm_90a) instructions the CUDA backend's kernels are built from: mbarrier rings, TMA bulk
// tensor copies, wgmma with shared-memory descriptors, register reallocation and cluster shared
// memory. Under nvcc each wrapper is one PTX instruction (or a short fixed sequence) with the memory
// clobbers that keep the compiler from moving shared-memory accesses across it; on the host, with
// ARGUS_CUDA_EMULATE, each goes to the cluster emulator (test/cuda/argus_cuda_emulator.h), which
// models the asynchronous units strictly (data lands at the wait that could see it), so kernels
// built from these run on the host too. Fences and register reallocation order or resize nothing
// the emulator keeps, and are no-ops there.
#pragma once

#include "argus_cuda_kernel_device.h"

#include <cstdint>
#include <type_traits>
#if ARGUS_CUDA_DEVICE_CODE
#include <cuda.h>
#else
using CUtensorMap = argus::cuda::emu::TensorMap;
#endif

namespace argus::sm90 {

ARGUS_CUDA_FN uint32_t sharedAddress(const void *pointer) {
#if ARGUS_CUDA_DEVICE_CODE
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
#else
  return cuda::emu::sharedAddress(pointer);
#endif
}

// threadIdx.x, blockIdx, gridDim with their CUDA types, on either side.
ARGUS_CUDA_FN unsigned threadX() {
#if ARGUS_CUDA_DEVICE_CODE
  return threadIdx.x;
#else
  return unsigned(cuda::threadIndex());
#endif
}
ARGUS_CUDA_FN unsigned blockAt(int d) {
#if ARGUS_CUDA_DEVICE_CODE
  return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : blockIdx.z;
#else
  return unsigned(cuda::blockIndex(d));
#endif
}
ARGUS_CUDA_FN unsigned gridAt(int d) {
#if ARGUS_CUDA_DEVICE_CODE
  return d == 0 ? gridDim.x : d == 1 ? gridDim.y : gridDim.z;
#else
  return unsigned(cuda::emu::gridSize(d));
#endif
}

// ---- mbarrier: a phase completes when `count` arrivals and every expected byte have landed ----

ARGUS_CUDA_FN void barrierInit(uint64_t *barrier, uint32_t count) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sharedAddress(barrier)), "r"(count)
               : "memory");
#else
  cuda::emu::barrierInit(barrier, count);
#endif
}

// Makes initialised barriers visible to the other threads and to the TMA unit (async proxy).
ARGUS_CUDA_FN void fenceBarrierInit() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// One arrival that also announces `bytes` the TMA unit will deliver in this phase.
ARGUS_CUDA_FN void barrierArriveExpectBytes(uint64_t *barrier, uint32_t bytes) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sharedAddress(barrier)),
               "r"(bytes)
               : "memory");
#else
  cuda::emu::barrierArriveExpectBytes(barrier, bytes);
#endif
}

ARGUS_CUDA_FN void barrierArrive(uint64_t *barrier) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(sharedAddress(barrier)) : "memory");
#else
  cuda::emu::barrierArrive(barrier);
#endif
}

// Waits until the phase of parity `parity` has completed (the phase counter has moved past it).
ARGUS_CUDA_FN void barrierWait(uint64_t *barrier, uint32_t parity) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("{\n"
               ".reg .pred done;\n"
               "WAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT;\n"
               "}\n" ::"r"(sharedAddress(barrier)),
               "r"(parity)
               : "memory");
#else
  cuda::emu::barrierWait(barrier, parity);
#endif
}

// ---- TMA: 2-D tile copy global -> shared, completing on an mbarrier; out-of-range reads are zeros ----

ARGUS_CUDA_FN void tmaLoad2d(void *destination, const CUtensorMap *map, uint64_t *barrier, int32_t innerCoordinate,
                             int32_t outerCoordinate) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4}], [%2];" ::"r"(sharedAddress(destination)),
               "l"(reinterpret_cast<uint64_t>(map)), "r"(sharedAddress(barrier)), "r"(innerCoordinate),
               "r"(outerCoordinate)
               : "memory");
#else
  cuda::emu::tmaLoad2d(destination, map, barrier, innerCoordinate, outerCoordinate);
#endif
}

// 2-D tile copy shared -> global; the TMA unit clips what falls outside the tensor. Completion
// is tracked per thread in bulk groups.
ARGUS_CUDA_FN void tmaStore2d(const CUtensorMap *map, const void *source, int32_t innerCoordinate,
                              int32_t outerCoordinate) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(sharedAddress(source)), "r"(innerCoordinate), "r"(outerCoordinate)
               : "memory");
#else
  cuda::emu::tmaStore2d(map, source, innerCoordinate, outerCoordinate);
#endif
}

ARGUS_CUDA_FN void bulkCommit() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#else
  cuda::emu::bulkCommit();
#endif
}

// Waits until the stores committed before the last `Pending` groups have read their shared memory.
template <int Pending> ARGUS_CUDA_FN void bulkWaitRead() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
#else
  cuda::emu::bulkWait(Pending);  // the emulator's stores read and write at once
#endif
}

// Waits until those stores are complete in global memory.
template <int Pending> ARGUS_CUDA_FN void bulkWait() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending) : "memory");
#else
  cuda::emu::bulkWait(Pending);
#endif
}

// Orders this thread's ordinary shared-memory writes before later reads by the TMA unit.
ARGUS_CUDA_FN void fenceAsyncShared() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

ARGUS_CUDA_FN void prefetchTensorMap(const CUtensorMap *map) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
#else
  (void)map;
#endif
}

// ---- wgmma ----

// Descriptor of a K-major operand tile stored the way TMA writes it with 128-byte swizzle: rows of
// 64 bf16 (128 bytes), 8-row atoms of 1024 bytes. The tile must start on a 1024-byte boundary;
// `byteOffset` (a multiple of 32) selects the k16 slice within the 64-element row.
ARGUS_CUDA_FN uint64_t swizzled128Descriptor(const void *tile, uint32_t byteOffset) {
  uint64_t address = sharedAddress(tile) + byteOffset;
  uint64_t descriptor = (address & 0x3FFFF) >> 4;  // start address, 16-byte units
  descriptor |= uint64_t(1) << 16;                 // leading offset: unused for swizzled K-major
  descriptor |= uint64_t(1024 >> 4) << 32;         // stride between 8-row atoms
  descriptor |= uint64_t(1) << 62;                 // 128-byte swizzle
  return descriptor;
}

// Orders register writes to the accumulators before the wgmma that reads them.
ARGUS_CUDA_FN void wgmmaFence() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}

ARGUS_CUDA_FN void wgmmaCommit() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#else
  cuda::emu::wgmmaCommit();
#endif
}

template <int Pending> ARGUS_CUDA_FN void wgmmaWait() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
#else
  cuda::emu::wgmmaWait(Pending);
#endif
}

// Keeps the compiler from moving accesses of an accumulator register across a wgmma boundary.
template <int Count> ARGUS_CUDA_FN void fenceRegisters(float (&registers)[Count]) {
#if ARGUS_CUDA_DEVICE_CODE
#pragma unroll
  for (int i = 0; i < Count; ++i)
    asm volatile("" : "+f"(registers[i])::"memory");
#else
  (void)registers;
#endif
}

#if ARGUS_CUDA_DEVICE_CODE
#include "argus_sm90_wgmma.inc"
#else
// m64nNk16, bf16 x bf16 -> f32, both operands K-major in shared memory; accumulate = 0 overwrites d.
template <int N> struct WgmmaBf16 {
  static void mma(float (&d)[N / 2], uint64_t descA, uint64_t descB, uint32_t accumulate) {
    cuda::emu::wgmmaBf16(d, N, descA, descB, accumulate != 0);
  }
};
// The same with A from registers (mma.m16n8k16's A layout per warp of 16 rows).
template <int N> struct WgmmaBf16Rs {
  static void mma(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t descB, uint32_t accumulate) {
    cuda::emu::wgmmaBf16Rs(d, N, a, descB, accumulate != 0);
  }
};
// Both with f16 operands.
template <int N> struct WgmmaF16 {
  static void mma(float (&d)[N / 2], uint64_t descA, uint64_t descB, uint32_t accumulate) {
    cuda::emu::wgmmaF16(d, N, descA, descB, accumulate != 0);
  }
};
template <int N> struct WgmmaF16Rs {
  static void mma(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t descB, uint32_t accumulate) {
    cuda::emu::wgmmaF16Rs(d, N, a, descB, accumulate != 0);
  }
};
#endif

// The wgmma forms for element type E (cuda::Bf16 or cuda::F16).
template <class E, int N> using Wgmma = std::conditional_t<E::kHalf, WgmmaF16<N>, WgmmaBf16<N>>;
template <class E, int N> using WgmmaRs = std::conditional_t<E::kHalf, WgmmaF16Rs<N>, WgmmaBf16Rs<N>>;

// ---- warp specialisation ----

template <uint32_t Registers> ARGUS_CUDA_FN void releaseRegisters() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Registers));
#endif
}
template <uint32_t Registers> ARGUS_CUDA_FN void claimRegisters() {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Registers));
#endif
}

// Barrier among `threads` threads (a multiple of 32) under hardware barrier `id` (1..15; 0 is
// __syncthreads).
ARGUS_CUDA_FN void namedBarrier(uint32_t id, uint32_t threads) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
#else
  cuda::emu::namedBarrier(id, threads);
#endif
}

// Counts this warp towards barrier `id`'s next completion among `threads` threads without waiting.
ARGUS_CUDA_FN void namedBarrierArrive(uint32_t id, uint32_t threads) {
#if ARGUS_CUDA_DEVICE_CODE
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
#else
  cuda::emu::namedBarrierArrive(id, threads);
#endif
}

// ---- clusters: distributed shared memory ----

ARGUS_CUDA_FN uint32_t clusterRank() { return uint32_t(cuda::clusterRank()); }

// Every thread of every CTA in the cluster; release/acquire order shared-memory accesses across it.
ARGUS_CUDA_FN void clusterSync() { cuda::clusterSync(); }

#if ARGUS_CUDA_DEVICE_CODE
// The address of `pointer`'s counterpart in the shared memory of cluster CTA `rank`.
__device__ __forceinline__ uint32_t clusterAddress(const void *pointer, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(sharedAddress(pointer)), "r"(rank));
  return remote;
}

__device__ __forceinline__ float4 loadCluster(uint32_t address) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address)
               : "memory");
  return v;
}
#endif

// The 4 floats at `element`'s counterpart in the shared memory of cluster CTA `rank`.
ARGUS_CUDA_FN void loadClusterFloats(const float *element, uint32_t rank, float (&out)[4]) {
#if ARGUS_CUDA_DEVICE_CODE
  const float4 v = loadCluster(clusterAddress(element, rank));
  out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
#else
  const float *peer = cuda::peerShared(element, int(rank));
  for (int i = 0; i < 4; ++i)
    out[i] = peer[i];
#endif
}

}  // namespace argus::sm90
