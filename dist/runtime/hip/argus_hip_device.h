//===- argus_hip_device.h - what a CDNA kernel may touch, on either side ---===//
//
// The Argus HIP kernels are written against this header only, never against
// HIP's own headers, so that one source builds two ways:
//
//   device   clang++-22 -x hip --offload-arch=gfx942|gfx90a -nogpulib -nogpuinc
//            --offload-device-only: every call below is one amdgcn builtin;
//   host     any C++17 compiler with ARGUS_HIP_EMULATE defined: every call goes
//            to the wave emulator (test/hip/argus_hip_emulator.h), which runs a
//            workgroup as one host thread per work-item, so the kernels'
//            indexing, masking, LDS swizzle and barriers are tested without an
//            AMD GPU.
//
// What the emulator cannot vouch for is the hardware's side of the contract:
// the MFMA operand and result layouts below (taken from AMD's CDNA3 ISA guide,
// section 7.1, "Dependent arithmetic and data layouts") and the buffer range
// check. Both are written down here once, and the emulator implements exactly
// these statements.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_DEVICE_H
#define ARGUS_HIP_DEVICE_H

#if defined(__HIP_DEVICE_COMPILE__)
#define ARGUS_HIP_DEVICE_CODE 1
// Unrolls the next loop: register arrays indexed by its variable stay in registers.
#define ARGUS_UNROLL _Pragma("unroll")
#define ARGUS_HIP_FN __attribute__((device)) inline __attribute__((always_inline))
#define ARGUS_HIP_KERNEL(threads) \
  extern "C" __attribute__((global)) __attribute__((amdgpu_flat_work_group_size(threads, threads)))
#elif defined(ARGUS_HIP_EMULATE)
#define ARGUS_HIP_DEVICE_CODE 0
#define ARGUS_UNROLL
#define ARGUS_HIP_FN inline
#else
#error "argus_hip_device.h: compile with clang -x hip for the device, or define ARGUS_HIP_EMULATE for the host"
#endif
// The qualifier of the kernels in dist/runtime/gpu written once for every target.
#define ARGUS_GPU_FN ARGUS_HIP_FN
#define ARGUS_GPU_UNROLL ARGUS_UNROLL

#include "argus_hip_vectors.h"

#if !ARGUS_HIP_DEVICE_CODE
#include "argus_hip_emulator.h"
#endif

namespace argus::hip {

//===----------------------------------------------------------------------===//
// Work-items and barriers
//===----------------------------------------------------------------------===//

ARGUS_HIP_FN int workItem() {
#if ARGUS_HIP_DEVICE_CODE
  return int(__builtin_amdgcn_workitem_id_x());
#else
  return emu::workItem();
#endif
}

/// Workgroup coordinate `d` (0: x, 1: y, 2: z).
ARGUS_HIP_FN int workGroup(int d) {
#if ARGUS_HIP_DEVICE_CODE
  return int(d == 0 ? __builtin_amdgcn_workgroup_id_x()
                    : d == 1 ? __builtin_amdgcn_workgroup_id_y() : __builtin_amdgcn_workgroup_id_z());
#else
  return emu::workGroup(d);
#endif
}

ARGUS_HIP_FN int lane() { return workItem() % kWaveSize; }
ARGUS_HIP_FN int wave() { return workItem() / kWaveSize; }

/// `x`, which the compiler may not see through: values derived from it where
/// it is taken are computed there, not hoisted out of loops and branches to
/// hold registers across them (a rarely taken path's loop invariants).
ARGUS_HIP_FN int opaque(int x) {
#if ARGUS_HIP_DEVICE_CODE
  asm volatile("" : "+v"(x));
#endif
  return x;
}

/// `x`, a value the same in every lane (the kernel's scalars are per wave),
/// in scalar registers: the compiler cannot always tell (a wave's index is
/// work-item / 64 to it), and a buffer resource built from a value it
/// thinks divergent costs a waterfall loop around every load.
ARGUS_HIP_FN int64_t uniform(int64_t x) {
#if ARGUS_HIP_DEVICE_CODE
  const uint32_t lo = __builtin_amdgcn_readfirstlane(uint32_t(x));
  const uint32_t hi = __builtin_amdgcn_readfirstlane(uint32_t(uint64_t(x) >> 32));
  return int64_t(uint64_t(hi) << 32 | lo);
#else
  return x;
#endif
}

/// uniform(x), which the compiler may not see through (opaque's reason).
ARGUS_HIP_FN int64_t opaqueUniform(int64_t x) {
  x = uniform(x);
#if ARGUS_HIP_DEVICE_CODE
  asm volatile("" : "+s"(x));
#endif
  return x;
}

/// __syncthreads: every LDS write before it is seen by every read after it.
ARGUS_HIP_FN void barrier() {
#if ARGUS_HIP_DEVICE_CODE
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
#else
  emu::barrier();
#endif
}

/// Orders one wave's LDS accesses: every lane's writes before it are seen by
/// every lane's reads after it (the wave's LDS traffic is in order; this
/// keeps the compiler from moving accesses across it).
ARGUS_HIP_FN void waveBarrier() {
#if ARGUS_HIP_DEVICE_CODE
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#else
  emu::waveBarrier();
#endif
}

//===----------------------------------------------------------------------===//
// Cross-lane
//===----------------------------------------------------------------------===//

/// The value `v` of lane `source` of this wave (ds_bpermute_b32).
ARGUS_HIP_FN float shuffle(float v, int source) {
#if ARGUS_HIP_DEVICE_CODE
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute(source << 2, __builtin_bit_cast(int, v)));
#else
  return emu::shuffle(v, source);
#endif
}

