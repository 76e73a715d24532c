// The generated kernels' launches (test/emulation/generated) on the CDNA wave emulator.
#include "argus_hip_emulator.h"
#include "generated_kernels.h"

namespace argus::gpu::test {

void emulateLaunch(const int64_t (&grid)[3], int threads, int sharedBytes, const std::function<void()> &body) {
  argus::hip::emu::Launch launch;
  launch.gridX = int(grid[0]);
  launch.gridY = int(grid[1]);
  launch.gridZ = int(grid[2]);
  launch.threads = threads;
  launch.ldsBytes = sharedBytes;
  argus::hip::emu::run(launch, body);
}

} // namespace argus::gpu::test
