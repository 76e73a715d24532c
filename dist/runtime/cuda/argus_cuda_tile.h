//===- argus_cuda_tile.h - what every generated CUDA kernel includes -------===//
//
// The CUDA backend (generator/lib/Backend/Lanes, target cuda-sm90a) lowers an
// argus kernel whose threads are warps: every tile value of the DSL is held
// by the 32 lanes of one warp, each lane a register array of
// `Layout::kPerLane` elements (gpu/argus_gpu_tile.h: the lane group policy,
// Striped, Broadcast, Transposed, stores, shared memory, reductions and
// conversions). This header adds what is CUDA's:
//
//   Warp                     the lane group: 32 lanes, shfl.xor shuffles;
//   Warpgroup                the lane group of kernels whose mmas are all
//                            wgmma: 128 lanes, four warps;
//   MmaAcc<R, C>             16 x 8 blocks of mma.sync.m16n8k16's accumulator
//                            layout (lane l: rows l / 4 and l / 4 + 8,
//                            columns 2 (l % 4) + 0, 1);
//   MmaOperand<R, K, Rows>   its A (Rows = 16) or B (Rows = 8: B's n) operand
//                            layout in 16-value steps of k (two bf16 a register);
//   WgmmaAcc<R, C>           64-row blocks of wgmma.m64nNk16's accumulator
//                            (warp w holds rows 16 w .. 16 w + 15, as MmaAcc);
//   loadGlobal               by pointer, a run as one vector load where aligned;
//   copyAsync, waitAsync     copy_async as cp.async, wait as cp.async.wait_group;
//   copyTma, waitTma         copy_async as a TMA copy completing on a ring of
//                            mbarriers (TmaRing), wait as their parity waits;
//   mma                      the mma.syncs of one product;
//   wgmma                    the wgmmas of one product, both operands read in
//                            place from 128-byte-swizzled shared memory.
//
// Padded layouts (a 4-row decode tile on 16-row blocks) have slots that are
// not `valid`: loads, stores, reductions and conversions skip them, and mma
// multiplies them as zeros.
//
// Tiles of rank n are seen as (rows, C): rows flatten the leading n - 1
// dimensions, C is the last. Written against argus_cuda_kernel_device.h only,
// so the host emulator runs generated kernels too.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_CUDA_TILE_H
#define ARGUS_CUDA_TILE_H

#include "argus_cuda_kernel_device.h"
#include "argus_sm90.cuh"

#if __has_include("gpu/argus_gpu_tile.h")
#include "gpu/argus_gpu_tile.h"
#else
#include "../gpu/argus_gpu_tile.h"
#endif

#if !ARGUS_CUDA_DEVICE_CODE
#include <cmath>
#endif