/// The maximum / sum of `v` over the wave, in every lane (a butterfly).
ARGUS_HIP_FN float waveMax(float v) {
  for (int offset = kWaveSize / 2; offset > 0; offset /= 2) {
    const float other = shuffle(v, lane() ^ offset);
    v = other > v ? other : v;
  }
  return v;
}

ARGUS_HIP_FN float waveSum(float v) {
  for (int offset = kWaveSize / 2; offset > 0; offset /= 2)
    v += shuffle(v, lane() ^ offset);
  return v;
}

/// *p += v, atomically within the workgroup (LDS) or device (global); the old value.
ARGUS_HIP_FN int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }

/// 2^x (v_exp_f32); 2^-inf = 0.
ARGUS_HIP_FN float exp2(float x) {
#if ARGUS_HIP_DEVICE_CODE
  return __builtin_amdgcn_exp2f(x);
#else
  return emu::exp2(x);
#endif
}

//===----------------------------------------------------------------------===//
// LDS
//===----------------------------------------------------------------------===//

// ARGUS_LDS(name, bytes): a 16-byte aligned LDS array of the workgroup, as a
// `char *name`. Declare each at most once per kernel, in the same order on
// every work-item (the emulator hands out consecutive slices of one arena).
#if ARGUS_HIP_DEVICE_CODE
#define ARGUS_LDS(name, bytes)                                                           \
  __attribute__((shared)) __attribute__((aligned(16))) static char name##_storage[bytes]; \
  char *const name = name##_storage
#else
#define ARGUS_LDS(name, bytes) char *const name = ::argus::hip::emu::lds(bytes)
#endif

/// Stops the kernel: s_trap on the device (the host sees a launch error), an
/// abort with `why` in the emulator.
ARGUS_HIP_FN void trap(const char *why) {
#if ARGUS_HIP_DEVICE_CODE
  (void)why;
  __builtin_trap();
#else
  emu::trap(why);
#endif
}

//===----------------------------------------------------------------------===//
// Buffer resources (global memory with a hardware range check)
//===----------------------------------------------------------------------===//

// A raw buffer: `bytes` bytes from `base`, stride 0. A load whose dword lies
// (partly) past `bytes` reads 0 for that dword and never faults, so tiles
// hanging over the last row read zeros without a branch. The dword-3 word is
// the one gfx90a and gfx942 take for raw 32-bit accesses.
struct BufferResource {
#if ARGUS_HIP_DEVICE_CODE
  __amdgpu_buffer_rsrc_t rsrc;
#else
  const char *base;
  uint32_t bytes;
#endif
};

ARGUS_HIP_FN BufferResource makeBuffer(const void *base, uint32_t bytes) {
#if ARGUS_HIP_DEVICE_CODE
  return {__builtin_amdgcn_make_buffer_rsrc(const_cast<void *>(base), short(0), int(bytes), 0x00020000)};
#else
  return {static_cast<const char *>(base), bytes};
#endif
}

