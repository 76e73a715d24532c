// GEMM C = alpha * A·Bᵀ + beta * C (+ bias) on Hopper: bf16 operands, f32 accumulation.
//
// A CTA computes BM x BN tiles of C. Warpgroup 0 is the producer: one thread streams 64-wide K
// slices of A and B into a ring of `Stages` shared-memory buffers with TMA, each completing on the
// stage's "full" mbarrier. Warpgroups 1..BM/64 are consumers: each multiplies its 64 rows of the
// stage with wgmma m64nBNk16, keeps one wgmma group in flight, and releases the stage it no longer
// reads on the stage's "empty" mbarrier.
//
// Two kernels share that main loop:
// - gemmTnPersistent (large M): one CTA per SM walks tiles in M-grouped order so that the CTAs in
//   flight share operand rows in L2; the producer runs ahead into the next tile while consumers
//   hand the last one to an asynchronous TMA store (or, with beta or an unaligned C, store it
//   element by element).
// - gemmTnSplitK (small M, memory-bound): one tile per CTA, and a cluster of `split` CTAs along
//   grid z shares its K range. Their partial tiles meet in distributed shared memory: every CTA
//   stages its accumulators, and rank r sums rows [r·BM/split, (r+1)·BM/split) of all partials,
//   applies the epilogue and stores them. No workspace and no second launch, so the C ABI's
//   argus_gemm needs none.
#pragma once

#include "argus_sm90.cuh"
#include "argus_sm90_schedule.h"

#if ARGUS_CUDA_DEVICE_CODE
#include <cuda_bf16.h>
#endif

