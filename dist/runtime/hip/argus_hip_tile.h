//===- argus_hip_tile.h - what every generated HIP kernel includes ---------===//
//
// The HIP backend (generator/lib/Backend/Lanes, target hip-*) lowers an argus
// kernel whose threads are waves: every tile value of the DSL is held by the
// 64 lanes of one wave, each lane a register array of `Layout::kPerLane`
// elements (gpu/argus_gpu_tile.h: the lane group policy, Striped, Broadcast,
// Transposed, stores, shared memory, reductions and conversions). This header
// adds what is CDNA's:
//
//   Wave                  the lane group: 64 lanes, ds_bpermute shuffles;
//   MfmaAcc<R, C, B>      B x B blocks of an MFMA's result layout (B = 32:
//                         v_mfma_f32_32x32x8, 16: v_mfma_f32_16x16x16; on
//                         gfx942's fp8, Fp8Fnuz, 32x32x16 and 16x16x32);
//   MfmaOperand<R, K, B, V> its A / B operand layout (row l % B, k V·(l / B)...);
//   loadGlobal            through one buffer resource per tile;
//   TileReader            the same, one slot at a time where it is used;
//   mma                   the MFMAs of one product.
//
// MFMA layouts pad their tiles to whole blocks (slots not `valid`). Values
// cross lanes in reduceRows (a ds_bpermute butterfly) and convert (a tile
// moved between layouts through the wave's LDS scratch).
//
// Tiles of rank n are seen as (rows, C): rows flatten the leading n - 1
// dimensions, C is the last. The generated code reads like the DSL:
//
//   ak::loadGlobal<ak::Striped<64, 16, 8>, ak::Bf16, 64, 16>(a, p.A, {r, k}, 0.0f);
//   ak::storeShared<ak::Striped<64, 16, 8>, 16, 1024, ak::Unswizzled>(sa, slot, a);
//   ak::loadShared<ak::MfmaOperand<64, 16, 32>, 16, 1024, ak::Unswizzled>(x, sa, slot);
//   ak::mma<ak::Element::Bf16, 32, 64, 64, 16>(acc, x, y);   // 32x32x8 MFMAs
//
// Every function is per lane: lane() picks the lane's elements. Written
// against argus_hip_device.h only, so the emulator runs generated kernels too.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_TILE_H
#define ARGUS_HIP_TILE_H

#include "argus_hip_device.h"

#if __has_include("gpu/argus_gpu_tile.h")
#include "gpu/argus_gpu_tile.h"
#else
#include "../gpu/argus_gpu_tile.h"
#endif

