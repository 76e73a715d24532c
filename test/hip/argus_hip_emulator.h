//===- argus_hip_emulator.h - CDNA kernels on the host, one thread per lane -===//
//
// The host side of argus_hip_device.h (built with ARGUS_HIP_EMULATE): a
// workgroup runs as one std::thread per work-item, so barriers and wave-wide
// MFMAs block exactly where the hardware's would, and the kernels' own source
// (indexing, masking, LDS swizzle, epilogue) is what runs. Workgroups run one
// after another. The emulator is strict where the hardware is lenient:
//   - a 16-byte buffer load must be wholly inside its buffer or wholly past
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
char *lds(int bytes);
u32x4 bufferLoad16(const char *base, uint32_t bytes, uint32_t offset);
f32x16 mfma32x32x8(b16x4 a, b16x4 b, f32x16 c, bool f16);
f32x4 mfma16x16x16(b16x4 a, b16x4 b, f32x4 c, bool f16);

struct Launch {
  int gridX = 1, gridY = 1, gridZ = 1;
  int threads = 64;      // a multiple of the wave size
  int ldsBytes = 65536;  // what the kernel may take with ARGUS_LDS
};

/// Runs `kernel` on every work-item of every workgroup of `launch`.
void run(const Launch &launch, const std::function<void()> &kernel);

} // namespace argus::hip::emu

#endif // ARGUS_HIP_EMULATOR_H
