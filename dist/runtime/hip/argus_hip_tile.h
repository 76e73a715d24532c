//===- argus_hip_tile.h - what every generated HIP kernel includes ---------===//
//
// The HIP backend (generator/lib/Backend/Hip) lowers an argus kernel whose
// threads are waves: every tile value of the DSL is held by the 64 lanes of
// one wave, each lane a register array of `Layout::kPerLane` elements. A
// layout says which element of the tile lane `l` holds in its slot `i`:
//
//   Striped<R, C, V>   runs of V row-major elements dealt round the lanes:
//                      the layout of global <-> LDS traffic (16-byte runs);
//   MfmaAcc<R, C, B>   B x B blocks of an MFMA's result layout (B = 32:
//                      v_mfma_f32_32x32x8, 16: v_mfma_f32_16x16x16);
//   MfmaOperand<R, K, B>  its A / B operand layout (row l % B, k 4·(l / B)...);
//   Broadcast<L, ...>  L's slots, with the broadcast dimension pinned to 0:
//                      a (1, C) bias added to an MfmaAcc tile;
//   Transposed<L>      L with rows and columns swapped (a transpose's operand).
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

#if __has_include("argus_scalar_ops.h")
#include "argus_scalar_ops.h"
#else
#include "../argus_scalar_ops.h"
#endif

