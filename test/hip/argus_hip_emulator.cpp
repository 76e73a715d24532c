//===- argus_hip_emulator.cpp - the wave emulator -------------------------===//
#include "argus_hip_emulator.h"

#include "fibers.h"

#include "argus_numerics.h"


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

// The element types an MFMA operand register pair holds: four 16-bit values or eight fp8 ones.
enum class Operand { Bf16, F16, Fp8Fnuz };

// Element j of an operand register pair.
float operandValue(const b16x4 &pair, int j, Operand kind) {
  if (kind == Operand::Fp8Fnuz) {
    uint8_t bytes[8];
    std::memcpy(bytes, &pair, sizeof bytes);
    return argus_num::fp8_e4m3fnuz_to_f32(bytes[j]);
  }
  return kind == Operand::F16 ? f16(pair[j]) : bf16(pair[j]);
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

void bufferStore(char *base, uint32_t bytes, uint32_t offset, const void *in, int size) {
  if (offset >= bytes)
    return;
  if (bytes - offset < uint32_t(size))
    abortWith("a buffer store straddles the end of its buffer");
  std::memcpy(base + offset, in, std::size_t(size));
}

// One wave-wide MFMA on a Block x Block block: lane l's operands are row (A) / column (B)
// l % Block, k = V (l / Block) + 0..V-1 (V = 4 16-bit values, 8 fp8 ones), so one instruction
// covers V·64 / Block values of k; its result element e is at column l % Block and row resultRow(l, e).
template <int Block, class Acc>
Acc mfma(b16x4 a, b16x4 b, Acc c, Operand kind, int (*resultRow)(int l, int e)) {
  const int perLane = kind == Operand::Fp8Fnuz ? 8 : 4;
  Wave &wave = currentWave();
  const int l = workItem() % kWaveSize;
  wave.a[l] = a;
  wave.b[l] = b;
  wave.barrier.wait();
  const int col = l % Block;
  for (int e = 0; e < Block * Block / kWaveSize; ++e) {
    const int row = resultRow(l, e);
    float sum = c[e];
    for (int k = 0; k < perLane * kWaveSize / Block; ++k)
      sum += operandValue(wave.a[row + Block * (k / perLane)], k % perLane, kind) *
             operandValue(wave.b[col + Block * (k / perLane)], k % perLane, kind);
    c[e] = sum;
  }
  wave.barrier.wait();  // before any lane overwrites its operands for the next MFMA
  return c;
}

static int resultRow32(int l, int e) { return 8 * (e / 4) + 4 * (l / 32) + e % 4; }
static int resultRow16(int l, int e) { return 4 * (l / 16) + e; }

static b16x4 pair(b8x8 bytes) {
  b16x4 p;
  std::memcpy(&p, &bytes, sizeof p);
  return p;
}

// The layouts argus_hip_device.h states for v_mfma_f32_32x32x8 and v_mfma_f32_16x16x16 (bf16, f16)
// and for their fp8 forms on gfx942, 32x32x16 and 16x16x32.
f32x16 mfma32x32x8(b16x4 a, b16x4 b, f32x16 c, bool isF16) {
  return mfma<32>(a, b, c, isF16 ? Operand::F16 : Operand::Bf16, resultRow32);
}

f32x4 mfma16x16x16(b16x4 a, b16x4 b, f32x4 c, bool isF16) {
  return mfma<16>(a, b, c, isF16 ? Operand::F16 : Operand::Bf16, resultRow16);
}

f32x16 mfma32x32x16Fp8(b8x8 a, b8x8 b, f32x16 c) { return mfma<32>(pair(a), pair(b), c, Operand::Fp8Fnuz, resultRow32); }

f32x4 mfma16x16x32Fp8(b8x8 a, b8x8 b, f32x4 c) { return mfma<16>(pair(a), pair(b), c, Operand::Fp8Fnuz, resultRow16); }

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
