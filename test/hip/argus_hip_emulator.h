//===- argus_hip_emulator.h - CDNA kernels on the host, one fiber per lane --===//
//
// The host side of argus_hip_device.h (built with ARGUS_HIP_EMULATE): a
// workgroup runs as one fiber (ucontext) per work-item on the calling thread,
// each running until it waits, so barriers, shuffles and wave-wide MFMAs
// block exactly where the hardware's would, and the kernels' own source
// (indexing, masking, LDS swizzle, epilogue) is what runs. Workgroups run one
// after another; work-items that wait at barriers the others never reach
// abort the run instead of hanging. The emulator is strict where the
// hardware is lenient:
//   - a buffer load must be wholly inside its buffer or wholly past
//     its end (reads zeros); a straddling load aborts, since the kernels
//     promise never to depend on how the range check treats one;
//   - LDS requests beyond the launch's declared size abort.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_EMULATOR_H
#define ARGUS_HIP_EMULATOR_H

#include "argus_hip_vectors.h"

#include <functional>

namespace argus::hip::emu {

int workItem();
int workGroup(int d);
void barrier();
void waveBarrier();
float shuffle(float v, int source);
float exp2(float x);
[[noreturn]] void trap(const char *why);
char *lds(int bytes);
/// `size` bytes at `offset` of the buffer [base, base + bytes) into `out`.
void bufferLoad(const char *base, uint32_t bytes, uint32_t offset, void *out, int size);
/// `size` bytes of `in` to `offset` of the buffer [base, base + bytes); dropped past its end.
void bufferStore(char *base, uint32_t bytes, uint32_t offset, const void *in, int size);
f32x16 mfma32x32x8(b16x4 a, b16x4 b, f32x16 c, bool f16);
f32x4 mfma16x16x16(b16x4 a, b16x4 b, f32x4 c, bool f16);
f32x16 mfma32x32x16Fp8(b8x8 a, b8x8 b, f32x16 c);
f32x4 mfma16x16x32Fp8(b8x8 a, b8x8 b, f32x4 c);

struct Launch {
  int gridX = 1, gridY = 1, gridZ = 1;
  int threads = 64;      // a multiple of the wave size
  int ldsBytes = 65536;  // what the kernel may take with ARGUS_LDS
};

/// Runs `kernel` on every work-item of every workgroup of `launch`.
void run(const Launch &launch, const std::function<void()> &kernel);

} // namespace argus::hip::emu

#endif // ARGUS_HIP_EMULATOR_H