namespace argus::hip::tile {

using namespace argus_scalar;
using argus::hip::Element;

//===----------------------------------------------------------------------===//
// Arguments and element types
//===----------------------------------------------------------------------===//

/// A global tensor as a kernel argument: data, sizes and element strides,
/// outermost first (the CPU backend's argus_cpu_tensor, on the device).
struct Tensor {
  const void *data;
  int64_t shape[4];
  int64_t stride[4];
};

/// What the host needs to launch a generated kernel.
struct LaunchShape {
  int64_t grid[3];
  int threads;                 // work-items: waves x 64
  int ldsBytes;                // static LDS of the kernel
  const char *error = nullptr; // set when the arguments break a precondition: do not launch
};

/// Element types: how a tile element is stored and computed.
struct F32 {
  using storage = float;
  using compute = float;
  ARGUS_HIP_FN static compute load(storage x) { return x; }
  ARGUS_HIP_FN static storage store(compute x) { return x; }
};
struct Bf16 {
  using storage = uint16_t;
  using compute = float;
  ARGUS_HIP_FN static compute load(storage x) { return bf16ToFloat(x); }
  ARGUS_HIP_FN static storage store(compute x) { return floatToBf16(x); }
};
struct F16 {
  using storage = uint16_t;
  using compute = float;
  ARGUS_HIP_FN static compute load(storage x) { return toFloat<Element::F16>(x); }
  ARGUS_HIP_FN static storage store(compute x) { return fromFloat<Element::F16>(x); }
};
template <class T>
struct Int {
  using storage = T;
  using compute = T;
  ARGUS_HIP_FN static compute load(storage x) { return x; }
  ARGUS_HIP_FN static storage store(compute x) { return x; }
};
using I32 = Int<int32_t>;
using I64 = Int<int64_t>;
struct I1 {
  using storage = uint8_t;
  using compute = bool;
  ARGUS_HIP_FN static compute load(storage x) { return x != 0; }
  ARGUS_HIP_FN static storage store(compute x) { return x ? 1 : 0; }
};

/// Rounds a float to the nearest bf16 / f16 value (the value stays a float).
ARGUS_HIP_FN float round_bf16(float x) { return Bf16::load(Bf16::store(x)); }
ARGUS_HIP_FN float round_f16(float x) { return F16::load(F16::store(x)); }

//===----------------------------------------------------------------------===//
// Register layouts
//===----------------------------------------------------------------------===//
// Each layout has kRows x kCols, kPerLane slots per lane, row(l, i) / col(l, i)
// of slot i in lane l, valid(l, i) (false for the padding slots of a layout
// whose element count is not a multiple of 64), and kRun: slots i .. i + kRun - 1
// (i a multiple of kRun) hold consecutive columns of one row, so they move as
// one vector access where memory allows.

template <int R, int C, int V>
struct Striped {
  static_assert(C % V == 0, "a run stays inside one row");
  static constexpr int kRows = R, kCols = C, kRun = V;
  static constexpr int kRunsPerLane = (R * C / V + kWaveSize - 1) / kWaveSize;
  static constexpr int kPerLane = kRunsPerLane * V;
  ARGUS_HIP_FN static int element(int l, int i) { return ((i / V) * kWaveSize + l) * V + i % V; }
  ARGUS_HIP_FN static int row(int l, int i) { return element(l, i) / C; }
  ARGUS_HIP_FN static int col(int l, int i) { return element(l, i) % C; }
  ARGUS_HIP_FN static bool valid(int l, int i) { return element(l, i) < R * C; }
  // Rows for reduceRows: a row's runs lie in consecutive lanes of one slot run
  // (at most 64 runs a row) or fill whole slot runs of every lane (a multiple of 64).
  static constexpr int kRunsPerRow = C / V;
  static constexpr int kRowLanes = kWaveSize % kRunsPerRow == 0   ? kRunsPerRow - 1
                                   : kRunsPerRow % kWaveSize == 0 ? kWaveSize - 1
                                                                  : -1;
  ARGUS_HIP_FN static constexpr bool sameRow(int i, int j) {
    return kRunsPerRow <= kWaveSize ? i / V == j / V
                                    : i / V / (kRunsPerRow / kWaveSize) == j / V / (kRunsPerRow / kWaveSize);
  }
};

/// `x` rounded up to a multiple of `m`.
constexpr int roundUp(int x, int m) { return (x + m - 1) / m * m; }

/// The result layout of an MFMA on Block x Block blocks (32: v_mfma_f32_32x32x8,
/// 16: v_mfma_f32_16x16x16), R x C padded to whole blocks in row-major order,
/// Block² / 64 slots of each per lane: lane l holds column l % Block, and in
/// slot e the row 4·G·(e / 4) + 4·(l / Block) + e % 4, G = 64 / Block lane groups.
/// Slots in the padding (a 4-row decode tile fills 4 of 16 rows) are not valid.
template <int R, int C, int Block>
struct MfmaAcc {
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
/// kSteps steps of kK = 256 / Block values of k; lane l holds row l % Block and
/// k = 4·(l / Block) + 0..3 of each step. Rows and k are padded like MfmaAcc's;
/// ak::mma zeroes the padding before it multiplies.
template <int R, int K, int Block>
struct MfmaOperand {
  static constexpr int kK = 4 * kWaveSize / Block;
  static constexpr int kRows = R, kCols = K, kRun = 4;
  static constexpr int kPaddedRows = roundUp(R, Block), kSteps = roundUp(K, kK) / kK;
  static constexpr int kPerLane = kPaddedRows * kSteps * kK / kWaveSize;
  static constexpr bool kPadded = R % Block != 0 || K % kK != 0;
  ARGUS_HIP_FN static int row(int l, int i) { return i / (4 * kSteps) * Block + l % Block; }
  ARGUS_HIP_FN static int col(int l, int i) { return (i / 4) % kSteps * kK + 4 * (l / Block) + i % 4; }
  ARGUS_HIP_FN static bool valid(int l, int i) {
    return (R % Block == 0 || row(l, i) < R) && (K % kK == 0 || col(l, i) < K);
  }
  // A row's k values are in the lanes l % Block apart, every slot of its block of rows.
  static constexpr int kRowLanes = (kWaveSize - 1) & ~(Block - 1);
  ARGUS_HIP_FN static constexpr bool sameRow(int i, int j) { return i / (4 * kSteps) == j / (4 * kSteps); }
};

/// The slots of L for an operand broadcast along rows (KeepRows false: its
/// shape is (1, C)) or columns (KeepCols false: (R, 1)) into an L-shaped
/// result: slot i holds the element the result's slot i combines with.
template <class L, bool KeepRows, bool KeepCols>
struct Broadcast {
  static constexpr int kRows = KeepRows ? L::kRows : 1, kCols = KeepCols ? L::kCols : 1;
  static constexpr int kRun = KeepCols ? L::kRun : 1;
  static constexpr int kPerLane = L::kPerLane;
  ARGUS_HIP_FN static int row(int l, int i) { return KeepRows ? L::row(l, i) : 0; }
  ARGUS_HIP_FN static int col(int l, int i) { return KeepCols ? L::col(l, i) : 0; }
  ARGUS_HIP_FN static bool valid(int l, int i) { return L::valid(l, i); }
};

/// L with rows and columns swapped: the operand of a transpose takes it, so
/// that the transpose itself moves nothing (a V tile loaded from LDS straight
/// into the B operand layout of P·V).
template <class L>
struct Transposed {
  static constexpr int kRows = L::kCols, kCols = L::kRows, kRun = 1;
  static constexpr int kPerLane = L::kPerLane;
  ARGUS_HIP_FN static int row(int l, int i) { return L::col(l, i); }
  ARGUS_HIP_FN static int col(int l, int i) { return L::row(l, i); }
  ARGUS_HIP_FN static bool valid(int l, int i) { return L::valid(l, i); }
};

//===----------------------------------------------------------------------===//
// Whole-tile helpers
//===----------------------------------------------------------------------===//

template <int N, class T>
ARGUS_HIP_FN void fill(T (&dst)[N], T value) {
  ARGUS_UNROLL
  for (int i = 0; i < N; ++i)
    dst[i] = value;
}

template <int N, class T>
ARGUS_HIP_FN void copy(T (&dst)[N], const T (&src)[N]) {
  ARGUS_UNROLL
  for (int i = 0; i < N; ++i)
    dst[i] = src[i];
}

/// iota along `Dim` of a rank-`Rank` tile whose dimensions are Dims.
template <class L, int Dim, int... Dims, class T>
ARGUS_HIP_FN void iota(T (&dst)[L::kPerLane]) {
  constexpr int rank = sizeof...(Dims), dims[rank] = {Dims...};
  const int l = lane();
  ARGUS_UNROLL
  for (int i = 0; i < L::kPerLane; ++i) {
    int row = L::row(l, i), coord = L::col(l, i);
    for (int d = rank - 2; d >= Dim; --d) {
      coord = row % dims[d];
      row /= dims[d];
    }
    dst[i] = T(coord);
  }
}

/// Moves tile `src` (layout From) into layout To through `scratch`, this
/// wave's kRows x kCols elements of LDS: each lane writes its elements row-major
/// (a broadcast layout's copies write the same value), then reads To's.
template <class From, class To, class T>
ARGUS_HIP_FN void convert(T (&dst)[To::kPerLane], const T (&src)[From::kPerLane], T *scratch) {
  static_assert(From::kRows == To::kRows && From::kCols == To::kCols, "one tile in two layouts");
  constexpr int cols = From::kCols;
  const int l = lane();
  waveBarrier(); // the previous conversion's reads are done
  ARGUS_UNROLL
  for (int i = 0; i < From::kPerLane; ++i)
    if (From::valid(l, i))
      scratch[From::row(l, i) * cols + From::col(l, i)] = src[i];
  waveBarrier();
  ARGUS_UNROLL
  for (int i = 0; i < To::kPerLane; ++i)
    dst[i] = To::valid(l, i) ? scratch[To::row(l, i) * cols + To::col(l, i)] : T(0);
}

/// The combining functions of argus.reduce.
struct ReduceSum {
  ARGUS_HIP_FN static float identity() { return 0.0f; }
  ARGUS_HIP_FN static float combine(float a, float b) { return a + b; }
};
struct ReduceMax {
  ARGUS_HIP_FN static float identity() { return -__builtin_huge_valf(); }
  ARGUS_HIP_FN static float combine(float a, float b) { return a > b ? a : b; }
};
struct ReduceMin {
  ARGUS_HIP_FN static float identity() { return __builtin_huge_valf(); }
  ARGUS_HIP_FN static float combine(float a, float b) { return a < b ? a : b; }
};

/// Each row of an f32 tile in layout L reduced by Op, into Broadcast<L, true,
/// false> (slot i holds its row's result): first the lane's own slots of the
/// row, then a butterfly over the lanes that share rows (L::kRowLanes); slots
/// of a row already reduced are copied, not shuffled again.
template <class L, class Op>
ARGUS_HIP_FN void reduceRows(float (&dst)[L::kPerLane], const float (&src)[L::kPerLane]) {
  static_assert(L::kRowLanes >= 0, "a layout whose lanes split every row alike");
  const int l = lane();
  ARGUS_UNROLL
  for (int i = 0; i < L::kPerLane; ++i) {
    int first = i;
    ARGUS_UNROLL
    for (int j = i - 1; j >= 0; --j)
      if (L::sameRow(i, j))
        first = j;
    if (first != i) {
      dst[i] = dst[first];
      continue;
    }
    float a = Op::identity();
    ARGUS_UNROLL
    for (int j = i; j < L::kPerLane; ++j)
      if (L::sameRow(i, j) && L::valid(l, j))
        a = Op::combine(a, src[j]);
    ARGUS_UNROLL
    for (int m = 1; m < kWaveSize; m <<= 1)
      if (L::kRowLanes & m)
        a = Op::combine(a, argus::hip::shuffle(a, l ^ m));
    dst[i] = a;
  }
}

//===----------------------------------------------------------------------===//
// Global memory (masked: elements out of bounds read `padding`, are not written)
//===----------------------------------------------------------------------===//

namespace detail {

template <class T, int N>
struct alignas(sizeof(T) * N) Run {
  T v[N];
};

/// A run as one vector value: a run a branch may fill two ways stays one
/// register tuple through the join (a per-element array would become N
/// 16-bit registers, repacked for every MFMA).
template <class T, int N>
struct RunVector {
  typedef T type __attribute__((vector_size(sizeof(T) * N)));
};

/// Where tile row `row` (rows flatten the leading dimensions Dims[0 .. rank-2])
/// starts, in elements from the tile's origin `offsets`; false when a leading
/// coordinate is outside the tensor.
template <int... Dims>
ARGUS_HIP_FN bool rowInTile(const Tensor &t, const int64_t (&offsets)[sizeof...(Dims)], int row, int64_t &index) {
  constexpr int rank = sizeof...(Dims), dims[rank] = {Dims...};
  bool inside = true;
  index = 0;
  int rest = row;
  ARGUS_UNROLL
  for (int d = rank - 2; d >= 0; --d) {
    const int coord = rest % dims[d];
    rest /= dims[d];
    const int64_t at = offsets[d] + coord;
    inside = inside && at >= 0 && at < t.shape[d];
    index += coord * t.stride[d];
  }
  return inside;
}

/// A buffer over the elements a tile may touch, from its origin.
struct TileBuffer {
  BufferResource resource;
  uintptr_t origin; // the address of the tile's element (0, ..., 0)
};

/// Bytes from a tile's first element to its last: the same wherever it sits
/// (host and device: the launch function checks it).
template <class T, int... Dims>
ARGUS_SCALAR_FN int64_t tileSpanBytes(const Tensor &t) {
  constexpr int rank = sizeof...(Dims), dims[rank] = {Dims...};
  int64_t last = 0;
  ARGUS_UNROLL
  for (int d = 0; d < rank; ++d)
    last += (dims[d] - 1) * t.stride[d];
  return (last + 1) * int64_t(sizeof(T));
}

/// The buffer of a tile of Dims at `offsets`: its origin is uniform (scalar
/// registers) and every lane addresses its elements by 32-bit offsets, not
/// 64-bit pointers. The launch function has checked tileSpanFits.
template <class T, int... Dims>
ARGUS_HIP_FN TileBuffer tileBuffer(const Tensor &t, const int64_t (&offsets)[sizeof...(Dims)]) {
  constexpr int rank = sizeof...(Dims);
  int64_t origin = 0;
  ARGUS_UNROLL
  for (int d = 0; d < rank; ++d)
    origin += offsets[d] * t.stride[d];
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

} // namespace detail

/// Host, before a launch: whether a tile of Dims of `t` spans less than 2 GiB,
/// so that loadGlobal's 32-bit offsets reach all of it.
template <class DT, int... Dims>
inline bool tileSpanFits(const Tensor &t) {
  return detail::tileSpanBytes<typename DT::storage, Dims...>(t) < (int64_t(1) << 31);
}

/// A tile of Dims at `offsets` of `t` in layout L; elements outside the tensor
/// read `padding`. Every access goes through one buffer from the tile's origin
/// (a masked element reads past its end), so no 64-bit address is kept per
/// lane. A run inside and aligned is one load, any other element by element.
template <class L, class DT, int... Dims>
ARGUS_HIP_FN void loadGlobal(typename DT::storage (&dst)[L::kPerLane], const Tensor &t,
                             const int64_t (&offsets)[sizeof...(Dims)], float padding) {
  using T = typename DT::storage;
  using RunT = typename detail::RunVector<T, L::kRun>::type;
  constexpr int last = sizeof...(Dims) - 1;
  const detail::TileBuffer buffer = detail::tileBuffer<T, Dims...>(t, offsets);
  const T pad = DT::store(typename DT::compute(padding));
  const int64_t colStride = t.stride[last], cols = t.shape[last];
  const int l = lane();
  ARGUS_UNROLL
  for (int i = 0; i < L::kPerLane; i += L::kRun) {
    int64_t rowIndex = 0;
    const bool rowIn = L::valid(l, i) && detail::rowInTile<Dims...>(t, offsets, L::row(l, i), rowIndex);
    const int col = L::col(l, i);
    const int64_t c0 = offsets[last] + col;
    const uint32_t at = uint32_t((rowIndex + col * colStride) * int64_t(sizeof(T)));
    RunT run;
    if (L::kRun > 1 && rowIn && L::valid(l, i + L::kRun - 1) && c0 >= 0 && c0 + L::kRun <= cols &&
        colStride == 1 && (buffer.origin + at) % (sizeof(T) * L::kRun) == 0) {
      run = bufferLoad<RunT>(buffer.resource, at);
    } else {
      ARGUS_UNROLL
      for (int j = 0; j < L::kRun; ++j) {
        const bool in = rowIn && L::valid(l, i + j) && c0 + j >= 0 && c0 + j < cols;
        const uint32_t element = at + uint32_t(j * colStride * int64_t(sizeof(T)));
        const T x = bufferLoad<T>(buffer.resource, in ? element : detail::kOutsideBuffer);
        run[j] = in ? x : pad;
      }
    }
    ARGUS_UNROLL
    for (int j = 0; j < L::kRun; ++j)
      dst[i + j] = run[j];
  }
}

/// One element of `t` (argus.read): in bounds, as the verifier proves.
template <class DT, int Rank>
ARGUS_HIP_FN typename DT::compute readGlobal(const Tensor &t, const int64_t (&indices)[Rank]) {
  int64_t at = 0;
  ARGUS_UNROLL
  for (int d = 0; d < Rank; ++d)
    at += indices[d] * t.stride[d];
  return DT::load(static_cast<const typename DT::storage *>(t.data)[at]);
}

template <class L, class DT, int... Dims>
ARGUS_HIP_FN void storeGlobal(const Tensor &t, const int64_t (&offsets)[sizeof...(Dims)],
                              const typename DT::storage (&src)[L::kPerLane]) {
  using T = typename DT::storage;
  constexpr int rank = sizeof...(Dims), last = rank - 1;
  int64_t origin = 0;
  ARGUS_UNROLL
  for (int d = 0; d < rank; ++d)
    origin += offsets[d] * t.stride[d];
  T *first = static_cast<T *>(const_cast<void *>(t.data)) + origin;
  const int64_t colStride = t.stride[last], cols = t.shape[last];
  const int l = lane();
  ARGUS_UNROLL
  for (int i = 0; i < L::kPerLane; i += L::kRun) {
    int64_t rowIndex = 0;
    const bool rowIn = L::valid(l, i) && detail::rowInTile<Dims...>(t, offsets, L::row(l, i), rowIndex);
    const int col = L::col(l, i);
    const int64_t c0 = offsets[last] + col;
    T *p = first + rowIndex + col * colStride;
    ARGUS_UNROLL
    for (int j = 0; j < L::kRun; ++j)
      if (rowIn && L::valid(l, i + j) && c0 + j >= 0 && c0 + j < cols)
        p[j * colStride] = src[i + j];
  }
}

//===----------------------------------------------------------------------===//
// LDS: a buffer slot of the DSL is a row-major tile placed by a functor
//===----------------------------------------------------------------------===//
// Indices are 32-bit: LDS is 64 KB, and 64-bit addresses kept live across a
// loop cost two VGPRs each.

/// The identity placement (a buffer without a layout).
struct Unswizzled {
  static constexpr int kContiguous = 1 << 30;
  ARGUS_HIP_FN static int place(int x) { return x; }
};

namespace detail {

/// The widest run of L that Place keeps contiguous and aligned in a slot of
/// C columns starting at a multiple of SlotElems.
template <class L, int C, int SlotElems, class Place>
inline constexpr int ldsRun = (L::kRun <= Place::kContiguous && C % L::kRun == 0 && SlotElems % L::kRun == 0)
                                  ? L::kRun
                                  : 1;

} // namespace detail

namespace detail {

/// Calls f(i, at) for every run of L's slots in this lane (first slot i, its
/// LDS index `at`) in slot `slot` of a buffer placed by Place.
template <class L, int C, int SlotElems, class Place, class F>
ARGUS_HIP_FN void forEachLdsRun(int slot, F &&f) {
  const int l = lane();
  ARGUS_UNROLL
  for (int i = 0; i < L::kPerLane; i += ldsRun<L, C, SlotElems, Place>)
    if (L::valid(l, i))
      f(i, Place::place(slot * SlotElems + L::row(l, i) * C + L::col(l, i)));
}

} // namespace detail

/// Writes tile `src` (layout L, C columns) to slot `slot` (SlotElems elements
/// each) of the LDS array `buffer` of T, element e of the slot at
/// Place::place(slot * SlotElems + e).
template <class L, int C, int SlotElems, class Place, class T>
ARGUS_HIP_FN void storeShared(T *buffer, int slot, const T (&src)[L::kPerLane]) {
  constexpr int run = detail::ldsRun<L, C, SlotElems, Place>;
  detail::forEachLdsRun<L, C, SlotElems, Place>(slot, [&](int i, int at) {
    detail::Run<T, run> r;
    ARGUS_UNROLL
    for (int j = 0; j < run; ++j)
      r.v[j] = src[i + j];
    *reinterpret_cast<detail::Run<T, run> *>(buffer + at) = r;
  });
}

template <class L, int C, int SlotElems, class Place, class T>
ARGUS_HIP_FN void loadShared(T (&dst)[L::kPerLane], const T *buffer, int slot) {
  constexpr int run = detail::ldsRun<L, C, SlotElems, Place>;
  detail::forEachLdsRun<L, C, SlotElems, Place>(slot, [&](int i, int at) {
    const auto r = *reinterpret_cast<const typename detail::RunVector<T, run>::type *>(buffer + at);
    ARGUS_UNROLL
    for (int j = 0; j < run; ++j)
      dst[i + j] = r[j];
  });
}

//===----------------------------------------------------------------------===//
// MFMA
//===----------------------------------------------------------------------===//

/// The two MFMA shapes tiles use, by block size: v_mfma_f32_32x32x8 (8 k
/// per instruction, 16 results per lane) and v_mfma_f32_16x16x16 (16 k, 4).
template <int Block>
struct Mfma;
template <>
struct Mfma<32> {
  using Acc = f32x16;
  static constexpr int kK = 8;
  template <Element E>
  ARGUS_HIP_FN static Acc run(b16x4 a, b16x4 b, Acc c) { return mfma32x32x8<E>(a, b, c); }
};
template <>
struct Mfma<16> {
  using Acc = f32x4;
  static constexpr int kK = 16;
  template <Element E>
  ARGUS_HIP_FN static Acc run(b16x4 a, b16x4 b, Acc c) { return mfma16x16x16<E>(a, b, c); }
};

/// acc (MfmaAcc<M, N, Block>) += a (MfmaOperand<M, K, Block>) · bᵀ
/// (MfmaOperand<N, K, Block>): one MFMA per block and Mfma<Block>::kK values of
/// k. Padding slots of the operands multiply as zeros (whatever they hold).
template <Element E, int Block, int M, int N, int K, int AccSlots, int ASlots, int BSlots>
ARGUS_HIP_FN void mma(float (&acc)[AccSlots], const uint16_t (&a)[ASlots], const uint16_t (&b)[BSlots]) {
  using Shape = Mfma<Block>;
  using A = MfmaOperand<M, K, Block>;
  using B = MfmaOperand<N, K, Block>;
  static_assert(AccSlots == MfmaAcc<M, N, Block>::kPerLane && ASlots == A::kPerLane && BSlots == B::kPerLane,
                "tiles in the MFMA layouts of this product");
  constexpr int results = Block * Block / kWaveSize, steps = A::kSteps;
  constexpr int blockRows = A::kPaddedRows / Block, blockCols = B::kPaddedRows / Block;
  const int l = lane();
  auto operand = [&](const auto &tile, auto layout, int i) {
    using L = decltype(layout);
    return short(!L::kPadded || L::valid(l, i) ? tile[i] : 0);
  };
  ARGUS_UNROLL
  for (int bm = 0; bm < blockRows; ++bm) {
    ARGUS_UNROLL
    for (int bn = 0; bn < blockCols; ++bn) {
      typename Shape::Acc c;
      ARGUS_UNROLL
      for (int e = 0; e < results; ++e)
        c[e] = acc[(bm * blockCols + bn) * results + e];
      ARGUS_UNROLL
      for (int ks = 0; ks < steps; ++ks) {
        b16x4 x, y;
        ARGUS_UNROLL
        for (int j = 0; j < 4; ++j) {
          x[j] = operand(a, A{}, (bm * steps + ks) * 4 + j);
          y[j] = operand(b, B{}, (bn * steps + ks) * 4 + j);
        }
        c = Shape::template run<E>(x, y, c);
      }
      ARGUS_UNROLL
      for (int e = 0; e < results; ++e)
        acc[(bm * blockCols + bn) * results + e] = c[e];
    }
  }
}

} // namespace argus::hip::tile

#endif // ARGUS_HIP_TILE_H
