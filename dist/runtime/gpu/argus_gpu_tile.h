//===- argus_gpu_tile.h - lane-distributed tiles, for any GPU target ------===//
//
// The GPU backends (generator/lib/Backend/Lanes) lower an argus kernel whose
// threads are lane groups, a CDNA wave of 64 lanes or a CUDA warp of 32:
// every tile value of the DSL is held by the lanes of one group, each lane a
// register array of `Layout::kPerLane` elements. A layout says which element
// of the tile lane `l` holds in its slot `i`. This header has what does not
// depend on the matrix instructions:
//
//   Striped<W, R, C, V>   runs of V row-major elements dealt round the lanes:
//                         the layout of global <-> shared traffic (16-byte runs);
//   Broadcast<L, ...>     L's slots, with the broadcast dimension pinned to 0:
//                         a (1, C) bias added to an accumulator tile;
//   Transposed<L>         L with rows and columns swapped (a transpose's operand);
//
// the element types, whole-tile helpers, reduceRows (a butterfly over the
// lanes that share a row), convert (a tile moved between layouts through the
// group's shared scratch), global stores and shared-memory slots. The target
// headers add the matrix layouts and mma (argus_hip_tile.h: MFMA;
// argus_cuda_tile.h: mma.sync) and global loads.
//
// W, the lane group, is the target's policy:
//   W::kLanes                 lanes per group;
//   W::lane()                 this lane's index in its group;
//   W::sync()                 orders the group's shared-memory accesses;
//   W::shuffleXor(v, m)       v of lane lane() ^ m;
//   W::bf16ToFloat ... floatToF16   16-bit float conversions;
//   W::Vector<T, N>           a run of N T's as one value (subscriptable).
// Every layout names its group (L::Lanes), so a function needs only L.
//
// Include after the target's device header, which defines ARGUS_GPU_FN (its
// device-function qualifier) and ARGUS_GPU_UNROLL.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_TILE_H
#define ARGUS_GPU_TILE_H

#if !defined(ARGUS_GPU_FN) || !defined(ARGUS_GPU_UNROLL)
#error "argus_gpu_tile.h: include the target's device header first"
#endif

#include "argus_gpu_launch.h" // Tensor, LaunchShape and the scalar ops

#include <stdint.h>

