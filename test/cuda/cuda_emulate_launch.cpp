// The generated kernels' launches (test/emulation/generated) on the CUDA cluster emulator.
#include "argus_cuda_emulator.h"
#include "generated_kernels.h"

namespace argus::gpu::test {

void emulateLaunch(const int64_t (&grid)[3], int threads, int sharedBytes, const std::function<void()> &body) {
  argus::cuda::emu::Launch launch;
  launch.gridX = int(grid[0]);
  launch.gridY = int(grid[1]);
  launch.gridZ = int(grid[2]);
  launch.threads = threads;
  launch.sharedBytes = sharedBytes;
  // The generated kernels' TMA copies are waited for by every lane of the issuing group on the
  // copy's own barrier (argus_cuda_tile.h: TmaRing): let nothing else land them.
  launch.landAtOwnBarrierOnly = true;
  argus::cuda::emu::run(launch, body);
}

} // namespace argus::gpu::test