namespace argus::hip::tile {

using namespace argus::gpu::tile;
using argus::hip::Element;

/// The lane group of a CDNA kernel: a wave of 64 (argus_gpu_tile.h's policy).
struct Wave {
  static constexpr int kLanes = kWaveSize;
  ARGUS_HIP_FN static int lane() { return argus::hip::lane(); }
  ARGUS_HIP_FN static void sync() { waveBarrier(); }
  ARGUS_HIP_FN static float shuffleXor(float v, int mask) { return shuffle(v, lane() ^ mask); }
  ARGUS_HIP_FN static float bf16ToFloat(uint16_t x) { return argus::hip::bf16ToFloat(x); }
  ARGUS_HIP_FN static uint16_t floatToBf16(float x) { return argus::hip::floatToBf16(x); }
  ARGUS_HIP_FN static float f16ToFloat(uint16_t x) { return toFloat<Element::F16>(x); }
  ARGUS_HIP_FN static uint16_t floatToF16(float x) { return fromFloat<Element::F16>(x); }
  /// A run as one vector value: a run a branch may fill two ways stays one
  /// register tuple through the join (a per-element array would become N
  /// 16-bit registers, repacked for every MFMA).
  template <class T, int N>
  struct RunVector {
    typedef T type __attribute__((vector_size(sizeof(T) * N)));
  };
  template <class T, int N>
  using Vector = typename RunVector<T, N>::type;
};

template <int R, int C, int V>
using Striped = argus::gpu::tile::Striped<Wave, R, C, V>;
using Bf16 = Bf16Of<Wave>;
using F16 = F16Of<Wave>;
/// gfx942's fp8, E4M3FNUZ (argus_hip_device.h), computed in float.
struct Fp8Fnuz {
  using storage = uint8_t;
  using compute = float;
  ARGUS_HIP_FN static compute load(storage x) { return fp8FnuzToFloat(x); }
  ARGUS_HIP_FN static storage store(compute x) { return floatToFp8Fnuz(x); }
};

/// Rounds a float to the nearest bf16 / f16 value (the value stays a float).
ARGUS_HIP_FN float round_bf16(float x) { return Bf16::load(Bf16::store(x)); }
ARGUS_HIP_FN float round_f16(float x) { return F16::load(F16::store(x)); }

//===----------------------------------------------------------------------===//
// MFMA register layouts
//===----------------------------------------------------------------------===//

/// The result layout of an MFMA on Block x Block blocks (32: v_mfma_f32_32x32x8,
/// 16: v_mfma_f32_16x16x16), R x C padded to whole blocks in row-major order,
/// Block² / 64 slots of each per lane: lane l holds column l % Block, and in
/// slot e the row 4·G·(e / 4) + 4·(l / Block) + e % 4, G = 64 / Block lane groups.
/// Slots in the padding (a 4-row decode tile fills 4 of 16 rows) are not valid.
template <int R, int C, int Block>
struct MfmaAcc {
  using Lanes = Wave;
  static constexpr int kRows = R, kCols = C, kRun = 1;
  static constexpr int kPaddedRows = roundUp(R, Block), kBlockCols = roundUp(C, Block) / Block;
  static constexpr int kPerLane = kPaddedRows * kBlockCols * Block / kWaveSize;
  static constexpr int kSlots = Block * Block / kWaveSize, kGroups = kWaveSize / Block;
  ARGUS_HIP_FN static int row(int l, int i) {
    const int e = i % kSlots;
    return (i / kSlots) / kBlockCols * Block + 4 * kGroups * (e / 4) + 4 * (l / Block) + e % 4;
  }
  ARGUS_HIP_FN static int col(int l, int i) { return (i / kSlots) % kBlockCols * Block + l % Block; }
  ARGUS_HIP_FN static bool valid(int l, int i) {
    return (R % Block == 0 || row(l, i) < R) && (C % Block == 0 || col(l, i) < C);
  }
  // A row's columns are the Block lanes of one lane group, in the same slot of
  // each block of a block row.
  static constexpr int kRowLanes = Block - 1;
  ARGUS_HIP_FN static constexpr bool sameRow(int i, int j) {
    return i % kSlots == j % kSlots && i / kSlots / kBlockCols == j / kSlots / kBlockCols;
  }
};

/// The A / B operand layout of the same MFMA: R / Block blocks of rows, each
/// kSteps steps of kK = V·64 / Block values of k; lane l holds row l % Block and
/// k = V·(l / Block) + 0..V-1 of each step, V = 4 16-bit elements (one register
/// pair) or 8 fp8 ones. Rows and k are padded like MfmaAcc's; ak::mma zeroes
/// the padding before it multiplies.
template <int R, int K, int Block, int V = 4>
struct MfmaOperand {
  using Lanes = Wave;
  static constexpr int kK = V * kWaveSize / Block;
  static constexpr int kRows = R, kCols = K, kRun = V;
  static constexpr int kPaddedRows = roundUp(R, Block), kSteps = roundUp(K, kK) / kK;
  static constexpr int kPerLane = kPaddedRows * kSteps * kK / kWaveSize;
  static constexpr bool kPadded = R % Block != 0 || K % kK != 0;
  ARGUS_HIP_FN static int row(int l, int i) { return i / (V * kSteps) * Block + l % Block; }
  ARGUS_HIP_FN static int col(int l, int i) { return (i / V) % kSteps * kK + V * (l / Block) + i % V; }
  ARGUS_HIP_FN static bool valid(int l, int i) {
    return (R % Block == 0 || row(l, i) < R) && (K % kK == 0 || col(l, i) < K);
  }
  // A row's k values are in the lanes l % Block apart, every slot of its block of rows.
  static constexpr int kRowLanes = (kWaveSize - 1) & ~(Block - 1);
  ARGUS_HIP_FN static constexpr bool sameRow(int i, int j) { return i / (V * kSteps) == j / (V * kSteps); }
};

//===----------------------------------------------------------------------===//
// Global loads through buffer resources
//===----------------------------------------------------------------------===//

namespace detail {

using argus::gpu::tile::detail::originOf;
using argus::gpu::tile::detail::rowInTile;

/// A buffer over the elements a tile may touch, from its origin.
struct TileBuffer {
  BufferResource resource;
  uintptr_t origin; // the address of the tile's element (0, ..., 0)
};

/// The buffer of a tile of Dims at `offsets`: its origin is uniform (scalar
/// registers) and every lane addresses its elements by 32-bit offsets, not
/// 64-bit pointers. The launch function has checked tileSpanFits.
template <class T, int... Dims>
ARGUS_HIP_FN TileBuffer tileBuffer(const Tensor &t, const int64_t (&offsets)[sizeof...(Dims)]) {
  const int64_t origin = uniform(originOf(t, offsets));
  const int64_t bytes = tileSpanBytes<T, Dims...>(t);
#if ARGUS_HIP_DEVICE_CODE
  __builtin_assume(bytes > 0 && bytes < (int64_t(1) << 31));
#else
  if (bytes <= 0 || bytes >= (int64_t(1) << 31))
    trap("a tile spans 2 GiB or more of its tensor: the launch function should have refused it");
#endif
  const T *first = static_cast<const T *>(t.data) + origin;
  return {makeBuffer(first, uint32_t(bytes)), reinterpret_cast<uintptr_t>(first)};
}

/// An offset past the end of every tile buffer: the load reads zeros.
inline constexpr uint32_t kOutsideBuffer = 0x80000000u;

/// A tile of Dims at some offsets of a tensor, in 32 bits: the launch has
/// checked that a tile spans less than 2 GiB, so element offsets inside it,
/// and the strides of its dimensions longer than 1, fit. Coordinate c of
/// dimension d lies inside the tensor where first[d] <= c < end[d]. Uniform
/// values, one scalar register each, where 64-bit ones take two and the
/// kernels' loops run out of scalar registers.
template <int... Dims>
struct TileFrame {
  static constexpr int kRank = sizeof...(Dims);
  static constexpr int kDims[kRank] = {Dims...};
  int32_t stride[kRank], first[kRank], end[kRank];

