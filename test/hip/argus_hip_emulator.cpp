//===- argus_hip_emulator.cpp - the wave emulator -------------------------===//
#include "argus_hip_emulator.h"

#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace argus::hip::emu {
namespace {

[[noreturn]] void abortWith(const char *what) {
  std::fprintf(stderr, "argus hip emulator: %s\n", what);
  std::abort();
}

// A reusable barrier for `count` threads (std::barrier is C++20).
class Barrier {
public:
  explicit Barrier(int count) : count(count) {}
  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    const unsigned generation = this->generation;
    if (++arrived == count) {
      arrived = 0;
      ++this->generation;
      changed.notify_all();
      return;
    }
    changed.wait(lock, [&] { return generation != this->generation; });
  }

private:
  std::mutex mutex;
  std::condition_variable changed;
  const int count;
  int arrived = 0;
  unsigned generation = 0;
};

// What the lanes of one wave exchange in an MFMA or a shuffle.
struct Wave {
  Barrier barrier{kWaveSize};
  b16x4 a[kWaveSize], b[kWaveSize];
  float value[kWaveSize];
};

struct Workgroup {
  Workgroup(const Launch &launch, int x, int y, int z)
      : x(x), y(y), z(z), ldsBytes(launch.ldsBytes), lds(std::size_t(launch.ldsBytes), char(0xff)), barrier(launch.threads),
        waves(std::size_t(launch.threads / kWaveSize)) {}
  const int x, y, z, ldsBytes;
  std::vector<char> lds;  // poisoned: 0xffff is a bf16 NaN, so reading unwritten LDS shows
  Barrier barrier;
  std::vector<Wave> waves;
};

struct WorkItem {
  Workgroup *group = nullptr;
  int item = 0;
  int ldsUsed = 0;
};
thread_local WorkItem current;

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

int workItem() { return current.item; }
int workGroup(int d) { return d == 0 ? current.group->x : d == 1 ? current.group->y : current.group->z; }
void barrier() { current.group->barrier.wait(); }

static Wave &currentWave() { return current.group->waves[std::size_t(current.item / kWaveSize)]; }

void waveBarrier() { currentWave().barrier.wait(); }

float shuffle(float v, int source) {
  Wave &wave = currentWave();
  wave.value[current.item % kWaveSize] = v;
  wave.barrier.wait();
  const float result = wave.value[source & (kWaveSize - 1)];  // ds_bpermute wraps the lane index
  wave.barrier.wait();
  return result;
}

float exp2(float x) { return std::exp2(x); }

char *lds(int bytes) {
  const int offset = (current.ldsUsed + 15) / 16 * 16;
  if (offset + bytes > current.group->ldsBytes)
    abortWith("the kernel takes more LDS than its launch declares");
  current.ldsUsed = offset + bytes;
  return current.group->lds.data() + offset;
}

u32x4 bufferLoad16(const char *base, uint32_t bytes, uint32_t offset) {
  u32x4 v = {0, 0, 0, 0};
  if (offset >= bytes)
    return v;
  if (bytes - offset < 16)
    abortWith("a 16-byte buffer load straddles the end of its buffer");
  std::memcpy(&v, base + offset, 16);
  return v;
}

// One wave-wide MFMA on a Block x Block block: lane l's operands are row (A) / column (B)
// l % Block, k = 4 (l / Block) + 0..3, so one instruction covers 256 / Block values of k; its
// result element e is at column l % Block and row resultRow(l, e).
template <int Block, class Acc>
Acc mfma(b16x4 a, b16x4 b, Acc c, bool isF16, int (*resultRow)(int l, int e)) {
  float (*const value)(short) = isF16 ? f16 : bf16;
  Wave &wave = currentWave();
  const int l = current.item % kWaveSize;
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
        auto group = std::make_unique<Workgroup>(launch, x, y, z);
        std::vector<std::thread> items;
        items.reserve(std::size_t(launch.threads));
        for (int t = 0; t < launch.threads; ++t)
          items.emplace_back([&, t] {
            current = {group.get(), t, 0};
            kernel();
          });
        for (std::thread &item : items)
          item.join();
      }
}

} // namespace argus::hip::emu
