// Hopper (sm_90a) instructions the CUDA backend's kernels are built from: mbarrier rings, TMA bulk
// tensor copies, wgmma with shared-memory descriptors, register reallocation and cluster shared
// memory. Each wrapper is one PTX instruction (or a short fixed sequence) with the memory clobbers
// that keep the compiler from moving shared-memory accesses across it.
#pragma once

#include <cstdint>
#include <cuda.h>

namespace argus::sm90 {

__device__ __forceinline__ uint32_t sharedAddress(const void *pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// ---- mbarrier: a phase completes when `count` arrivals and every expected byte have landed ----

__device__ __forceinline__ void barrierInit(uint64_t *barrier, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sharedAddress(barrier)), "r"(count)
               : "memory");
}

// Makes initialised barriers visible to the other threads and to the TMA unit (async proxy).
__device__ __forceinline__ void fenceBarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival that also announces `bytes` the TMA unit will deliver in this phase.
__device__ __forceinline__ void barrierArriveExpectBytes(uint64_t *barrier, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sharedAddress(barrier)),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void barrierArrive(uint64_t *barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(sharedAddress(barrier)) : "memory");
}

// Waits until the phase of parity `parity` has completed (the phase counter has moved past it).
__device__ __forceinline__ void barrierWait(uint64_t *barrier, uint32_t parity) {
  asm volatile("{\n"
               ".reg .pred done;\n"
               "WAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT;\n"
               "}\n" ::"r"(sharedAddress(barrier)),
               "r"(parity)
               : "memory");
}

// ---- TMA: 2-D tile copy global -> shared, completing on an mbarrier; out-of-range reads are zeros ----

__device__ __forceinline__ void tmaLoad2d(void *destination, const CUtensorMap *map, uint64_t *barrier,
                                          int32_t innerCoordinate, int32_t outerCoordinate) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4}], [%2];" ::"r"(sharedAddress(destination)),
               "l"(reinterpret_cast<uint64_t>(map)), "r"(sharedAddress(barrier)), "r"(innerCoordinate),
               "r"(outerCoordinate)
               : "memory");
}

// 2-D tile copy shared -> global; the TMA unit clips what falls outside the tensor. Completion
// is tracked per thread in bulk groups.
__device__ __forceinline__ void tmaStore2d(const CUtensorMap *map, const void *source, int32_t innerCoordinate,
                                           int32_t outerCoordinate) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(sharedAddress(source)), "r"(innerCoordinate), "r"(outerCoordinate)
               : "memory");
}
__device__ __forceinline__ void bulkCommit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// Waits until the stores committed before the last `Pending` groups have read their shared memory.
template <int Pending> __device__ __forceinline__ void bulkWaitRead() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}
// Waits until those stores are complete in global memory.
template <int Pending> __device__ __forceinline__ void bulkWait() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending) : "memory");
}
// Orders this thread's ordinary shared-memory writes before later reads by the TMA unit.
__device__ __forceinline__ void fenceAsyncShared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

__device__ __forceinline__ void prefetchTensorMap(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// ---- wgmma ----

// Descriptor of a K-major operand tile stored the way TMA writes it with 128-byte swizzle: rows of
// 64 bf16 (128 bytes), 8-row atoms of 1024 bytes. The tile must start on a 1024-byte boundary;
// `byteOffset` (a multiple of 32) selects the k16 slice within the 64-element row.
__device__ __forceinline__ uint64_t swizzled128Descriptor(const void *tile, uint32_t byteOffset) {
  uint64_t address = sharedAddress(tile) + byteOffset;
  uint64_t descriptor = (address & 0x3FFFF) >> 4;  // start address, 16-byte units
  descriptor |= uint64_t(1) << 16;                 // leading offset: unused for swizzled K-major
  descriptor |= uint64_t(1024 >> 4) << 32;         // stride between 8-row atoms
  descriptor |= uint64_t(1) << 62;                 // 128-byte swizzle
  return descriptor;
}

// Orders register writes to the accumulators before the wgmma that reads them.
__device__ __forceinline__ void wgmmaFence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmmaCommit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int Pending> __device__ __forceinline__ void wgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

// Keeps the compiler from moving accesses of an accumulator register across a wgmma boundary.
template <int Count> __device__ __forceinline__ void fenceRegisters(float (&registers)[Count]) {
#pragma unroll
  for (int i = 0; i < Count; ++i)
    asm volatile("" : "+f"(registers[i])::"memory");
}

#include "argus_sm90_wgmma.inc"

// ---- warp specialisation ----

template <uint32_t Registers> __device__ __forceinline__ void releaseRegisters() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Registers));
}
template <uint32_t Registers> __device__ __forceinline__ void claimRegisters() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Registers));
}

// Barrier among `threads` threads (a multiple of 32) under hardware barrier `id` (1..15; 0 is
// __syncthreads).
__device__ __forceinline__ void namedBarrier(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---- clusters: distributed shared memory ----

__device__ __forceinline__ uint32_t clusterRank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// Every thread of every CTA in the cluster; release/acquire order shared-memory accesses across it.
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

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

}  // namespace argus::sm90