  ARGUS_HIP_FN TileFrame(const Tensor &t, const int64_t (&offsets)[kRank]) {
    ARGUS_GPU_UNROLL
    for (int d = 0; d < kRank; ++d) {
      const auto clampToTile = [&](int64_t c) { return int32_t(c < 0 ? 0 : c > kDims[d] ? kDims[d] : c); };
      stride[d] = kDims[d] == 1 ? 0 : int32_t(t.stride[d]);
      first[d] = clampToTile(-offsets[d]);
      end[d] = clampToTile(t.shape[d] - offsets[d]);
    }
  }
  /// Whether every element is inside the tensor.
  ARGUS_HIP_FN bool inside() const {
    bool all = true;
    ARGUS_GPU_UNROLL
    for (int d = 0; d < kRank; ++d)
      all = all && first[d] == 0 && end[d] == kDims[d];
    return all;
  }
  /// Element (row, col)'s offset in elements from the tile's origin; rows
  /// flatten the leading dimensions. `outside`: kOutsideBuffer where it lies
  /// outside the tensor, else 0, from the sign bits of its distances to the
  /// edges (a comparison would be a lane mask: two scalar registers).
  ARGUS_HIP_FN int32_t offsetOf(int row, int col, uint32_t &outside) const {
    const auto signs = [&](int d, int c) { return uint32_t((c - first[d]) | (end[d] - 1 - c)); };
    outside = signs(kRank - 1, col);
    int32_t at = col * stride[kRank - 1];
    int rest = row;
    ARGUS_GPU_UNROLL
    for (int d = kRank - 2; d >= 0; --d) {
      const int coord = rest % kDims[d];
      rest /= kDims[d];
      outside |= signs(d, coord);
      at += coord * stride[d];
    }
    outside &= kOutsideBuffer;
    return at;
  }
  /// Whether runs of N elements of T start aligned in every row, the tile's
  /// first element at address `origin`: layouts start runs at multiples of N.
  template <class T, int N>
  ARGUS_HIP_FN bool rowsAligned(uintptr_t origin) const {
    bool aligned = origin % (sizeof(T) * N) == 0 && stride[kRank - 1] == 1;
    ARGUS_GPU_UNROLL
    for (int d = 0; d < kRank - 1; ++d)
      aligned = aligned && stride[d] % N == 0;
    return aligned;
  }
};

/// The byte offset of slot i of lane l in layout L of a tile framed by
/// `frame`, checked element by element: kOutsideBuffer set where the element
/// lies outside the tensor or is padding. `edgeLane` is l made opaque by the
/// caller (so that the offsets are not hoisted out of the kernel's loops).
template <class L, class T, int... Dims>
ARGUS_HIP_FN uint32_t elementOffset(const TileFrame<Dims...> &frame, int l, int edgeLane, int i) {
  uint32_t outside;
  const uint32_t at = uint32_t(frame.offsetOf(L::row(edgeLane, i), L::col(edgeLane, i), outside)) * sizeof(T);
  return at | (L::valid(l, i) ? outside : kOutsideBuffer);
}

/// Calls access(i, n, offset) for the runs of L's slots of this lane in a
/// tile of Dims at `offsets` of `t`: slots i .. i + n - 1 at byte `offset` of
/// `buffer` (kOutsideBuffer set where the slots lie outside the tensor or
/// are padding). Layouts with runs take one of two paths by a uniform test: a
/// tile inside the tensor with aligned rows goes run by run (n = kRun) and
/// checks nothing per lane; any other tile (the edge of a ragged shape) goes
/// element by element (n = 1) with bounds in the offset's top bit, as every
/// tile of a layout without runs does. A per-lane choice would split the wave
/// at every run and keep an exec mask live for each (SGPR spills).
template <class L, class T, int... Dims, class Access>
ARGUS_HIP_FN void forEachRun(const Tensor &t, const int64_t (&offsets)[sizeof...(Dims)], const TileBuffer &buffer,
                             Access &&access) {
  // Runs are wholly valid or wholly padding where the tile's columns are whole runs.
  constexpr bool kRunByRun = L::kRun > 1 && L::kCols % L::kRun == 0;
  const TileFrame<Dims...> frame(t, offsets);
  const int l = Wave::lane();
  if (kRunByRun && frame.inside() && frame.template rowsAligned<T, L::kRun>(buffer.origin)) {
    ARGUS_GPU_UNROLL
    for (int i = 0; i < L::kPerLane; i += L::kRun) {
      uint32_t outside; // 0: the tile is inside
      const uint32_t at = uint32_t(frame.offsetOf(L::row(l, i), L::col(l, i), outside)) * sizeof(T);
      access(i, std::integral_constant<int, L::kRun>(), L::valid(l, i) ? at : kOutsideBuffer);
    }
    return;
  }
  // Offsets computed here from an opaque lane: hoisted out of the kernel's
  // loop, each would hold a register across it.
  const int edgeLane = opaque(l);
  ARGUS_GPU_UNROLL
  for (int i = 0; i < L::kPerLane; ++i)
    access(i, std::integral_constant<int, 1>(), elementOffset<L, T>(frame, l, edgeLane, i));
}

/// `run` read at `at`, or `pad` where `at` lies outside the tensor (the
/// buffer read zeros there).
template <class T>
ARGUS_HIP_FN T paddedRead(T run, uint32_t at, T pad) {
  return pad == T(0) || !(at & kOutsideBuffer) ? run : pad;
}

/// A tile's offsets, taken afresh for one store: what the store derives from
/// them (bounds, its buffer) is computed for it alone. The compiler would
/// otherwise share those values with a load at the same offsets before the
/// kernel's loop (the store being after it) and keep them in scalar registers
/// across the loop, where they run out. (Loads in one loop step do gain from
/// sharing: a page's keys and values.)
template <int Rank>
struct FreshOffsets {
  int64_t at[Rank];
  ARGUS_HIP_FN explicit FreshOffsets(const int64_t (&offsets)[Rank]) {
    ARGUS_GPU_UNROLL
    for (int d = 0; d < Rank; ++d)
      at[d] = opaqueUniform(offsets[d]);
  }
};

} // namespace detail

/// A tile of Dims at `offsets` of `t` in layout L; elements outside the tensor
/// read `padding`. Every access goes through one buffer from the tile's origin
/// (a masked element reads past its end, zeros), by 32-bit offsets.
template <class L, class DT, int... Dims>
ARGUS_HIP_FN void loadGlobal(typename DT::storage (&dst)[L::kPerLane], const Tensor &t,
                             const int64_t (&offsets)[sizeof...(Dims)], float padding) {
  using T = typename DT::storage;
  const detail::TileBuffer buffer = detail::tileBuffer<T, Dims...>(t, offsets);
  const T pad = DT::store(typename DT::compute(padding));
  detail::forEachRun<L, T, Dims...>(t, offsets, buffer, [&](int i, auto n, uint32_t at) {
    const auto run = bufferLoad<Wave::Vector<T, decltype(n)::value>>(buffer.resource, at);
    ARGUS_GPU_UNROLL
    for (int j = 0; j < n; ++j)
      dst[i + j] = detail::paddedRead(run[j], at, pad);
  });
}

/// A tile of Dims at `offsets` of `t` in layout L, read one slot at a time
/// where it is used: reader(i) is slot i of this lane (padding outside the
/// tensor), as loadGlobal would have read it. The HIP backend reads a tile
/// so when elementwise ops are its only use and its layout is read element
/// by element anyway (no runs): the epilogue `acc * alpha + C * beta` then
/// holds one C element at a time, not a second copy of the accumulator (a
/// 256 x 256 tile's epilogue spilled 43 registers).
template <class L, class DT, int... Dims>
class TileReader {
public:
  using T = typename DT::storage;
  ARGUS_HIP_FN TileReader(const Tensor &t, const int64_t (&offsets)[sizeof...(Dims)], float padding)
      : buffer(detail::tileBuffer<T, Dims...>(t, offsets)), frame(t, offsets), edgeLane(opaque(Wave::lane())),
        pad(DT::store(typename DT::compute(padding))) {}
  ARGUS_HIP_FN T operator()(int i) const {
    const uint32_t at = detail::elementOffset<L, T>(frame, Wave::lane(), edgeLane, i);
    return detail::paddedRead(bufferLoad<Wave::Vector<T, 1>>(buffer.resource, at)[0], at, pad);
  }

private:
  detail::TileBuffer buffer;
  detail::TileFrame<Dims...> frame;
  int edgeLane;
  T pad;
};

/// `src` (layout L) to the tile of Dims at `offsets` of `t`; elements outside
/// the tensor are not written: their buffer stores fall past the buffer's
/// end and the hardware drops them, so no lane branches.
template <class L, class DT, int... Dims>
ARGUS_HIP_FN void storeGlobal(const Tensor &t, const int64_t (&offsets)[sizeof...(Dims)],
                              const typename DT::storage (&src)[L::kPerLane]) {
  using T = typename DT::storage;
  const detail::FreshOffsets<sizeof...(Dims)> fresh(offsets);
  const detail::TileBuffer buffer = detail::tileBuffer<T, Dims...>(t, fresh.at);
  detail::forEachRun<L, T, Dims...>(t, fresh.at, buffer, [&](int i, auto n, uint32_t at) {
    Wave::Vector<T, decltype(n)::value> run;
    ARGUS_GPU_UNROLL
    for (int j = 0; j < n; ++j)
      run[j] = src[i + j];
    bufferStore(buffer.resource, at, run);
  });
}

//===----------------------------------------------------------------------===//
// Asynchronous copies: global memory straight into LDS
//===----------------------------------------------------------------------===//

/// How many direct-to-LDS loads copyAsync issues for a slot of SlotElems
/// elements of T placed by Place with C columns: a wave writes 256
/// contiguous bytes per buffer_load_dword ... lds (lane l the dword at 4·l:
/// gfx90a and gfx942 load dwords into LDS, nothing narrower); 0 where it
/// copies synchronously: a placement that moves elements, elements wider than
/// a dword, slot rows that are not whole dwords. The HIP backend counts these
/// too (its wait is s_waitcnt over them: EmitLaneOps.cpp, dmaLoadsOf).
template <class Place>
inline constexpr bool kIdentityPlacement = false;
template <>
inline constexpr bool kIdentityPlacement<Unswizzled> = true;

template <class T, int C, int SlotElems, class Place>
inline constexpr int kDmaLoads = (kIdentityPlacement<Place> && sizeof(T) <= 4 && C % (4 / sizeof(T)) == 0)
                                     ? (SlotElems * int(sizeof(T)) + 255) / 256
                                     : 0;

/// copy_async on CDNA: slot `slot` of `buffer` filled with the tile of Dims at
/// `offsets` of `t` (C columns) by kDmaLoads direct-to-LDS loads, complete
/// after a later waitVectorMemory; elements outside the tensor read zeros.
/// The launch function has checked rowsInDwords, and tile columns start at
/// multiples of C, so a dword never spans two rows of the tensor; one that
/// straddles the tensor's last column is loaded element by element and
/// written with ds_write by its lane instead (zeros past the edge). Where
/// kDmaLoads is 0 the copy is a load into registers and a store, done when
/// the call returns.
template <class L, class DT, int C, int SlotElems, class Place, int... Dims>
ARGUS_HIP_FN void copyAsync(typename DT::storage *buffer, int slot, const Tensor &t,
                            const int64_t (&offsets)[sizeof...(Dims)]) {
  using T = typename DT::storage;
  constexpr int loads = kDmaLoads<T, C, SlotElems, Place>;
  if constexpr (loads > 0) {
    constexpr int last = sizeof...(Dims) - 1, perDword = 4 / int(sizeof(T)), slotBytes = SlotElems * int(sizeof(T));
    const detail::TileBuffer source = detail::tileBuffer<T, Dims...>(t, offsets);
    char *const slotStart = reinterpret_cast<char *>(buffer + Place::place(slot * SlotElems));
    const int l = Wave::lane();
    ARGUS_GPU_UNROLL
    for (int chunk = 0; chunk < loads; ++chunk) {
      const int byte = chunk * 256 + 4 * l, e = byte / int(sizeof(T)), row = e / C, col = e % C;
      if (byte >= slotBytes) // lanes past the slot's end write nothing
        continue;
      int64_t rowIndex = 0;
      const int64_t c0 = offsets[last] + col, width = t.shape[last];
      const bool rowIn = detail::rowInTile<Dims...>(t, offsets, row, rowIndex);
      const uint32_t at = uint32_t((rowIndex + col) * int64_t(sizeof(T)));
      if (!rowIn || c0 + perDword <= width || c0 >= width) { // wholly inside or wholly outside
        bufferLoadToLds(source.resource, slotStart + chunk * 256,
                        rowIn && c0 < width ? at : detail::kOutsideBuffer);
      } else {
        T dword[perDword];
        ARGUS_GPU_UNROLL
        for (int j = 0; j < perDword; ++j)
          dword[j] = c0 + j < width ? bufferLoad<T>(source.resource, at + uint32_t(j * int(sizeof(T)))) : T(0);
        *reinterpret_cast<uint32_t *>(slotStart + byte) = __builtin_bit_cast(uint32_t, dword);
      }
    }
  } else {
    T staged[L::kPerLane];
    loadGlobal<L, DT, Dims...>(staged, t, offsets, 0.0f);
    storeShared<L, C, SlotElems, Place>(buffer, slot, staged);
  }
}

//===----------------------------------------------------------------------===//
// MFMA
//===----------------------------------------------------------------------===//

/// The MFMA shapes tiles use, by block size and element type: on 16-bit
/// elements v_mfma_f32_32x32x8 (8 k per instruction, 16 results per lane) and
/// v_mfma_f32_16x16x16 (16 k, 4); on gfx942's fp8 32x32x16 and 16x16x32.
/// Operand: one lane's V elements of a step (V = kRun), each a Scalar.
template <int Block, Element E>
struct Mfma;
template <Element E>
struct Mfma<32, E> {
  using Acc = f32x16;
  using Operand = b16x4;
  using Scalar = short;
  static constexpr int kRun = 4;
  ARGUS_HIP_FN static Acc run(Operand a, Operand b, Acc c) { return mfma32x32x8<E>(a, b, c); }
};
template <Element E>
struct Mfma<16, E> {
  using Acc = f32x4;
  using Operand = b16x4;
  using Scalar = short;
  static constexpr int kRun = 4;
  ARGUS_HIP_FN static Acc run(Operand a, Operand b, Acc c) { return mfma16x16x16<E>(a, b, c); }
};
template <>
struct Mfma<32, Element::Fp8Fnuz> {
  using Acc = f32x16;
  using Operand = b8x8;
  using Scalar = uint8_t;
  static constexpr int kRun = 8;
  ARGUS_HIP_FN static Acc run(Operand a, Operand b, Acc c) { return mfma32x32x16Fp8(a, b, c); }
};
template <>
struct Mfma<16, Element::Fp8Fnuz> {
  using Acc = f32x4;
  using Operand = b8x8;
  using Scalar = uint8_t;
  static constexpr int kRun = 8;
  ARGUS_HIP_FN static Acc run(Operand a, Operand b, Acc c) { return mfma16x16x32Fp8(a, b, c); }
};

/// acc (MfmaAcc<M, N, Block>) += a (MfmaOperand<M, K, Block, V>) · bᵀ
/// (MfmaOperand<N, K, Block, V>): one MFMA per block and step of k. Padding
/// slots of the operands multiply as zeros (whatever they hold).
template <Element E, int Block, int M, int N, int K, class S, int AccSlots, int ASlots, int BSlots>
ARGUS_HIP_FN void mma(float (&acc)[AccSlots], const S (&a)[ASlots], const S (&b)[BSlots]) {
  using Shape = Mfma<Block, E>;
  constexpr int V = Shape::kRun;
  using A = MfmaOperand<M, K, Block, V>;
  using B = MfmaOperand<N, K, Block, V>;
  static_assert(AccSlots == MfmaAcc<M, N, Block>::kPerLane && ASlots == A::kPerLane && BSlots == B::kPerLane,
                "tiles in the MFMA layouts of this product");
  constexpr int results = Block * Block / kWaveSize, steps = A::kSteps;
  constexpr int blockRows = A::kPaddedRows / Block, blockCols = B::kPaddedRows / Block;
  const int l = Wave::lane();
  auto operand = [&](const auto &tile, auto layout, int i) {
    using L = decltype(layout);
    return typename Shape::Scalar(!L::kPadded || L::valid(l, i) ? tile[i] : 0);
  };
  ARGUS_GPU_UNROLL
  for (int bm = 0; bm < blockRows; ++bm) {
    ARGUS_GPU_UNROLL
    for (int bn = 0; bn < blockCols; ++bn) {
      typename Shape::Acc c;
      ARGUS_GPU_UNROLL
      for (int e = 0; e < results; ++e)
        c[e] = acc[(bm * blockCols + bn) * results + e];
      ARGUS_GPU_UNROLL
      for (int ks = 0; ks < steps; ++ks) {
        typename Shape::Operand x, y;
        ARGUS_GPU_UNROLL
        for (int j = 0; j < V; ++j) {
          x[j] = operand(a, A{}, (bm * steps + ks) * V + j);
          y[j] = operand(b, B{}, (bn * steps + ks) * V + j);
        }
        c = Shape::run(x, y, c);
      }
      ARGUS_GPU_UNROLL
      for (int e = 0; e < results; ++e)
        acc[(bm * blockCols + bn) * results + e] = c[e];
    }
  }
}

} // namespace argus::hip::tile

#endif // ARGUS_HIP_TILE_H