namespace argus::cuda::tile {

using namespace argus::gpu::tile;

/// The lane group of a CUDA kernel: a warp (argus_gpu_tile.h's policy).
struct Warp {
  static constexpr int kLanes = kWarpSize;
  ARGUS_CUDA_FN static int lane() { return threadIndex() % kWarpSize; }
  ARGUS_CUDA_FN static void sync() { syncWarp(); }
  ARGUS_CUDA_FN static float shuffleXor(float v, int mask) { return warpXor(v, mask); }
  ARGUS_CUDA_FN static float bf16ToFloat(uint16_t x) { return argus::cuda::bf16ToFloat(x); }
  ARGUS_CUDA_FN static uint16_t floatToBf16(float x) { return argus::cuda::floatToBf16(x); }
  ARGUS_CUDA_FN static float f16ToFloat(uint16_t x) { return argus_num::f16_to_f32(x); }
  ARGUS_CUDA_FN static uint16_t floatToF16(float x) { return argus_num::f32_to_f16(x); }
  template <class T, int N>
  using Vector = argus::gpu::tile::detail::Run<T, N>;
};

/// This thread's warp in its CTA: the DSL's thread id.
ARGUS_CUDA_FN int warp() { return threadIndex() / kWarpSize; }

/// This thread's warpgroup in its CTA: the DSL's thread id where threads are warpgroups.
ARGUS_CUDA_FN int warpgroup() { return threadIndex() / 128; }

/// The lane group of a kernel whose mmas are wgmmas: a warpgroup. Its lanes
/// synchronise on named barrier 1 + warpgroup(); shuffles stay within a warp
/// (the layouts reduced across lanes here keep a row in one warp).
struct Warpgroup {
  static constexpr int kLanes = 128;
  ARGUS_CUDA_FN static int lane() { return threadIndex() % 128; }
  ARGUS_CUDA_FN static void sync() { argus::sm90::namedBarrier(1 + uint32_t(warpgroup()), 128); }
  ARGUS_CUDA_FN static float shuffleXor(float v, int mask) { return warpXor(v, mask); }
  ARGUS_CUDA_FN static float bf16ToFloat(uint16_t x) { return Warp::bf16ToFloat(x); }
  ARGUS_CUDA_FN static uint16_t floatToBf16(float x) { return Warp::floatToBf16(x); }
  ARGUS_CUDA_FN static float f16ToFloat(uint16_t x) { return Warp::f16ToFloat(x); }
  ARGUS_CUDA_FN static uint16_t floatToF16(float x) { return Warp::floatToF16(x); }
  template <class T, int N>
  using Vector = argus::gpu::tile::detail::Run<T, N>;
};

/// The CTA's dynamic shared memory from its first 1024-byte boundary (wgmma's
/// swizzled operands need it; the launch asks for 1024 bytes more).
ARGUS_CUDA_FN char *alignedShared() {
  char *base = dynamicShared();
  return base + ((1024 - argus::sm90::sharedAddress(base) % 1024) % 1024);
}

template <int R, int C, int V>
using Striped = argus::gpu::tile::Striped<Warp, R, C, V>;
using Bf16 = Bf16Of<Warp>;
using F16 = F16Of<Warp>;

/// Rounds a float to the nearest bf16 / f16 value (the value stays a float).
ARGUS_CUDA_FN float round_bf16(float x) { return Bf16::load(Bf16::store(x)); }
ARGUS_CUDA_FN float round_f16(float x) { return F16::load(F16::store(x)); }

//===----------------------------------------------------------------------===//
// mma.sync register layouts
//===----------------------------------------------------------------------===//

/// The accumulator layout of mma.sync.m16n8k16 over an R x C tile padded to
/// whole 16 x 8 blocks, blocks in row-major order, 4 slots of each per lane:
/// slot e of a block holds row l / 4 + 8 (e / 2), column 2 (l % 4) + e % 2.
template <int R, int C>
struct MmaAcc {
  using Lanes = Warp;
  static constexpr int kRows = R, kCols = C, kRun = 2;
  static constexpr int kPaddedRows = roundUp(R, 16), kBlockCols = roundUp(C, 8) / 8;
  static constexpr int kPerLane = kPaddedRows / 16 * kBlockCols * 4;
  ARGUS_CUDA_FN static int row(int l, int i) { return i / 4 / kBlockCols * 16 + l / 4 + 8 * (i % 4 / 2); }
  ARGUS_CUDA_FN static int col(int l, int i) { return i / 4 % kBlockCols * 8 + 2 * (l % 4) + i % 2; }
  ARGUS_CUDA_FN static bool valid(int l, int i) {
    return (R % 16 == 0 || row(l, i) < R) && (C % 8 == 0 || col(l, i) < C);
  }
  // A row's columns are in the 4 lanes of one group (l / 4), the same slots
  // of every block of a block row.
  static constexpr int kRowLanes = 3;
  ARGUS_CUDA_FN static constexpr bool sameRow(int i, int j) {
    return i / 4 / kBlockCols == j / 4 / kBlockCols && i % 4 / 2 == j % 4 / 2;
  }
};

/// The operand layout of mma.sync.m16n8k16 over R rows (A: Rows = 16 per
/// block; B, whose rows are n: Rows = 8) and K values of k in steps of 16,
/// both padded; blocks by rows, then steps. Register r of a block (two
/// 16-bit slots, low first) holds row l / 4 + 8 (r % H) and k
/// 2 (l % 4) + 8 (r / H) + 0, 1, H = Rows / 8: A's a0..a3 and B's b0, b1.
template <int R, int K, int Rows>
struct MmaOperand {
  static_assert(Rows == 16 || Rows == 8, "A blocks of 16 rows, B blocks of 8");
  using Lanes = Warp;
  static constexpr int kHalves = Rows / 8;
  static constexpr int kRows = R, kCols = K, kRun = 2;
  static constexpr int kPaddedRows = roundUp(R, Rows), kSteps = roundUp(K, 16) / 16;
  static constexpr int kSlots = 4 * kHalves; // per block and step
  static constexpr int kPerLane = kPaddedRows / Rows * kSteps * kSlots;
  static constexpr bool kPadded = R % Rows != 0 || K % 16 != 0;
  ARGUS_CUDA_FN static int row(int l, int i) {
    return i / kSlots / kSteps * Rows + l / 4 + 8 * (i % kSlots / 2 % kHalves);
  }
  ARGUS_CUDA_FN static int col(int l, int i) {
    return i / kSlots % kSteps * 16 + 2 * (l % 4) + 8 * (i % kSlots / 2 / kHalves) + i % 2;
  }
  ARGUS_CUDA_FN static bool valid(int l, int i) {
    return (R % Rows == 0 || row(l, i) < R) && (K % 16 == 0 || col(l, i) < K);
  }
  static constexpr int kRowLanes = 3;
  ARGUS_CUDA_FN static constexpr bool sameRow(int i, int j) {
    return i / kSlots / kSteps == j / kSlots / kSteps && i % kSlots / 2 % kHalves == j % kSlots / 2 % kHalves;
  }
};

/// The accumulator layout of wgmma.m64nNk16 over an R x C tile (R a multiple
/// of 64): 64-row blocks, C / 2 slots of each per lane; lane l is lane l % 32
/// of warp l / 32, which holds rows 16 (l / 32) .. + 15 of each block, in
/// mma.sync's accumulator pattern: slot i of a block holds row
/// 16 (l / 32) + (l % 32) / 4 + 8 (i % 4 / 2), column 8 (i / 4) + 2 (l % 4) + i % 2.
template <int R, int C>
struct WgmmaAcc {
  static_assert(R % 64 == 0 && C % 8 == 0, "whole m64nN blocks");
  using Lanes = Warpgroup;
  static constexpr int kRows = R, kCols = C, kRun = 2;
  static constexpr int kPerLane = R / 64 * C / 2;
  ARGUS_CUDA_FN static int row(int l, int i) {
    return i / (C / 2) * 64 + 16 * (l / 32) + l % 32 / 4 + 8 * (i % 4 / 2);
  }
  ARGUS_CUDA_FN static int col(int l, int i) { return i % (C / 2) / 4 * 8 + 2 * (l % 4) + i % 2; }
  ARGUS_CUDA_FN static bool valid(int, int) { return true; }
  // A row's columns are in the 4 lanes of one group of one warp.
  static constexpr int kRowLanes = 3;
  ARGUS_CUDA_FN static constexpr bool sameRow(int i, int j) {
    return i / (C / 2) == j / (C / 2) && i % 4 / 2 == j % 4 / 2;
  }
};

//===----------------------------------------------------------------------===//
// Global loads
//===----------------------------------------------------------------------===//

/// A tile of Dims at `offsets` of `t` in layout L; elements outside the tensor
/// read `padding`. A run inside and aligned is one vector load, any other
/// element by element.
template <class L, class DT, int... Dims>
ARGUS_CUDA_FN void loadGlobal(typename DT::storage (&dst)[L::kPerLane], const Tensor &t,
                              const int64_t (&offsets)[sizeof...(Dims)], float padding) {
  using T = typename DT::storage;
  using RunT = typename L::Lanes::template Vector<T, L::kRun>;
  constexpr int last = sizeof...(Dims) - 1;
  const T *first = static_cast<const T *>(t.data) + argus::gpu::tile::detail::originOf(t, offsets);
  const T pad = DT::store(typename DT::compute(padding));
  const int64_t colStride = t.stride[last], cols = t.shape[last];
  const int l = L::Lanes::lane();
  ARGUS_CUDA_UNROLL
  for (int i = 0; i < L::kPerLane; i += L::kRun) {
    int64_t rowIndex = 0;
    const bool rowIn =
        L::valid(l, i) && argus::gpu::tile::detail::rowInTile<Dims...>(t, offsets, L::row(l, i), rowIndex);
    const int col = L::col(l, i);
    const int64_t c0 = offsets[last] + col;
    const T *p = first + rowIndex + col * colStride;
    RunT run;
    if (L::kRun > 1 && rowIn && L::valid(l, i + L::kRun - 1) && c0 >= 0 && c0 + L::kRun <= cols &&
        colStride == 1 && reinterpret_cast<uintptr_t>(p) % sizeof(RunT) == 0) {
      run = *reinterpret_cast<const RunT *>(p);
    } else {
      ARGUS_CUDA_UNROLL
      for (int j = 0; j < L::kRun; ++j) {
        const bool in = rowIn && L::valid(l, i + j) && c0 + j >= 0 && c0 + j < cols;
        run[j] = in ? p[j * colStride] : pad;
      }
    }
    ARGUS_CUDA_UNROLL
    for (int j = 0; j < L::kRun; ++j)
      dst[i + j] = run[j];
  }
}

//===----------------------------------------------------------------------===//
// Asynchronous copies (the DSL's copy_async and wait)
//===----------------------------------------------------------------------===//

/// copy_async of a tile of Dims at `offsets` of `t` into slot `slot` of the
/// shared array `buffer` (C columns, SlotElems elements a slot, placed by
/// Place), spread over the lane group in layout L: each 16-byte run this lane holds
/// is one cp.async (elements past the tensor's end read as zeros), and the
/// call is one commit group, so that the DSL's wait(n) is cp.async.wait_group n.
/// A run cp.async cannot take (unaligned, a strided row, one starting before
/// the tensor) or need not (wholly outside it: zeros) is written at once:
/// landing early is within what the DSL allows an async copy, whose slot
/// nobody reads or writes between issue and wait.
template <class L, class DT, int C, int SlotElems, class Place, int... Dims>
ARGUS_CUDA_FN void copyAsync(typename DT::storage *buffer, int slot, const Tensor &t,
                             const int64_t (&offsets)[sizeof...(Dims)]) {
  using T = typename DT::storage;
  constexpr int last = sizeof...(Dims) - 1;
  constexpr bool whole = L::kRun * int(sizeof(T)) == 16 &&
                         argus::gpu::tile::detail::sharedRun<L, C, SlotElems, Place> == L::kRun;
  const T *first = static_cast<const T *>(t.data) + argus::gpu::tile::detail::originOf(t, offsets);
  const int64_t colStride = t.stride[last], cols = t.shape[last];
  const int l = L::Lanes::lane();
  ARGUS_CUDA_UNROLL
  for (int i = 0; i < L::kPerLane; i += L::kRun) {
    if (!L::valid(l, i))
      continue;
    int64_t rowIndex = 0;
    const bool rowIn = argus::gpu::tile::detail::rowInTile<Dims...>(t, offsets, L::row(l, i), rowIndex);
    const int col = L::col(l, i);
    const int64_t c0 = offsets[last] + col;
    const T *p = first + rowIndex + col * colStride;
    T *at = buffer + Place::place(slot * SlotElems + L::row(l, i) * C + col);
    if (whole && rowIn && colStride == 1 && c0 >= 0 && c0 < cols && reinterpret_cast<uintptr_t>(p) % 16 == 0) {
      const int64_t inside = cols - c0 < L::kRun ? cols - c0 : L::kRun;
      cpAsync16(at, p, int(inside) * int(sizeof(T)));
      continue;
    }
    ARGUS_CUDA_NO_UNROLL // the rare path: unrolled, its loads would all be hoisted and held in registers
    for (int j = 0; j < L::kRun; ++j) {
      const bool in = rowIn && L::valid(l, i + j) && c0 + j >= 0 && c0 + j < cols;
      buffer[Place::place(slot * SlotElems + L::row(l, i + j) * C + L::col(l, i + j))] =
          in ? p[j * colStride] : T(0);
    }
  }
  cpAsyncCommit();
}

/// The DSL's wait(Pending): this lane's copies but the newest Pending groups
/// have landed, and the lanes of its group W see each other's (a DSL thread
/// is the whole group).
template <int Pending, class W>
ARGUS_CUDA_FN void waitAsync() {
  cpAsyncWait<Pending>();
  W::sync();
}

/// The mbarriers of one lane group's TMA copies (the DSL's copy_async where
/// TmaCopies.h lets it be one): copy j of the group completes on barrier
/// j % R, in that barrier's phase j / R. `issued` and `landed` count the
/// group's copies and are the same in each of its lanes (a DSL thread's
/// control flow is the whole group's).
template <int R>
struct TmaRing {
  static_assert(R >= 2 && (R & (R - 1)) == 0, "a power of two of barriers");
  uint64_t *barriers; // R in shared memory, this group's own
  uint32_t issued = 0, landed = 0;