/// 16 bytes at `offset` (a multiple of 4) of buffer `r`: buffer_load_dwordx4.
ARGUS_HIP_FN u32x4 bufferLoad16(BufferResource r, uint32_t offset) {
#if ARGUS_HIP_DEVICE_CODE
  return __builtin_bit_cast(u32x4, __builtin_amdgcn_raw_buffer_load_b128(r.rsrc, offset, 0, 0));
#else
  u32x4 v;
  emu::bufferLoad(r.base, r.bytes, offset, &v, int(sizeof v));
  return v;
#endif
}

/// sizeof(V) bytes (1, 2, 4, 8 or 16) at `offset` of buffer `r`, as a V: one
/// buffer_load (ubyte, ushort, dword, dwordx2, dwordx4); past the end, zeros.
template <class V>
ARGUS_HIP_FN V bufferLoad(BufferResource r, uint32_t offset) {
#if ARGUS_HIP_DEVICE_CODE
  constexpr int n = int(sizeof(V));
  if constexpr (n == 1)
    return __builtin_bit_cast(V, __builtin_amdgcn_raw_buffer_load_b8(r.rsrc, offset, 0, 0));
  else if constexpr (n == 2)
    return __builtin_bit_cast(V, __builtin_amdgcn_raw_buffer_load_b16(r.rsrc, offset, 0, 0));
  else if constexpr (n == 4)
    return __builtin_bit_cast(V, __builtin_amdgcn_raw_buffer_load_b32(r.rsrc, offset, 0, 0));
  else if constexpr (n == 8)
    return __builtin_bit_cast(V, __builtin_amdgcn_raw_buffer_load_b64(r.rsrc, offset, 0, 0));
  else {
    static_assert(n == 16, "a buffer load of 1, 2, 4, 8 or 16 bytes");
    return __builtin_bit_cast(V, __builtin_amdgcn_raw_buffer_load_b128(r.rsrc, offset, 0, 0));
  }
#else
  V v;
  emu::bufferLoad(r.base, r.bytes, offset, &v, int(sizeof v));
  return v;
#endif
}

/// sizeof(V) bytes (1, 2, 4, 8 or 16) of `v` to `offset` of buffer `r`: one
/// buffer_store; past the end, the hardware drops it.
template <class V>
ARGUS_HIP_FN void bufferStore(BufferResource r, uint32_t offset, V v) {
#if ARGUS_HIP_DEVICE_CODE
  constexpr int n = int(sizeof(V));
  if constexpr (n == 1)
    __builtin_amdgcn_raw_buffer_store_b8(__builtin_bit_cast(uint8_t, v), r.rsrc, offset, 0, 0);
  else if constexpr (n == 2)
    __builtin_amdgcn_raw_buffer_store_b16(__builtin_bit_cast(uint16_t, v), r.rsrc, offset, 0, 0);
  else if constexpr (n == 4)
    __builtin_amdgcn_raw_buffer_store_b32(__builtin_bit_cast(uint32_t, v), r.rsrc, offset, 0, 0);
  else if constexpr (n == 8)
    __builtin_amdgcn_raw_buffer_store_b64(__builtin_bit_cast(u32x2, v), r.rsrc, offset, 0, 0);
  else {
    static_assert(n == 16, "a buffer store of 1, 2, 4, 8 or 16 bytes");
    __builtin_amdgcn_raw_buffer_store_b128(__builtin_bit_cast(u32x4, v), r.rsrc, offset, 0, 0);
  }
#else
  emu::bufferStore(const_cast<char *>(r.base), r.bytes, offset, &v, int(sizeof v));
#endif
}

/// buffer_load_dword ... lds: this lane's 4 bytes at `offset` of buffer `r`
/// (zeros past its end) go straight to LDS at lds + 4·lane, no register in
/// between; `lds` is the same in every lane (it becomes M0). Complete only
/// after waitVectorMemory; the emulator copies at once. (The ubyte and
/// ushort forms also write a dword per lane on gfx9: not used.)
ARGUS_HIP_FN void bufferLoadToLds(BufferResource r, char *lds, uint32_t offset) {
#if ARGUS_HIP_DEVICE_CODE
  __builtin_amdgcn_raw_ptr_buffer_load_lds(r.rsrc, (__attribute__((address_space(3))) void *)lds, 4, offset, 0, 0, 0);
#else
  emu::bufferLoad(r.base, r.bytes, offset, lds + 4 * (workItem() % kWaveSize), 4);
#endif
}