namespace argus::sm90 {

#if ARGUS_CUDA_DEVICE_CODE
using Bf16 = __nv_bfloat16;
#else
struct Bf16 {  // __nv_bfloat16's bits, on the host
  uint16_t bits;
};
#endif

ARGUS_CUDA_FN int smaller(int a, int b) {
#if ARGUS_CUDA_DEVICE_CODE
  return min(a, b);
#else
  return a < b ? a : b;
#endif
}


constexpr int kSliceK = 64;  // one 128-byte swizzle row of bf16

struct GemmEpilogue {
  void *c;
  int64_t ldc;
  const void *bias;  // N elements of the output type, or null
  float alpha, beta;
  int m, n;
};

// Shared memory of a CTA: the operand ring, its barriers and, for the TMA-store epilogue,
// `OutputBytes` of output tiles that the stores read while the next tile's loads proceed.
template <int BM, int BN, int Stages, int OutputBytes = 0> struct GemmSharedLayout {
  static constexpr int kConsumers = BM / 64;
  static constexpr int kThreads = (kConsumers + 1) * 128;
  static constexpr int kStagingPitch = BN + 8;  // floats; the pad spreads a warp's rows over the banks
  static constexpr size_t kTileBytes = size_t(Stages) * (BM + BN) * kSliceK * 2;
  static constexpr size_t kStagingBytes = size_t(BM) * kStagingPitch * 4;
  static constexpr size_t kOutputOffset = kTileBytes + 1024;  // after the barriers, 1024-aligned
  static constexpr size_t kBytes = kOutputOffset + OutputBytes + 1024;  // + alignment of the base
  static_assert(Stages >= 2, "a consumer releases a stage only after issuing the next one");
  static_assert(BM % 64 == 0 && BM <= 128, "one or two consumer warpgroups of 64 rows");
  static_assert(BN % 16 == 0 && BN <= 256, "wgmma N");
  static_assert(kStagingBytes <= kTileBytes, "the split-K epilogue stages the tile in the operand buffers");
  static_assert(kBytes <= 232448, "Hopper's shared memory per block");
};

template <int BM, int BN, int Stages, int OutputBytes = 0> struct GemmShared {
  Bf16 *tilesA, *tilesB;
  uint64_t *full, *empty;
  float *staging;   // the split-K epilogue's tile, over the operand buffers
  uint8_t *output;  // the TMA-store epilogue's tiles

  // Carves the dynamic shared memory and initialises the barriers; every thread calls it.
  ARGUS_CUDA_FN static GemmShared setUp(uint8_t *raw, const CUtensorMap *mapA, const CUtensorMap *mapB) {
    using Layout = GemmSharedLayout<BM, BN, Stages, OutputBytes>;
    uint8_t *base = reinterpret_cast<uint8_t *>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
    GemmShared s;
    s.tilesA = reinterpret_cast<Bf16 *>(base);
    s.tilesB = s.tilesA + Stages * BM * kSliceK;
    s.full = reinterpret_cast<uint64_t *>(base + Layout::kTileBytes);
    s.empty = s.full + Stages;
    s.staging = reinterpret_cast<float *>(base);
    s.output = base + Layout::kOutputOffset;
    if (threadX() == 0) {
      prefetchTensorMap(mapA);
      prefetchTensorMap(mapB);
      for (int stage = 0; stage < Stages; ++stage) {
        barrierInit(&s.full[stage], 1);
        barrierInit(&s.empty[stage], Layout::kConsumers * 4);  // one arrival per consumer warp
      }
      fenceBarrierInit();
    }
    cuda::syncThreads();
    return s;
  }

  // Producer (one thread): loads K slices [first, first + count) of the tile at (m0, n0).
  ARGUS_CUDA_FN void produce(RingCursor &cursor, const CUtensorMap *mapA, const CUtensorMap *mapB,
                                          int m0, int n0, int first, int count) const {
    constexpr uint32_t kStageBytes = (BM + BN) * kSliceK * 2;
    for (int i = 0; i < count; ++i) {
      barrierWait(&empty[cursor.stage], cursor.emptyParity());
      barrierArriveExpectBytes(&full[cursor.stage], kStageBytes);
      const int kOffset = (first + i) * kSliceK;
      tmaLoad2d(tilesA + cursor.stage * BM * kSliceK, mapA, &full[cursor.stage], kOffset, m0);
      tmaLoad2d(tilesB + cursor.stage * BN * kSliceK, mapB, &full[cursor.stage], kOffset, n0);
      cursor.advance(Stages);
    }
  }

  // Consumer warpgroup `consumer`: acc = its 64 rows of A·Bᵀ over `count` slices. Releases every
  // stage it read, the last one once its wgmma has completed.
  ARGUS_CUDA_FN void consume(float (&acc)[BN / 2], RingCursor &cursor, int consumer, int count) const {
    // Descriptors of stage 0; a stage or k16 step adds to the address field only (deriving them
    // from the warpgroup index inside the loop serialises the wgmma pipeline, ptxas C7515).
    const uint64_t descriptorA = swizzled128Descriptor(tilesA + consumer * 64 * kSliceK, 0);
    const uint64_t descriptorB = swizzled128Descriptor(tilesB, 0);
    const bool signals = threadX() % 32 == 0;
    int previous = 0;
    for (int i = 0; i < count; ++i) {
      barrierWait(&full[cursor.stage], cursor.fullParity());
      fenceRegisters(acc);
      wgmmaFence();
#pragma unroll
      for (int kk = 0; kk < kSliceK / 16; ++kk)  // the first wgmma of the tile overwrites acc
        WgmmaBf16<BN>::mma(acc, descriptorA + ((cursor.stage * BM * kSliceK * 2 + kk * 32) >> 4),
                           descriptorB + ((cursor.stage * BN * kSliceK * 2 + kk * 32) >> 4), i > 0 || kk > 0);
      wgmmaCommit();
      fenceRegisters(acc);
      wgmmaWait<1>();  // the previous slice's wgmma is done: its stage may be refilled
      if (i > 0 && signals)
        barrierArrive(&empty[previous]);
      previous = cursor.stage;
      cursor.advance(Stages);
    }
    wgmmaWait<0>();
    fenceRegisters(acc);
    if (count > 0 && signals)
      barrierArrive(&empty[previous]);
    if (count == 0) {
#pragma unroll
      for (int i = 0; i < BN / 2; ++i)
        acc[i] = 0.0f;
    }
  }
};

ARGUS_CUDA_FN void storeValue(float *p, float v) { *p = v; }
ARGUS_CUDA_FN float loadValue(const float *p) { return *p; }

#if ARGUS_CUDA_DEVICE_CODE
__device__ __forceinline__ void storeValue(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ float loadValue(const __nv_bfloat16 *p) { return __bfloat162float(*p); }

__device__ __forceinline__ void storeVector(__nv_bfloat16 *p, const float (&v)[2]) {
  *reinterpret_cast<__nv_bfloat162 *>(p) = __floats2bfloat162_rn(v[0], v[1]);
}
__device__ __forceinline__ void storeVector(__nv_bfloat16 *p, const float (&v)[4]) {
  __nv_bfloat162 lo = __floats2bfloat162_rn(v[0], v[1]), hi = __floats2bfloat162_rn(v[2], v[3]);
  uint2 packed;
  packed.x = *reinterpret_cast<uint32_t *>(&lo);
  packed.y = *reinterpret_cast<uint32_t *>(&hi);
  *reinterpret_cast<uint2 *>(p) = packed;
}
__device__ __forceinline__ void storeVector(float *p, const float (&v)[2]) {
  *reinterpret_cast<float2 *>(p) = make_float2(v[0], v[1]);
}
__device__ __forceinline__ void storeVector(float *p, const float (&v)[4]) {
  *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
#else
inline void storeValue(Bf16 *p, float v) { p->bits = cuda::floatToBf16(v); }
inline float loadValue(const Bf16 *p) { return cuda::bf16ToFloat(p->bits); }
template <typename T, int W>
inline void storeVector(T *p, const float (&v)[W]) {
  for (int i = 0; i < W; ++i)
    storeValue(p + i, v[i]);
}
#endif

// Whether W consecutive outputs starting at a column that is a multiple of W can be stored as one
// vector: the row pitch and the base keep every such run aligned to its size.
template <typename TC, int W> ARGUS_CUDA_FN bool vectorStores(const GemmEpilogue &e) {
  return e.ldc % W == 0 && reinterpret_cast<uintptr_t>(e.c) % (W * sizeof(TC)) == 0;
}

// Applies alpha, beta and bias to W consecutive columns of one row and stores those inside C.
template <typename TC, int W>
ARGUS_CUDA_FN void storeEpilogue(const GemmEpilogue &e, int row, int col, float (&v)[W], bool vectorOk) {
  if (row >= e.m || col >= e.n)
    return;
  TC *out = static_cast<TC *>(e.c) + int64_t(row) * e.ldc + col;
  const TC *bias = static_cast<const TC *>(e.bias);
  const int valid = smaller(W, e.n - col);
#pragma unroll
  for (int i = 0; i < W; ++i) {
    if (i >= valid)
      break;
    v[i] *= e.alpha;
    if (e.beta != 0.0f)  // BLAS: C is not read when beta is zero
      v[i] += e.beta * loadValue(out + i);
    if (bias)
      v[i] += loadValue(bias + col + i);
  }
  if (valid == W && vectorOk) {
    storeVector(out, v);
    return;
  }
  for (int i = 0; i < valid; ++i)
    storeValue(out + i, v[i]);
}

// A consumer's 64 output rows as the TMA store reads them (outputBoxOffset).
template <typename TC> struct OutputBoxes {
  static constexpr int kColumns = 128 / sizeof(TC);
  static constexpr int kBoxBytes = 64 * 128;
  ARGUS_CUDA_FN static uint32_t offset(int row, int col) { return outputBoxOffset(row, col, sizeof(TC)); }
};

// One consumer's 64 x BN results with alpha and bias applied, out through the TMA store. Its
// output buffer is rewritten only once the previous tile's stores have read it, and is made
// visible to the TMA unit before the store; the store then runs while the next tile's wgmma does.
template <int BN, typename TC>
ARGUS_CUDA_FN void storeTileByTma(const float (&acc)[BN / 2], const GemmEpilogue &epilogue,
                                               const CUtensorMap &mapC, uint8_t *output, int firstCol, int firstRow,
                                               int consumer, int row, int lane) {
  const bool issuer = threadX() % 128 == 0;
  const TC *bias = static_cast<const TC *>(epilogue.bias);
  if (issuer)
    bulkWaitRead<0>();
  namedBarrier(2 + consumer, 128);
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int col = fragmentColumn(j, lane), globalCol = firstCol + col;
    float biasPair[2] = {0.f, 0.f};
    if (bias) {
      biasPair[0] = globalCol < epilogue.n ? loadValue(bias + globalCol) : 0.f;
      biasPair[1] = globalCol + 1 < epilogue.n ? loadValue(bias + globalCol + 1) : 0.f;
    }
    float upper[2] = {acc[4 * j] * epilogue.alpha + biasPair[0], acc[4 * j + 1] * epilogue.alpha + biasPair[1]};
    float lower[2] = {acc[4 * j + 2] * epilogue.alpha + biasPair[0], acc[4 * j + 3] * epilogue.alpha + biasPair[1]};
    storeVector(reinterpret_cast<TC *>(output + OutputBoxes<TC>::offset(row, col)), upper);
    storeVector(reinterpret_cast<TC *>(output + OutputBoxes<TC>::offset(row + 8, col)), lower);
  }
  fenceAsyncShared();
  namedBarrier(2 + consumer, 128);
  if (issuer) {
#pragma unroll
    for (int box = 0; box < BN / OutputBoxes<TC>::kColumns; ++box)
      tmaStore2d(&mapC, output + box * OutputBoxes<TC>::kBoxBytes, firstCol + box * OutputBoxes<TC>::kColumns,
                 firstRow);
    bulkCommit();
  }
}

// StoreByTma: results go out through the TMA store (beta = 0, C aligned); otherwise each thread
// stores its fragment, reading C for beta. Two instantiations, so that the element-store path's
// registers do not weigh on the common one.
template <int BM, int BN, int Stages, typename TC, bool StoreByTma>
ARGUS_CUDA_FN void gemmTnPersistentBody(const CUtensorMap &mapA, const CUtensorMap &mapB, const CUtensorMap &mapC,
                                        const GemmEpilogue &epilogue, int k) {
  constexpr int kConsumers = GemmSharedLayout<BM, BN, Stages>::kConsumers;
  constexpr int kConsumerOutputBytes = 64 * BN * sizeof(TC);
  constexpr int kGroupM = 2048 / BN;  // a band's A rows about match the B rows of its columns
  static_assert(!StoreByTma || BN % OutputBoxes<TC>::kColumns == 0, "the TMA store moves whole boxes");
#if ARGUS_CUDA_DEVICE_CODE
  extern __shared__ uint8_t sharedRaw[];
#else
  uint8_t *const sharedRaw = reinterpret_cast<uint8_t *>(cuda::dynamicShared());
#endif
  const auto shared = GemmShared<BM, BN, Stages, kConsumers * kConsumerOutputBytes>::setUp(sharedRaw, &mapA, &mapB);
  const int tilesM = (epilogue.m + BM - 1) / BM, tilesN = (epilogue.n + BN - 1) / BN;
  const int slices = (k + kSliceK - 1) / kSliceK;
  const int warpgroup = threadX() / 128;
  RingCursor cursor;

  if (warpgroup == 0) {
    if constexpr (kConsumers > 1)
      releaseRegisters<40>();
    if (threadX() == 0)
      for (int t = blockAt(0); t < tilesM * tilesN; t += gridAt(0)) {
        const TilePosition tile = rasterizeTile(t, tilesM, tilesN, kGroupM);
        shared.produce(cursor, &mapA, &mapB, tile.m * BM, tile.n * BN, 0, slices);
      }
    return;
  }
  if constexpr (kConsumers > 1)
    claimRegisters<232>();
  const int consumer = warpgroup - 1, warp = (threadX() / 32) % 4, lane = threadX() % 32;
  uint8_t *output = shared.output + consumer * kConsumerOutputBytes;
  const bool pairOk = vectorStores<TC, 2>(epilogue);
  float acc[BN / 2];
  for (int t = blockAt(0); t < tilesM * tilesN; t += gridAt(0)) {
    const TilePosition tile = rasterizeTile(t, tilesM, tilesN, kGroupM);
    shared.consume(acc, cursor, consumer, slices);
    const int row = fragmentRow(warp, lane), firstRow = tile.m * BM + consumer * 64;
    if constexpr (!StoreByTma) {
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int col = tile.n * BN + fragmentColumn(j, lane);
        float upper[2] = {acc[4 * j], acc[4 * j + 1]}, lower[2] = {acc[4 * j + 2], acc[4 * j + 3]};
        storeEpilogue<TC, 2>(epilogue, firstRow + row, col, upper, pairOk);
        storeEpilogue<TC, 2>(epilogue, firstRow + row + 8, col, lower, pairOk);
      }
    } else {
      storeTileByTma<BN, TC>(acc, epilogue, mapC, output, tile.n * BN, firstRow, consumer, row, lane);
    }
  }
  if constexpr (StoreByTma)
    if (threadX() % 128 == 0)
      bulkWait<0>();
}
template <int BM, int BN, int Stages, typename TC>
ARGUS_CUDA_FN void gemmTnSplitKBody(const CUtensorMap &mapA, const CUtensorMap &mapB, const GemmEpilogue &epilogue,
                                    int k) {
  using Layout = GemmSharedLayout<BM, BN, Stages>;
  constexpr int kConsumers = Layout::kConsumers;
#if ARGUS_CUDA_DEVICE_CODE
  extern __shared__ uint8_t sharedRaw[];
#else
  uint8_t *const sharedRaw = reinterpret_cast<uint8_t *>(cuda::dynamicShared());
#endif
  const auto shared = GemmShared<BM, BN, Stages>::setUp(sharedRaw, &mapA, &mapB);
  const int warpgroup = threadX() / 128;
  const int split = gridAt(2);
  const uint32_t rank = clusterRank();
  const int m0 = blockAt(0) * BM, n0 = blockAt(1) * BN;
  const Range sliceRange = splitRange((k + kSliceK - 1) / kSliceK, int(rank), split);
  RingCursor cursor;

  if (warpgroup == 0) {
    if (threadX() == 0)
      shared.produce(cursor, &mapA, &mapB, m0, n0, sliceRange.begin, sliceRange.end - sliceRange.begin);
  } else {
    const int consumer = warpgroup - 1, warp = (threadX() / 32) % 4, lane = threadX() % 32;
    float acc[BN / 2];
    shared.consume(acc, cursor, consumer, sliceRange.end - sliceRange.begin);
    // Every consumer has finished reading the operand buffers before they become the staging tile.
    namedBarrier(1, kConsumers * 128);
    const int row = consumer * 64 + fragmentRow(warp, lane);
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      float *upper = &shared.staging[row * Layout::kStagingPitch + fragmentColumn(j, lane)];
      const float top[2] = {acc[4 * j], acc[4 * j + 1]}, bottom[2] = {acc[4 * j + 2], acc[4 * j + 3]};
      storeVector(upper, top);
      storeVector(upper + 8 * Layout::kStagingPitch, bottom);
    }
  }