  /// The group's lane 0 initialises its barriers (one arrival a phase: the
  /// lane that issues the copy); the group waits for it.
  template <class W>
  ARGUS_CUDA_FN void init() {
    if (W::lane() == 0) {
      for (int i = 0; i < R; ++i)
        argus::sm90::barrierInit(barriers + i, 1);
      argus::sm90::fenceBarrierInit();
    }
    W::sync();
  }

  /// Every lane waits for copies up to `until` (exclusive), so that each sees
  /// their bytes. Then the group meets: no lane may reuse a barrier (issue
  /// copy j + R) while another lane still waits on its phase for copy j,
  /// whose parity the next phase would hide.
  template <class W>
  ARGUS_CUDA_FN void land(uint32_t until) {
    if (until <= landed)
      return;
    for (; landed < until; ++landed)
      argus::sm90::barrierWait(barriers + landed % R, (landed / R) & 1);
    W::sync();
  }
};

/// copy_async of a Rows x 64 tile of 16-bit elements at `offsets` (row,
/// column) into `slot` (1024-byte aligned, the 128-byte swizzle) as one TMA
/// copy through `map`, which encodes the source tensor's Rows x 64 boxes.
/// Lane 0 announces the box's bytes (all of them count, those TMA fills with
/// zeros too) and issues it. With R copies in flight the oldest is waited
/// for first: its barrier is the next one.
template <int Rows, class W, int R>
ARGUS_CUDA_FN void copyTma(TmaRing<R> &ring, uint16_t *slot, const CUtensorMap &map, const int64_t (&offsets)[2]) {
  if (ring.issued - ring.landed == R)
    ring.template land<W>(ring.landed + 1);
  uint64_t *barrier = ring.barriers + ring.issued % R;
  if (W::lane() == 0) {
    argus::sm90::barrierArriveExpectBytes(barrier, Rows * 128);
    argus::sm90::tmaLoad2d(slot, &map, barrier, int32_t(offsets[1]), int32_t(offsets[0]));
  }
  ++ring.issued;
}

/// The DSL's wait(Pending) on TMA copies: all but the newest Pending have landed.
template <int Pending, class W, int R>
ARGUS_CUDA_FN void waitTma(TmaRing<R> &ring) {
  if (ring.issued > Pending)
    ring.template land<W>(ring.issued - Pending);
}

//===----------------------------------------------------------------------===//
// mma.sync
//===----------------------------------------------------------------------===//

/// acc (MmaAcc<M, N>) += a (MmaOperand<M, K, 16>) · bᵀ (MmaOperand<N, K, 8>):
/// one mma.sync.m16n8k16 per 16 x 8 block and 16 values of k, E (Bf16 or F16
/// of argus_cuda_kernel_device.h) the operands' type. Padding slots of the
/// operands multiply as zeros (whatever they hold).
template <class E, int M, int N, int K, int AccSlots, int ASlots, int BSlots>
ARGUS_CUDA_FN void mma(float (&acc)[AccSlots], const uint16_t (&a)[ASlots], const uint16_t (&b)[BSlots]) {
  using A = MmaOperand<M, K, 16>;
  using B = MmaOperand<N, K, 8>;
  using C = MmaAcc<M, N>;
  static_assert(AccSlots == C::kPerLane && ASlots == A::kPerLane && BSlots == B::kPerLane,
                "tiles in the mma.sync layouts of this product");
  constexpr int steps = A::kSteps, blockRows = A::kPaddedRows / 16, blockCols = B::kPaddedRows / 8;
  const int l = Warp::lane();
  // Slots i and i + 1 of an operand as one register, padding as zeros.
  auto word = [&](const auto &tile, auto layout, int i) {
    using L = decltype(layout);
    const uint32_t low = !L::kPadded || L::valid(l, i) ? tile[i] : 0;
    const uint32_t high = !L::kPadded || L::valid(l, i + 1) ? tile[i + 1] : 0;
    return low | high << 16;
  };
  ARGUS_CUDA_UNROLL
  for (int bm = 0; bm < blockRows; ++bm) {
    ARGUS_CUDA_UNROLL
    for (int bn = 0; bn < blockCols; ++bn) {
      float *c = acc + (bm * blockCols + bn) * 4;
      float d[4] = {c[0], c[1], c[2], c[3]};
      ARGUS_CUDA_UNROLL
      for (int ks = 0; ks < steps; ++ks) {
        uint32_t x[4], y[2];
        ARGUS_CUDA_UNROLL
        for (int r = 0; r < 4; ++r)
          x[r] = word(a, A{}, (bm * steps + ks) * A::kSlots + 2 * r);
        ARGUS_CUDA_UNROLL
        for (int r = 0; r < 2; ++r)
          y[r] = word(b, B{}, (bn * steps + ks) * B::kSlots + 2 * r);
        E::mma(x, y, d);
      }
      ARGUS_CUDA_UNROLL
      for (int e = 0; e < 4; ++e)
        c[e] = d[e];
    }
  }
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

/// acc (WgmmaAcc<M, N>) += a · bᵀ, a the M x K and b the N x K tile at `a` and
/// `b` in shared memory, K-major rows of 64 16-bit elements (K = 64) in the
/// 128-byte swizzle, each starting on a 1024-byte boundary: per 64 rows of a,
/// K / 16 wgmma.m64nNk16 (E: argus::cuda::Bf16 or F16) from descriptors,
/// issued by the warpgroup together, committed, and waited for before the
/// accumulators are read again.
template <class E, int M, int N, int K, int AccSlots>
ARGUS_CUDA_FN void wgmma(float (&acc)[AccSlots], const uint16_t *a, const uint16_t *b) {
  static_assert(AccSlots == WgmmaAcc<M, N>::kPerLane, "a tile in the wgmma accumulator layout");
  static_assert(K == 64, "operands are single 128-byte swizzled rows of k");
  using Shape = argus::sm90::Wgmma<E, N>;
  constexpr int blocks = M / 64, slots = N / 2;
  // One register array per 64-row block (copies, not casts: an array whose
  // address is reinterpreted would live in local memory).
  float d[blocks][slots];
  ARGUS_CUDA_UNROLL
  for (int block = 0; block < blocks; ++block)
    ARGUS_CUDA_UNROLL
    for (int i = 0; i < slots; ++i)
      d[block][i] = acc[block * slots + i];
  argus::sm90::wgmmaFence();
  ARGUS_CUDA_UNROLL
  for (int block = 0; block < blocks; ++block)
    ARGUS_CUDA_UNROLL
    for (int step = 0; step < K / 16; ++step)
      Shape::mma(d[block], argus::sm90::swizzled128Descriptor(a + block * 64 * K, 32 * step),
                 argus::sm90::swizzled128Descriptor(b, 32 * step), 1);
  argus::sm90::wgmmaCommit();
  argus::sm90::wgmmaWait<0>();
  ARGUS_CUDA_UNROLL
  for (int block = 0; block < blocks; ++block) {
    argus::sm90::fenceRegisters(d[block]);
    ARGUS_CUDA_UNROLL
    for (int i = 0; i < slots; ++i)
      acc[block * slots + i] = d[block][i];
  }
}

} // namespace argus::cuda::tile

#endif // ARGUS_CUDA_TILE_H