namespace argus::gpu::tile {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Element types: how a tile element is stored and computed.
struct F32 {
  using storage = float;
  using compute = float;
  ARGUS_GPU_FN static compute load(storage x) { return x; }
  ARGUS_GPU_FN static storage store(compute x) { return x; }
};
template <class W>
struct Bf16Of {
  using storage = uint16_t;
  using compute = float;
  ARGUS_GPU_FN static compute load(storage x) { return W::bf16ToFloat(x); }
  ARGUS_GPU_FN static storage store(compute x) { return W::floatToBf16(x); }
};
template <class W>
struct F16Of {
  using storage = uint16_t;
  using compute = float;
  ARGUS_GPU_FN static compute load(storage x) { return W::f16ToFloat(x); }
  ARGUS_GPU_FN static storage store(compute x) { return W::floatToF16(x); }
};
template <class T>
struct Int {
  using storage = T;
  using compute = T;
  ARGUS_GPU_FN static compute load(storage x) { return x; }
  ARGUS_GPU_FN static storage store(compute x) { return x; }
};
using I32 = Int<int32_t>;
using I64 = Int<int64_t>;
struct I1 {
  using storage = uint8_t;
  using compute = bool;
  ARGUS_GPU_FN static compute load(storage x) { return x != 0; }
  ARGUS_GPU_FN static storage store(compute x) { return x ? 1 : 0; }
};

//===----------------------------------------------------------------------===//
// Register layouts
//===----------------------------------------------------------------------===//
// Each layout has kRows x kCols, kPerLane slots per lane, row(l, i) / col(l, i)
// of slot i in lane l, valid(l, i) (false for the padding slots of a layout
// whose element count is not a multiple of the lanes), and kRun: slots
// i .. i + kRun - 1 (i a multiple of kRun) hold consecutive columns of one
// row, so they move as one vector access where memory allows. Layouts that
// reduceRows takes also have kRowLanes (the lane bits a row spreads over) and
// sameRow(i, j).

template <class W, int R, int C, int V>
struct Striped {
  static_assert(C % V == 0, "a run stays inside one row");
  using Lanes = W;
  static constexpr int kLanes = W::kLanes;
  static constexpr int kRows = R, kCols = C, kRun = V;
  static constexpr int kRunsPerLane = (R * C / V + kLanes - 1) / kLanes;
  static constexpr int kPerLane = kRunsPerLane * V;
  ARGUS_GPU_FN static int element(int l, int i) { return ((i / V) * kLanes + l) * V + i % V; }
  ARGUS_GPU_FN static int row(int l, int i) { return element(l, i) / C; }
  ARGUS_GPU_FN static int col(int l, int i) { return element(l, i) % C; }
  ARGUS_GPU_FN static bool valid(int l, int i) { return element(l, i) < R * C; }
  // Rows for reduceRows: a row's runs lie in consecutive lanes of one slot run
  // (at most kLanes runs a row) or fill whole slot runs of every lane (a multiple).
  static constexpr int kRunsPerRow = C / V;
  static constexpr int kRowLanes = kLanes % kRunsPerRow == 0   ? kRunsPerRow - 1
                                   : kRunsPerRow % kLanes == 0 ? kLanes - 1
                                                               : -1;
  ARGUS_GPU_FN static constexpr bool sameRow(int i, int j) {
    return kRunsPerRow <= kLanes ? i / V == j / V : i / V / (kRunsPerRow / kLanes) == j / V / (kRunsPerRow / kLanes);
  }
};

/// `x` rounded up to a multiple of `m`.
constexpr int roundUp(int x, int m) { return (x + m - 1) / m * m; }

/// The slots of L for an operand broadcast along rows (KeepRows false: its
/// shape is (1, C)) or columns (KeepCols false: (R, 1)) into an L-shaped
/// result: slot i holds the element the result's slot i combines with.
template <class L, bool KeepRows, bool KeepCols>
struct Broadcast {
  using Lanes = typename L::Lanes;
  static constexpr int kRows = KeepRows ? L::kRows : 1, kCols = KeepCols ? L::kCols : 1;
  static constexpr int kRun = KeepCols ? L::kRun : 1;
  static constexpr int kPerLane = L::kPerLane;
  ARGUS_GPU_FN static int row(int l, int i) { return KeepRows ? L::row(l, i) : 0; }
  ARGUS_GPU_FN static int col(int l, int i) { return KeepCols ? L::col(l, i) : 0; }
  ARGUS_GPU_FN static bool valid(int l, int i) { return L::valid(l, i); }
};

/// L with rows and columns swapped: the operand of a transpose takes it, so
/// that the transpose itself moves nothing (a V tile loaded from shared memory
/// straight into the B operand layout of P·V).
template <class L>
struct Transposed {
  using Lanes = typename L::Lanes;
  static constexpr int kRows = L::kCols, kCols = L::kRows, kRun = 1;
  static constexpr int kPerLane = L::kPerLane;
  ARGUS_GPU_FN static int row(int l, int i) { return L::col(l, i); }
  ARGUS_GPU_FN static int col(int l, int i) { return L::row(l, i); }
  ARGUS_GPU_FN static bool valid(int l, int i) { return L::valid(l, i); }
};

//===----------------------------------------------------------------------===//
// Whole-tile helpers
//===----------------------------------------------------------------------===//

template <int N, class T>
ARGUS_GPU_FN void fill(T (&dst)[N], T value) {
  ARGUS_GPU_UNROLL
  for (int i = 0; i < N; ++i)
    dst[i] = value;
}

template <int N, class T>
ARGUS_GPU_FN void copy(T (&dst)[N], const T (&src)[N]) {
  ARGUS_GPU_UNROLL
  for (int i = 0; i < N; ++i)
    dst[i] = src[i];
}

/// iota along `Dim` of a rank-`Rank` tile whose dimensions are Dims.
template <class L, int Dim, int... Dims, class T>
ARGUS_GPU_FN void iota(T (&dst)[L::kPerLane]) {
  constexpr int rank = sizeof...(Dims), dims[rank] = {Dims...};
  const int l = L::Lanes::lane();
  ARGUS_GPU_UNROLL
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
/// group's kRows x kCols elements of shared memory: each lane writes its
/// elements row-major (a broadcast layout's copies write the same value),
/// then reads To's.
template <class From, class To, class T>
ARGUS_GPU_FN void convert(T (&dst)[To::kPerLane], const T (&src)[From::kPerLane], T *scratch) {
  static_assert(From::kRows == To::kRows && From::kCols == To::kCols, "one tile in two layouts");
  using W = typename From::Lanes;
  constexpr int cols = From::kCols;
  const int l = W::lane();
  W::sync(); // the previous conversion's reads are done
  ARGUS_GPU_UNROLL
  for (int i = 0; i < From::kPerLane; ++i)
    if (From::valid(l, i))
      scratch[From::row(l, i) * cols + From::col(l, i)] = src[i];
  W::sync();
  ARGUS_GPU_UNROLL
  for (int i = 0; i < To::kPerLane; ++i)
    dst[i] = To::valid(l, i) ? scratch[To::row(l, i) * cols + To::col(l, i)] : T(0);
}

/// The combining functions of argus.reduce.
struct ReduceSum {
  ARGUS_GPU_FN static float identity() { return 0.0f; }
  ARGUS_GPU_FN static float combine(float a, float b) { return a + b; }
};
struct ReduceMax {
  ARGUS_GPU_FN static float identity() { return -__builtin_huge_valf(); }
  ARGUS_GPU_FN static float combine(float a, float b) { return a > b ? a : b; }
};
struct ReduceMin {
  ARGUS_GPU_FN static float identity() { return __builtin_huge_valf(); }
  ARGUS_GPU_FN static float combine(float a, float b) { return a < b ? a : b; }
};

/// Each row of an f32 tile in layout L reduced by Op, into Broadcast<L, true,
/// false> (slot i holds its row's result): first the lane's own slots of the
/// row, then a butterfly over the lanes that share rows (L::kRowLanes); slots
/// of a row already reduced are copied, not shuffled again.
template <class L, class Op>
ARGUS_GPU_FN void reduceRows(float (&dst)[L::kPerLane], const float (&src)[L::kPerLane]) {
  static_assert(L::kRowLanes >= 0, "a layout whose lanes split every row alike");
  using W = typename L::Lanes;
  const int l = W::lane();
  ARGUS_GPU_UNROLL
  for (int i = 0; i < L::kPerLane; ++i) {
    int first = i;
    ARGUS_GPU_UNROLL
    for (int j = i - 1; j >= 0; --j)
      if (L::sameRow(i, j))
        first = j;
    if (first != i) {
      dst[i] = dst[first];
      continue;
    }
    float a = Op::identity();
    ARGUS_GPU_UNROLL
    for (int j = i; j < L::kPerLane; ++j)
      if (L::sameRow(i, j) && L::valid(l, j))
        a = Op::combine(a, src[j]);
    ARGUS_GPU_UNROLL
    for (int m = 1; m < W::kLanes; m <<= 1)
      if (L::kRowLanes & m)
        a = Op::combine(a, W::shuffleXor(a, m));
    dst[i] = a;
  }
}

//===----------------------------------------------------------------------===//
// Global memory (masked: elements out of bounds are not written)
//===----------------------------------------------------------------------===//

namespace detail {

template <class T, int N>
struct alignas(sizeof(T) * N) Run {
  T v[N];
  ARGUS_GPU_FN T &operator[](int i) { return v[i]; }
  ARGUS_GPU_FN const T &operator[](int i) const { return v[i]; }
};

/// Where tile row `row` (rows flatten the leading dimensions Dims[0 .. rank-2])
/// starts, in elements from the tile's origin `offsets`; false when a leading
/// coordinate is outside the tensor.
template <int... Dims>
ARGUS_GPU_FN bool rowInTile(const Tensor &t, const int64_t (&offsets)[sizeof...(Dims)], int row, int64_t &index) {
  constexpr int rank = sizeof...(Dims), dims[rank] = {Dims...};
  bool inside = true;
  index = 0;
  int rest = row;
  ARGUS_GPU_UNROLL
  for (int d = rank - 2; d >= 0; --d) {
    const int coord = rest % dims[d];
    rest /= dims[d];
    const int64_t at = offsets[d] + coord;
    inside = inside && at >= 0 && at < t.shape[d];
    index += coord * t.stride[d];
  }
  return inside;
}

/// The element offset of a tile's origin `offsets` in `t`.
template <int Rank>
ARGUS_GPU_FN int64_t originOf(const Tensor &t, const int64_t (&offsets)[Rank]) {
  int64_t origin = 0;
  ARGUS_GPU_UNROLL
  for (int d = 0; d < Rank; ++d)
    origin += offsets[d] * t.stride[d];
  return origin;
}

} // namespace detail

/// One element of `t` (argus.read): in bounds, as the verifier proves.
template <class DT, int Rank>
ARGUS_GPU_FN typename DT::compute readGlobal(const Tensor &t, const int64_t (&indices)[Rank]) {
  return DT::load(static_cast<const typename DT::storage *>(t.data)[detail::originOf(t, indices)]);
}

/// Rows [offsets[key], offsets[key + 1]) of `t` (argus.segment: sequence
/// `key` of a varlen batch), clamped to `t`, at most `limit` of them; no rows
/// for a key with no segment. Offset: `offsets`' element type.
template <int ElementBytes, class Offset>
ARGUS_GPU_FN Tensor segment(const Tensor &t, const Tensor &offsets, int64_t key, int64_t limit = INT64_MAX) {
  const auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; };
  int64_t start = 0, end = 0;
  if (key >= 0 && key + 1 < offsets.shape[0]) {
    const Offset *o = static_cast<const Offset *>(offsets.data);
    start = clamp(int64_t(o[key * offsets.stride[0]]), 0, t.shape[0]);
    end = clamp(int64_t(o[(key + 1) * offsets.stride[0]]), start, t.shape[0]);
    end = end - start > limit ? start + (limit > 0 ? limit : 0) : end;
  }
  Tensor s = t;
  s.data = static_cast<const char *>(t.data) + start * t.stride[0] * ElementBytes;
  s.shape[0] = end - start;
  return s;
}

template <class L, class DT, int... Dims>
ARGUS_GPU_FN void storeGlobal(const Tensor &t, const int64_t (&offsets)[sizeof...(Dims)],
                              const typename DT::storage (&src)[L::kPerLane]) {
  using T = typename DT::storage;
  constexpr int last = sizeof...(Dims) - 1;
  T *first = static_cast<T *>(const_cast<void *>(t.data)) + detail::originOf(t, offsets);
  const int64_t colStride = t.stride[last], cols = t.shape[last];
  const int l = L::Lanes::lane();
  ARGUS_GPU_UNROLL
  for (int i = 0; i < L::kPerLane; i += L::kRun) {
    int64_t rowIndex = 0;
    const bool rowIn = L::valid(l, i) && detail::rowInTile<Dims...>(t, offsets, L::row(l, i), rowIndex);
    const int col = L::col(l, i);
    const int64_t c0 = offsets[last] + col;
    T *p = first + rowIndex + col * colStride;
    ARGUS_GPU_UNROLL
    for (int j = 0; j < L::kRun; ++j)
      if (rowIn && L::valid(l, i + j) && c0 + j >= 0 && c0 + j < cols)
        p[j * colStride] = src[i + j];
  }
}

//===----------------------------------------------------------------------===//
// Shared memory: a buffer slot of the DSL is a row-major tile placed by a functor
//===----------------------------------------------------------------------===//
// Indices are 32-bit: shared memory is at most 228 KB, and 64-bit addresses
// kept live across a loop cost two registers each.

/// The identity placement (a buffer without a layout).
struct Unswizzled {
  static constexpr int kContiguous = 1 << 30;
  ARGUS_GPU_FN static int place(int x) { return x; }
};

namespace detail {

/// The widest run of L that Place keeps contiguous and aligned in a slot of
/// C columns starting at a multiple of SlotElems.
template <class L, int C, int SlotElems, class Place>
inline constexpr int sharedRun = (L::kRun <= Place::kContiguous && C % L::kRun == 0 && SlotElems % L::kRun == 0)
                                     ? L::kRun
                                     : 1;

/// Calls f(i, at) for every run of L's slots in this lane (first slot i, its
/// shared index `at`) in slot `slot` of a buffer placed by Place.
template <class L, int C, int SlotElems, class Place, class F>
ARGUS_GPU_FN void forEachSharedRun(int slot, F &&f) {
  const int l = L::Lanes::lane();
  ARGUS_GPU_UNROLL
  for (int i = 0; i < L::kPerLane; i += sharedRun<L, C, SlotElems, Place>)
    if (L::valid(l, i))
      f(i, Place::place(slot * SlotElems + L::row(l, i) * C + L::col(l, i)));
}

} // namespace detail

/// Writes tile `src` (layout L, C columns) to slot `slot` (SlotElems elements
/// each) of the shared array `buffer` of T, element e of the slot at
/// Place::place(slot * SlotElems + e).
template <class L, int C, int SlotElems, class Place, class T>
ARGUS_GPU_FN void storeShared(T *buffer, int slot, const T (&src)[L::kPerLane]) {
  constexpr int run = detail::sharedRun<L, C, SlotElems, Place>;
  detail::forEachSharedRun<L, C, SlotElems, Place>(slot, [&](int i, int at) {
    detail::Run<T, run> r;
    ARGUS_GPU_UNROLL
    for (int j = 0; j < run; ++j)
      r.v[j] = src[i + j];
    *reinterpret_cast<detail::Run<T, run> *>(buffer + at) = r;
  });
}

template <class L, int C, int SlotElems, class Place, class T>
ARGUS_GPU_FN void loadShared(T (&dst)[L::kPerLane], const T *buffer, int slot) {
  using W = typename L::Lanes;
  constexpr int run = detail::sharedRun<L, C, SlotElems, Place>;
  detail::forEachSharedRun<L, C, SlotElems, Place>(slot, [&](int i, int at) {
    const auto r = *reinterpret_cast<const typename W::template Vector<T, run> *>(buffer + at);
    ARGUS_GPU_UNROLL
    for (int j = 0; j < run; ++j)
      dst[i + j] = r[j];
  });
}

} // namespace argus::gpu::tile

#endif // ARGUS_GPU_TILE_H
