//===- argus_hip_emulator.cpp - the wave emulator -------------------------===//
#include "argus_hip_emulator.h"

#include "fibers.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace argus::hip::emu {
namespace {

constexpr const char *kWho = "argus hip emulator";

[[noreturn]] void abortWith(const char *what) { argus::emu::abortWith(kWho, what); }

using argus::emu::Barrier;

// What the lanes of one wave exchange in an MFMA or a shuffle.
struct Wave {
  Barrier barrier{kWaveSize};
  b16x4 a[kWaveSize], b[kWaveSize];
  float value[kWaveSize];
};

struct Workgroup {
  Workgroup(const Launch &launch, int x, int y, int z)
      : x(x), y(y), z(z), ldsBytes(launch.ldsBytes), lds(std::size_t(launch.ldsBytes), char(0xff)), barrier(launch.threads),
        waves(std::size_t(launch.threads / kWaveSize)), ldsUsed(std::size_t(launch.threads), 0) {}
  const int x, y, z, ldsBytes;
  std::vector<char> lds;  // poisoned: 0xffff is a bf16 NaN, so reading unwritten LDS shows
  Barrier barrier;
  std::vector<Wave> waves;
  std::vector<int> ldsUsed;  // per work-item: what its ARGUS_LDS requests took so far
};

// The workgroup whose work-items are the running fibers (fiber i is work-item i).
thread_local Workgroup *group = nullptr;

float bf16(short bits) {
  const uint32_t word = uint32_t(uint16_t(bits)) << 16;
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
}

float f16(short bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof h);
  return float(h);
}

} // namespace

int workItem() { return argus::emu::runningFiber(); }
int workGroup(int d) { return d == 0 ? group->x : d == 1 ? group->y : group->z; }
void barrier() { group->barrier.wait(); }

static Wave &currentWave() { return group->waves[std::size_t(workItem() / kWaveSize)]; }

void waveBarrier() { currentWave().barrier.wait(); }

float shuffle(float v, int source) {
  Wave &wave = currentWave();
  wave.value[workItem() % kWaveSize] = v;
  wave.barrier.wait();
  const float result = wave.value[source & (kWaveSize - 1)];  // ds_bpermute wraps the lane index
  wave.barrier.wait();
  return result;
}

float exp2(float x) { return std::exp2(x); }

void trap(const char *why) { abortWith(why); }

char *lds(int bytes) {
  int &used = group->ldsUsed[std::size_t(workItem())];
  const int offset = (used + 15) / 16 * 16;
  if (offset + bytes > group->ldsBytes)
    abortWith("the kernel takes more LDS than its launch declares");
  used = offset + bytes;
  return group->lds.data() + offset;
}

void bufferLoad(const char *base, uint32_t bytes, uint32_t offset, void *out, int size) {
  std::memset(out, 0, std::size_t(size));
  if (offset >= bytes)
    return;
  if (bytes - offset < uint32_t(size))
    abortWith("a buffer load straddles the end of its buffer");
  std::memcpy(out, base + offset, std::size_t(size));
}

// One wave-wide MFMA on a Block x Block block: lane l's operands are row (A) / column (B)
// l % Block, k = 4 (l / Block) + 0..3, so one instruction covers 256 / Block values of k; its
// result element e is at column l % Block and row resultRow(l, e).
template <int Block, class Acc>
Acc mfma(b16x4 a, b16x4 b, Acc c, bool isF16, int (*resultRow)(int l, int e)) {
  float (*const value)(short) = isF16 ? f16 : bf16;
  Wave &wave = currentWave();
  const int l = workItem() % kWaveSize;
  wave.a[l] = a;
  wave.b[l] = b;
  wave.barrier.wait();
  const int col = l % Block;
  for (int e = 0; e < Block * Block / kWaveSize; ++e) {
    const int row = resultRow(l, e);
    float sum = c[e];
    for (int k = 0; k < 4 * kWaveSize / Block; ++k)
      sum += value(wave.a[row + Block * (k / 4)][k % 4]) * value(wave.b[col + Block * (k / 4)][k % 4]);
    c[e] = sum;
  }
  wave.barrier.wait();  // before any lane overwrites its operands for the next MFMA
  return c;
}

// The layouts argus_hip_device.h states for v_mfma_f32_32x32x8 and v_mfma_f32_16x16x16 (bf16, f16).
f32x16 mfma32x32x8(b16x4 a, b16x4 b, f32x16 c, bool isF16) {
  return mfma<32>(a, b, c, isF16, [](int l, int e) { return 8 * (e / 4) + 4 * (l / 32) + e % 4; });
}

f32x4 mfma16x16x16(b16x4 a, b16x4 b, f32x4 c, bool isF16) {
  return mfma<16>(a, b, c, isF16, [](int l, int e) { return 4 * (l / 16) + e; });
}

void run(const Launch &launch, const std::function<void()> &kernel) {
  if (launch.threads <= 0 || launch.threads % kWaveSize != 0)
    abortWith("a launch needs a positive multiple of 64 work-items");
  for (int z = 0; z < launch.gridZ; ++z)
    for (int y = 0; y < launch.gridY; ++y)
      for (int x = 0; x < launch.gridX; ++x) {
        Workgroup workgroup(launch, x, y, z);
        group = &workgroup;
        argus::emu::runFibers(launch.threads, [&](int) { kernel(); }, kWho);
        group = nullptr;
      }
}

} // namespace argus::hip::emu