/// s_waitcnt vmcnt(Outstanding): until at most Outstanding of this wave's
/// vector memory operations are in flight (they complete in issue order).
template <int Outstanding>
ARGUS_HIP_FN void waitVectorMemory() {
  constexpr int n = Outstanding < 63 ? Outstanding : 63; // vmcnt's 6 bits
  static_assert(n >= 0, "a count of operations");
#if ARGUS_HIP_DEVICE_CODE
  // gfx9's encoding: vmcnt in bits 3:0 and 15:14; expcnt (6:4) and lgkmcnt (11:8) at their maximum: not waited.
  __builtin_amdgcn_s_waitcnt((n & 15) | (7 << 4) | (15 << 8) | ((n >> 4) << 14));
#endif
}

//===----------------------------------------------------------------------===//
// Scheduling hints (the DSL's priority and schedule_group): nothing to emulate
//===----------------------------------------------------------------------===//

/// s_setprio Level: this wave's issue priority from here on, 0 (lowest) to 3.
template <int Level>
ARGUS_HIP_FN void setPriority() {
  static_assert(Level >= 0 && Level <= 3, "s_setprio takes 0 to 3");
#if ARGUS_HIP_DEVICE_CODE
  __builtin_amdgcn_s_setprio(Level);
#endif
}

/// The scheduler fills the next group of its region with Count instructions
/// of the kinds in Mask (LLVM's SchedGroupMask: 0x8 MFMA, 0x100 LDS reads, ...).
template <int Mask, int Count>
ARGUS_HIP_FN void scheduleGroup() {
#if ARGUS_HIP_DEVICE_CODE
  __builtin_amdgcn_sched_group_barrier(Mask, Count, 0);
#endif
}

//===----------------------------------------------------------------------===//
// MFMA
//===----------------------------------------------------------------------===//

/// The element types the matrix kernels take: 16-bit, and gfx942's fp8
/// (E4M3FNUZ: exponent bias 8, no infinities, no negative zero, 0x80 NaN).
enum class Element { Bf16, F16, Fp8Fnuz };

/// v_mfma_f32_32x32x8_bf16 (the _1k variant of gfx90a and gfx942) or
/// v_mfma_f32_32x32x8_f16, over one wave: D = A·Bᵀ + C for a 32x32 block and
/// 8 values of k.
///   operands   lane l holds row (A) / column (B) l % 32, k = 4·(l / 32) + 0..3;
///   result     lane l holds column l % 32 and, in element e (0..15),
///              row 8·(e / 4) + 4·(l / 32) + e % 4.
/// Which 8 k a call covers is the caller's choice, as long as A and B agree.
template <Element E>
ARGUS_HIP_FN f32x16 mfma32x32x8(b16x4 a, b16x4 b, f32x16 c) {
#if ARGUS_HIP_DEVICE_CODE
  if constexpr (E == Element::F16)
    return __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(f16x4, a), __builtin_bit_cast(f16x4, b), c, 0, 0, 0);
  else
    return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
#else
  return emu::mfma32x32x8(a, b, c, E == Element::F16);
#endif
}

/// v_mfma_f32_16x16x16_bf16 (gfx90a and gfx942 spell it ..._16x16x16bf16_1k
/// and ..._16x16x16_bf16) or v_mfma_f32_16x16x16_f16: D = A·Bᵀ + C for a
/// 16x16 block and 16 values of k.
///   operands   lane l holds row (A) / column (B) l % 16, k = 4·(l / 16) + 0..3;
///   result     lane l holds column l % 16 and, in element e (0..3), row 4·(l / 16) + e.
template <Element E>
ARGUS_HIP_FN f32x4 mfma16x16x16(b16x4 a, b16x4 b, f32x4 c) {
#if ARGUS_HIP_DEVICE_CODE
  if constexpr (E == Element::F16)
    return __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(f16x4, a), __builtin_bit_cast(f16x4, b), c, 0, 0, 0);
  else
    return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
#else
  return emu::mfma16x16x16(a, b, c, E == Element::F16);
#endif
}

