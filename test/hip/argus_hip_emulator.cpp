//===- argus_hip_emulator.cpp - the wave emulator -------------------------===//
#include "argus_hip_emulator.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace argus::hip::emu {
namespace {

[[noreturn]] void abortWith(const char *what) {
  std::fprintf(stderr, "argus hip emulator: %s\n", what);
  std::abort();
}

// Work-items are fibers of the calling thread: one runs until it waits at a
// barrier, then the next one runs. A barrier costs a few user-space context
// switches, not a kernel wake-up of every waiting thread.
void yieldWorkItem();
// Arrivals, releases and finished work-items: a round of the scheduler that
// changes none of them is a deadlock.
thread_local uint64_t progress = 0;

// A reusable barrier for `count` work-items.
class Barrier {
public:
  explicit Barrier(int count) : count(count) {}
  void wait() {
    const unsigned generation = this->generation;
    ++progress;
    if (++arrived == count) {
      arrived = 0;
      ++this->generation;
      return;
    }
    while (generation == this->generation)
      yieldWorkItem();
  }

private:
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

// One fiber per work-item of a workgroup, each on its own stack (a guard page
// below it turns an overflow into a fault, not corruption).
struct Fiber {
  ucontext_t context;
  WorkItem state;
  bool done = false;
};

class Stacks {
public:
  static constexpr std::size_t kBytes = 512 * 1024;
  explicit Stacks(int count) : page(std::size_t(sysconf(_SC_PAGESIZE))), count(std::size_t(count)) {
    void *p = mmap(nullptr, count * (kBytes + page), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED)
      abortWith("cannot map the work-items' stacks");
    base = static_cast<char *>(p);
    for (std::size_t i = 0; i < this->count; ++i)
      mprotect(base + i * (kBytes + page), page, PROT_NONE);
  }
  ~Stacks() { munmap(base, count * (kBytes + page)); }
  char *stack(int i) const { return base + std::size_t(i) * (kBytes + page) + page; }

private:
  const std::size_t page, count;
  char *base = nullptr;
};

struct Scheduler {
  ucontext_t main;
  std::vector<Fiber> *fibers = nullptr;
  std::size_t running = 0;
  const std::function<void()> *kernel = nullptr;
};
thread_local Scheduler scheduler;

void yieldWorkItem() {
  Fiber &self = (*scheduler.fibers)[scheduler.running];
  if (swapcontext(&self.context, &scheduler.main) != 0)
    abortWith("swapcontext failed");
}

void runFiber() {
  (*scheduler.kernel)();
  (*scheduler.fibers)[scheduler.running].done = true;
  ++progress;
}

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

void trap(const char *why) { abortWith(why); }

char *lds(int bytes) {
  const int offset = (current.ldsUsed + 15) / 16 * 16;
  if (offset + bytes > current.group->ldsBytes)
    abortWith("the kernel takes more LDS than its launch declares");
  current.ldsUsed = offset + bytes;
  return current.group->lds.data() + offset;
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
  if (scheduler.fibers)
    abortWith("a kernel launched another kernel");
  Stacks stacks(launch.threads);
  scheduler.kernel = &kernel;
  for (int z = 0; z < launch.gridZ; ++z)
    for (int y = 0; y < launch.gridY; ++y)
      for (int x = 0; x < launch.gridX; ++x) {
        auto group = std::make_unique<Workgroup>(launch, x, y, z);
        std::vector<Fiber> fibers(std::size_t(launch.threads));
        for (int t = 0; t < launch.threads; ++t) {
          Fiber &f = fibers[std::size_t(t)];
          f.state = {group.get(), t, 0};
          getcontext(&f.context);
          f.context.uc_stack.ss_sp = stacks.stack(t);
          f.context.uc_stack.ss_size = Stacks::kBytes;
          f.context.uc_link = &scheduler.main;
          makecontext(&f.context, runFiber, 0);
        }
        scheduler.fibers = &fibers;
        // Round robin until every work-item has returned.
        for (bool live = true; live;) {
          live = false;
          const uint64_t before = progress;
          for (std::size_t t = 0; t < fibers.size(); ++t) {
            if (fibers[t].done)
              continue;
            scheduler.running = t;
            current = fibers[t].state;
            if (swapcontext(&scheduler.main, &fibers[t].context) != 0)
              abortWith("swapcontext failed");
            fibers[t].state = current;
            live = live || !fibers[t].done;
          }
          if (live && progress == before)
            abortWith("every work-item waits at a barrier the others never reach");
        }
        scheduler.fibers = nullptr;
      }
}

} // namespace argus::hip::emu