  clusterSync();  // every partial tile of the cluster is staged

  if (warpgroup > 0) {
    const Range rows = splitRange(BM, int(rank), split);
    const bool vectorOk = vectorStores<TC, 4>(epilogue);
    for (int g = threadX() - 128; g < (rows.end - rows.begin) * (BN / 4); g += kConsumers * 128) {
      const int r = rows.begin + g / (BN / 4), col = (g % (BN / 4)) * 4;
      const float *element = &shared.staging[r * Layout::kStagingPitch + col];
      float sum[4] = {0.f, 0.f, 0.f, 0.f};
      for (int source = 0; source < split; ++source) {
        float part[4];
        loadClusterFloats(element, uint32_t(source), part);
        sum[0] += part[0], sum[1] += part[1], sum[2] += part[2], sum[3] += part[3];
      }
      storeEpilogue<TC, 4>(epilogue, m0 + r, n0 + col, sum, vectorOk);
    }
  }

  clusterSync();  // no CTA leaves while another still reads its staging tile
}

#if ARGUS_CUDA_DEVICE_CODE
// The kernels: their tensor maps are __grid_constant__ parameters, whose addresses TMA takes.
template <int BM, int BN, int Stages, typename TC, bool StoreByTma>
__global__ void __launch_bounds__(GemmSharedLayout<BM, BN, Stages>::kThreads, 1)
    gemmTnPersistent(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                     const __grid_constant__ CUtensorMap mapC, const GemmEpilogue epilogue, int k) {
  gemmTnPersistentBody<BM, BN, Stages, TC, StoreByTma>(mapA, mapB, mapC, epilogue, k);
}

template <int BM, int BN, int Stages, typename TC>
__global__ void __launch_bounds__(GemmSharedLayout<BM, BN, Stages>::kThreads, 1)
    gemmTnSplitK(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                 const GemmEpilogue epilogue, int k) {
  gemmTnSplitKBody<BM, BN, Stages, TC>(mapA, mapB, epilogue, k);
}
#endif

}  // namespace argus::sm90