/// v_mfma_f32_32x32x16_fp8_fp8 (gfx942 only): D = A·Bᵀ + C for a 32x32 block
/// and 16 values of k, A and B E4M3FNUZ.
///   operands   lane l holds row (A) / column (B) l % 32, k = 8·(l / 32) + 0..7;
///   result     as mfma32x32x8's.
ARGUS_HIP_FN f32x16 mfma32x32x16Fp8(b8x8 a, b8x8 b, f32x16 c) {
#if ARGUS_HIP_DEVICE_CODE
  return __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(__builtin_bit_cast(long, a), __builtin_bit_cast(long, b), c, 0, 0,
                                                    0);
#else
  return emu::mfma32x32x16Fp8(a, b, c);
#endif
}

/// v_mfma_f32_16x16x32_fp8_fp8 (gfx942 only): a 16x16 block and 32 values of k.
///   operands   lane l holds row (A) / column (B) l % 16, k = 8·(l / 16) + 0..7;
///   result     as mfma16x16x16's.
ARGUS_HIP_FN f32x4 mfma16x16x32Fp8(b8x8 a, b8x8 b, f32x4 c) {
#if ARGUS_HIP_DEVICE_CODE
  return __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(__builtin_bit_cast(long, a), __builtin_bit_cast(long, b), c, 0, 0,
                                                    0);
#else
  return emu::mfma16x16x32Fp8(a, b, c);
#endif
}

//===----------------------------------------------------------------------===//
// bf16 (round to nearest even, NaN kept, as argus_numerics.h) and f16
//===----------------------------------------------------------------------===//

ARGUS_HIP_FN float bf16ToFloat(uint16_t h) { return __builtin_bit_cast(float, uint32_t(h) << 16); }

ARGUS_HIP_FN uint16_t floatToBf16(float f) {
  const uint32_t bits = __builtin_bit_cast(uint32_t, f);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((bits >> 16) | 0x0040u);
  return uint16_t((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/// An element of type E, from / to its 16-bit pattern (f16: IEEE binary16,
/// round to nearest even, the hardware's v_cvt_f16_f32).
template <Element E>
ARGUS_HIP_FN float toFloat(uint16_t h) {
  if constexpr (E == Element::F16)
    return float(__builtin_bit_cast(_Float16, h));
  else
    return bf16ToFloat(h);
}

template <Element E>
ARGUS_HIP_FN uint16_t fromFloat(float f) {
  if constexpr (E == Element::F16)
    return __builtin_bit_cast(uint16_t, static_cast<_Float16>(f));
  else
    return floatToBf16(f);
}

//===----------------------------------------------------------------------===//
// gfx942's fp8, E4M3FNUZ: value (-1)^s · 2^(e - 8) · (1 + m/8), e = 0 subnormal
// m · 2^-10; 0x80 the only NaN. Converted in integer and float steps that give
// the same bits on both sides (v_cvt_f32_fp8 would be one instruction).
//===----------------------------------------------------------------------===//

ARGUS_HIP_FN float fp8FnuzToFloat(uint8_t b) {
  if (b == 0x80)
    return __builtin_nanf("");
  const uint32_t e = (b >> 3) & 15u, m = b & 7u, sign = uint32_t(b & 0x80u) << 24;
  const float magnitude = e == 0 ? float(m) * 0x1p-10f : __builtin_bit_cast(float, ((e + 119u) << 23) | (m << 20));
  return __builtin_bit_cast(float, __builtin_bit_cast(uint32_t, magnitude) | sign);
}

/// Round to nearest even; NaN and magnitudes from 248 on (past 240, the
/// largest) give NaN, as the hardware's conversion without clamping; a value
/// that rounds to zero is +0 (there is no -0).
ARGUS_HIP_FN uint8_t floatToFp8Fnuz(float f) {
  const uint32_t bits = __builtin_bit_cast(uint32_t, f);
  const float a = __builtin_bit_cast(float, bits & 0x7fffffffu);
  if (!(a < 248.0f))
    return 0x80;
  // The binade's quantum, 2^(E - 3), E >= -7 (subnormals share the smallest
  // normal binade's): n quanta give code 8·(E + 7) + n, carries included.
  int exponent = int((bits >> 23) & 0xffu) - 127;
  exponent = exponent < -7 ? -7 : exponent;
  const float quantum = __builtin_bit_cast(float, uint32_t(exponent - 3 + 127) << 23);
  const int code = 8 * (exponent + 7) + int(__builtin_rintf(a / quantum));
  return code == 0 ? 0 : uint8_t(code | int((bits >> 24) & 0x80u));
}

} // namespace argus::hip

#endif // ARGUS_HIP_DEVICE_H
