//===- argus_hip_vectors.h - the register types of the CDNA kernels --------===//
//
// bf16 and f16 travel as their 16-bit patterns; an MFMA operand is four of
// them (b16x4, one VGPR pair) or eight fp8 bytes (b8x8), a 16-byte LDS or global access eight, an MFMA
// 32x32 result sixteen floats (f32x16), a 16x16 one four (f32x4). clang's
// vector extension on the device, GCC's (which clang also accepts) on the
// host, where the emulator runs the same kernels.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_VECTORS_H
#define ARGUS_HIP_VECTORS_H

#include <stdint.h>

namespace argus::hip {

#if defined(__HIP_DEVICE_COMPILE__)
typedef short b16x4 __attribute__((ext_vector_type(4)));
typedef uint8_t b8x8 __attribute__((ext_vector_type(8)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef uint32_t u32x4 __attribute__((ext_vector_type(4)));
typedef uint32_t u32x2 __attribute__((ext_vector_type(2)));
#else
typedef short b16x4 __attribute__((vector_size(8)));
typedef uint8_t b8x8 __attribute__((vector_size(8)));
typedef float f32x16 __attribute__((vector_size(64)));
typedef float f32x4 __attribute__((vector_size(16)));
typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef uint32_t u32x2 __attribute__((vector_size(8)));
#endif

inline constexpr int kWaveSize = 64;

} // namespace argus::hip

#endif // ARGUS_HIP_VECTORS_H
