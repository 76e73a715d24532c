//===- argus_cuda_emulator.cpp - the cluster emulator ----------------------===//
#include "argus_cuda_emulator.h"

#include "argus_numerics.h"

#include "cluster_state.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace argus::cuda::emu {
namespace state {

Cta::Cta(const Launch &launch)
    : shared(std::size_t(launch.sharedBytes) + 1024, char(0xff)), barrier(launch.threads),
      warps(std::size_t(launch.threads / kWarpSize)),
      warpgroups(std::size_t((launch.threads + kWarpgroupSize - 1) / kWarpgroupSize)),
      bulk(std::size_t(launch.threads)), asyncCopies(std::size_t(launch.threads)) {}

Cluster::Cluster(const Launch &launch, int x, int y, int z)
    : launch(launch), x(x), y(y), z(z), barrier(launch.threads * launch.clusterCtas()) {
  ctas.reserve(std::size_t(launch.clusterCtas()));
  for (int r = 0; r < launch.clusterCtas(); ++r)
    ctas.emplace_back(launch);
}

namespace {
thread_local Cluster *current = nullptr;
int fiber() { return argus::emu::runningFiber(); }
} // namespace

Cluster &cluster() { return *current; }
Cta &cta() { return current->ctas[std::size_t(fiber() / current->launch.threads)]; }
int thread() { return fiber() % current->launch.threads; }

} // namespace state

using namespace state;

int threadIndex() { return thread(); }
int clusterRank() { return argus::emu::runningFiber() / cluster().launch.threads; }
int clusterSize() { return cluster().launch.clusterCtas(); }
int blockIndex(int d) {
  const int cx = cluster().launch.clusterX;
  return d == 0 ? cluster().x + clusterRank() % cx : d == 1 ? cluster().y : cluster().z + clusterRank() / cx;
}
int gridSize(int d) { return d == 0 ? cluster().launch.gridX : d == 1 ? cluster().launch.gridY : cluster().launch.gridZ; }
void syncThreads() { cta().barrier.wait(); }
void syncWarp() { cta().warps[std::size_t(threadIndex() / kWarpSize)].barrier.wait(); }
void clusterSync() { cluster().barrier.wait(); }
float warpXor(float v, int laneMask) {
  Warp &warp = cta().warps[std::size_t(threadIndex() / kWarpSize)];
  const int lane = threadIndex() % kWarpSize;
  warp.value[lane] = v;
  warp.barrier.wait();
  const float result = warp.value[(lane ^ laneMask) & (kWarpSize - 1)];
  warp.barrier.wait();  // before any lane overwrites its value for the next shuffle
  return result;
}

char *dynamicShared() { return cta().base(); }

const void *peerShared(const void *p, int rank) {
  if (rank < 0 || rank >= cluster().launch.clusterCtas())
    abortWith("peerShared of a rank outside the cluster");
  const char *mine = cta().base();
  const auto offset = static_cast<const char *>(p) - mine;
  if (offset < 0 || offset >= cluster().launch.sharedBytes)
    abortWith("peerShared of an address outside the CTA's dynamic shared memory");
  return cluster().ctas[std::size_t(rank)].base() + offset;
}

int atomicAdd(int *p, int v) {
  const int old = *p;
  *p = old + v;
  return old;
}

float exp2(float x) { return std::exp2(x); }

namespace {

// Half `half` of an operand word as bf16 or f16.
float halfOf(uint32_t word, int half, bool f16) {
  const auto bits = uint16_t(half ? word >> 16 : word & 0xffffu);
  return f16 ? argus_num::f16_to_f32(bits) : argus_num::bf16_to_f32(bits);
}

// Element (row, k) of A and (k, n) of B from the lanes' fragments (argus_cuda_kernel_device.h).
float elementA(const Warp &w, int row, int k, bool f16) {
  const int lane = 4 * (row % 8) + (k % 8) / 2;
  return halfOf(w.a[lane][(row / 8) + 2 * (k / 8)], k % 2, f16);
}

float elementB(const Warp &w, int k, int n, bool f16) {
  const int lane = 4 * n + (k % 8) / 2;
  return halfOf(w.b[lane][k / 8], k % 2, f16);
}

void mma(const uint32_t (&a)[4], const uint32_t (&b)[2], float (&c)[4], bool f16) {
  Warp &warp = cta().warps[std::size_t(threadIndex() / kWarpSize)];
  const int lane = threadIndex() % kWarpSize, g = lane / 4, t = lane % 4;
  std::copy(a, a + 4, warp.a[lane]);
  std::copy(b, b + 2, warp.b[lane]);
  warp.barrier.wait();
  for (int e = 0; e < 4; ++e) {
    const int row = g + 8 * (e / 2), n = 2 * t + e % 2;
    float sum = c[e];
    for (int k = 0; k < 16; ++k)
      sum += elementA(warp, row, k, f16) * elementB(warp, k, n, f16);
    c[e] = sum;
  }
  warp.barrier.wait();  // before any lane overwrites its operands for the next mma
}

} // namespace

void mmaBf16(const uint32_t (&a)[4], const uint32_t (&b)[2], float (&c)[4]) { mma(a, b, c, false); }

void mmaF16(const uint32_t (&a)[4], const uint32_t (&b)[2], float (&c)[4]) { mma(a, b, c, true); }

void run(const Launch &launch, const std::function<void()> &kernel) {
  if (launch.threads <= 0 || launch.threads % kWarpSize != 0)
    abortWith("a launch needs a positive multiple of 32 threads per CTA");
  if (launch.clusterX <= 0 || launch.gridX % launch.clusterX != 0 || launch.clusterZ <= 0 ||
      launch.gridZ % launch.clusterZ != 0)
    abortWith("the grid's x and z dimensions must be multiples of the cluster's");
  for (int z = 0; z < launch.gridZ; z += launch.clusterZ)
    for (int y = 0; y < launch.gridY; ++y)
      for (int x = 0; x < launch.gridX; x += launch.clusterX) {
        Cluster running(launch, x, y, z);
        state::current = &running;
        argus::emu::runFibers(launch.threads * launch.clusterCtas(), [&](int) { kernel(); }, kWho, launch.schedule);
        for (const Cta &c : running.ctas)
          for (const BulkGroups &b : c.bulk)
            if (!b.open.empty() || !b.committed.empty())
              abortWith("a thread ended with TMA stores it never waited for");
        for (const Cta &c : running.ctas)
          for (const AsyncCopyGroups &g : c.asyncCopies)
            if (!g.open.empty() || !g.committed.empty())
              abortWith("a thread ended with cp.async copies it never waited for");
        for (const Cta &c : running.ctas)
          for (const auto &[id, barrier] : c.named)
            if (!barrier->idle())
              abortWith("a CTA ended with arrivals on a named barrier that no thread synchronised on");
        state::current = nullptr;
      }
}

} // namespace argus::cuda::emu
