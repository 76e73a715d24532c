//===- argus_hopper_emulator.cpp - mbarriers, TMA and wgmma on the host ----===//
//
// The Hopper half of the cluster emulator (argus_cuda_emulator.h states the
// model). Shared-memory addresses are offsets from the CTA's 1024-byte
// aligned base, so the 128-byte swizzle, which the hardware applies to
// address bits 4-6 from bits 7-9, is computed from them exactly as it is on
// the device, for TMA's writes and wgmma's reads alike.
//
//===----------------------------------------------------------------------===//
#include "argus_numerics.h"
#include "cluster_state.h"

#include <cstring>
#include <utility>

namespace argus::cuda::emu {

using namespace state;

namespace {

// Hardware's 128-byte swizzle: the 16-byte chunk (bits 4-6) XOR the row of the 1024-byte atom (bits 7-9).
uint32_t swizzled(uint32_t address, bool swizzle128) {
  return swizzle128 ? address ^ (((address >> 7) & 7u) << 4) : address;
}

const TensorMap2d &decode(const TensorMap *map) {
  const auto *m = reinterpret_cast<const TensorMap2d *>(map);
  if (m->magic != kTensorMapMagic)
    abortWith("a TMA copy through a tensor map encodeTensorMap2d did not write");
  return *m;
}

uint32_t boxBytes(const TensorMap2d &m) { return m.boxInner * m.boxOuter * m.elementBytes; }

char *sharedByte(uint32_t address) {
  if (address >= uint32_t(cluster().launch.sharedBytes))
    abortWith("a shared-memory access past the CTA's dynamic shared memory");
  return cta().base() + address;
}

// Moves one box; out-of-range elements read as zeros (load) or are not written (store).
void perform(const TensorMapCopy &c, bool load) {
  const TensorMap2d &m = c.map;
  for (uint32_t row = 0; row < m.boxOuter; ++row)
    for (uint32_t col = 0; col < m.boxInner; ++col) {
      const uint64_t x = uint64_t(int64_t(c.inner) + col), y = uint64_t(int64_t(c.outer) + row);
      const bool inside = c.inner >= 0 && c.outer >= 0 && x < m.inner && y < m.outer;
      char *shared = sharedByte(swizzled(c.shared + (row * m.boxInner + col) * m.elementBytes, m.swizzle128));
      char *global = const_cast<char *>(m.base) + y * m.pitchBytes + x * m.elementBytes;
      if (load) {
        if (inside)
          std::memcpy(shared, global, m.elementBytes);
        else
          std::memset(shared, 0, m.elementBytes);
      } else if (inside) {
        std::memcpy(global, shared, m.elementBytes);
      }
    }
}

MBarrier &mbarrier(uint64_t *barrier) {
  const auto found = cta().mbarriers.find(sharedAddress(barrier));
  if (found == cta().mbarriers.end())
    abortWith("an mbarrier used before mbarrier.init");
  return found->second;
}

// Performs the copies queued on `m` (those issued by thread `issuer`; -1: all); whether there were any.
bool land(MBarrier &m, int issuer) {
  bool landed = false;
  for (auto copy = m.copies.begin(); copy != m.copies.end();)
    if (issuer < 0 || (*copy)->issuer == issuer) {
      perform(**copy, /*load=*/true);
      m.bytes -= boxBytes((*copy)->map);
      copy = m.copies.erase(copy);
      landed = true;
    } else {
      ++copy;
    }
  if (landed)
    argus::emu::noteProgress();
  return landed;
}

// The phase completes once every arrival and every expected byte is in.
void completeIfDue(MBarrier &m) {
  if (m.bytes < 0)
    abortWith("more bytes landed on an mbarrier than its expect_tx announced");
  if (m.pending == 0 && m.bytes == 0) {
    ++m.phase;
    m.pending = m.count;
  }
}

// The bits of element (row, k) of a K-major bf16 operand whose descriptor is `desc` (128-byte swizzle only).
uint16_t operandBits(uint64_t desc, int row, int k) {
  if (desc >> 62 != 1)
    abortWith("the emulator models wgmma operands in 128-byte swizzle only");
  const uint32_t start = uint32_t(desc & 0x3FFF) << 4, atomStride = uint32_t((desc >> 32) & 0x3FFF) << 4;
  const uint32_t address = start + uint32_t(row / 8) * atomStride + uint32_t(row % 8) * 128 + uint32_t(k) * 2;
  uint16_t bits;
  std::memcpy(&bits, sharedByte(swizzled(address, true)), 2);
  return bits;
}

float elementValue(uint32_t bits, bool f16) {
  return f16 ? argus_num::f16_to_f32(uint16_t(bits)) : argus_num::bf16_to_f32(uint16_t(bits));
}

float operand(uint64_t desc, int row, int k, bool f16) { return elementValue(operandBits(desc, row, k), f16); }

// Every shared-memory element a wgmma reads: what must not change between its issue and its retirement.
std::vector<uint16_t> sharedOperands(const WgmmaOp &op) {
  std::vector<uint16_t> bits;
  for (int row = 0; row < (op.registerA ? 0 : 64); ++row)
    for (int k = 0; k < 16; ++k)
      bits.push_back(operandBits(op.descA, row, k));
  for (int n = 0; n < op.n; ++n)
    for (int k = 0; k < 16; ++k)
      bits.push_back(operandBits(op.descB, n, k));
  return bits;
}

// Element (m, k) of A from the threads' registers: warp m / 16 holds rows 16 (m / 16) .. + 15 as
// mma.m16n8k16 holds A (lane 4 (m % 8) + (k % 8) / 2, register (m % 16) / 8 + 2 (k / 8), half k % 2).
float registerOperand(const WgmmaOp &op, int m, int k) {
  const int thread = 32 * (m / 16) + 4 * (m % 8) + (k % 8) / 2;
  const uint32_t word = op.a[thread][(m % 16) / 8 + 2 * (k / 8)];
  return elementValue(k % 2 ? word >> 16 : word & 0xffffu, op.f16);
}

// D (64 x n) = A · Bᵀ (+ D): thread t's accumulator 4j + 2h + e is row 16 (t / 32) + (t % 32) / 4 + 8h,
// column 8j + 2 (t % 4) + e (PTX ISA, "wgmma .m64nNk16 register fragment layout for accumulator D").
void execute(const WgmmaOp &op) {
  if (sharedOperands(op) != op.shared)
    abortWith("shared memory a wgmma reads changed between its issue and the wait_group that retired it "
              "(a stage released or rewritten too early, or written after a thread issued the wgmma)");
  for (int t = 0; op.registerA && t < kWarpgroupSize; ++t)
    if (!std::equal(op.a[t], op.a[t] + 4, op.aSource[t]))
      abortWith("registers a wgmma reads as A were written before the wait_group that retired it");
  float a[64][16];
  for (int m = 0; m < 64; ++m)
    for (int k = 0; k < 16; ++k)
      a[m][k] = op.registerA ? registerOperand(op, m, k) : operand(op.descA, m, k, op.f16);
  std::vector<float> b(size_t(op.n) * 16);
  for (int n = 0; n < op.n; ++n)
    for (int k = 0; k < 16; ++k)
      b[size_t(n) * 16 + size_t(k)] = operand(op.descB, n, k, op.f16);
  for (int t = 0; t < kWarpgroupSize; ++t)
    for (int i = 0; i < op.n / 2; ++i) {
      const int j = i / 4, h = (i / 2) % 2, e = i % 2;
      const int row = 16 * (t / 32) + (t % 32) / 4 + 8 * h, col = 8 * j + 2 * (t % 4) + e;
      float sum = 0.0f;
      for (int k = 0; k < 16; ++k)
        sum += a[row][k] * b[size_t(col) * 16 + size_t(k)];
      op.d[t][i] = op.accumulate ? op.d[t][i] + sum : sum;
    }
}

Warpgroup &warpgroup() { return cta().warpgroups[size_t(thread() / kWarpgroupSize)]; }
bool leadsWarpgroup() { return thread() % kWarpgroupSize == 0; }

} // namespace

uint32_t sharedAddress(const void *p) {
  const auto offset = static_cast<const char *>(p) - cta().base();
  if (offset < 0 || offset >= cluster().launch.sharedBytes)
    abortWith("a shared-memory address outside the CTA's dynamic shared memory");
  return uint32_t(offset);
}

void barrierInit(uint64_t *barrier, uint32_t count) {
  MBarrier &m = cta().mbarriers[sharedAddress(barrier)];
  m = MBarrier{};
  m.count = m.pending = int(count);
}

void barrierArrive(uint64_t *barrier) {
  MBarrier &m = mbarrier(barrier);
  if (--m.pending < 0)
    abortWith("more arrivals on an mbarrier than its count");
  argus::emu::noteProgress();
  completeIfDue(m);
}

void barrierArriveExpectBytes(uint64_t *barrier, uint32_t bytes) {
  mbarrier(barrier).bytes += bytes;
  barrierArrive(barrier);
}

void barrierWait(uint64_t *barrier, uint32_t parity) {
  // The copies this thread issued land while it waits, on whichever barrier (unless the launch
  // lands them at their own barrier only).
  if (!cluster().launch.landAtOwnBarrierOnly)
    for (auto &[address, m] : cta().mbarriers)
      if (land(m, thread()))
        completeIfDue(m);
  for (;;) {
    MBarrier &m = mbarrier(barrier);
    if ((m.phase & 1u) != parity)
      return;  // the phase of that parity has completed
    if (land(m, -1)) {
      completeIfDue(m);
      continue;
    }
    argus::emu::yieldFiber();
  }
}

namespace {

Barrier &named(uint32_t id, uint32_t threads) {
  if (id == 0 || id > 15 || threads % kWarpSize != 0)
    abortWith("bar.sync / bar.arrive take ids 1-15 (0 is __syncthreads) and a multiple of 32 threads");
  std::unique_ptr<Barrier> &b = cta().named[id];
  if (!b)
    b = std::make_unique<Barrier>(int(threads));
  if (b->expected() != int(threads))
    abortWith("one named barrier used with different thread counts");
  return *b;
}

} // namespace

void namedBarrier(uint32_t id, uint32_t threads) { named(id, threads).wait(); }

void namedBarrierArrive(uint32_t id, uint32_t threads) { named(id, threads).arrive(); }

void encodeTensorMap2d(TensorMap *map, const void *base, int elementBytes, uint64_t inner, uint64_t outer,
                       uint64_t pitchBytes, uint32_t boxInner, uint32_t boxOuter, bool swizzle128) {
  if (swizzle128 && boxInner * uint32_t(elementBytes) != 128)
    abortWith("encodeTensorMap2d: the emulator's 128-byte swizzle takes boxes of 128-byte rows");
  const TensorMap2d m{kTensorMapMagic, static_cast<const char *>(base), inner, outer, pitchBytes,
                      uint32_t(elementBytes), boxInner, boxOuter, swizzle128};
  *map = TensorMap{};
  std::memcpy(map, &m, sizeof m);
}

void tmaLoad2d(void *destination, const TensorMap *map, uint64_t *barrier, int32_t inner, int32_t outer) {
  const TensorMap2d &m = decode(map);
  const uint32_t shared = sharedAddress(destination);
  if (m.swizzle128 && shared % 1024 != 0)
    abortWith("a 128-byte-swizzled TMA box must start on a 1024-byte boundary");
  mbarrier(barrier).copies.push_back(
      std::make_unique<TensorMapCopy>(TensorMapCopy{m, shared, inner, outer, thread()}));
}

void tmaStore2d(const TensorMap *map, const void *source, int32_t inner, int32_t outer) {
  cta().bulk[size_t(thread())].open.push_back(
      std::make_unique<TensorMapCopy>(TensorMapCopy{decode(map), sharedAddress(source), inner, outer, thread()}));
}

void bulkCommit() {
  BulkGroups &b = cta().bulk[size_t(thread())];
  b.committed.push_back(std::move(b.open));
  b.open.clear();
}

void bulkWait(int pending) {
  BulkGroups &b = cta().bulk[size_t(thread())];
  while (int(b.committed.size()) > pending) {
    for (const auto &copy : b.committed.front())
      perform(*copy, /*load=*/false);
    b.committed.pop_front();
  }
}

void cpAsync(void *dst, const void *src, int bytes, int srcBytes) {
  const uint32_t shared = sharedAddress(dst);
  if (bytes != 4 && bytes != 8 && bytes != 16)
    abortWith("cp.async copies 4, 8 or 16 bytes");
  if (shared % uint32_t(bytes) != 0 || reinterpret_cast<uintptr_t>(src) % uintptr_t(bytes) != 0)
    abortWith("a cp.async needs both addresses aligned to its size");
  if (srcBytes < 0 || srcBytes > bytes)
    abortWith("cp.async reads 0 to `bytes` bytes of its source");
  sharedByte(shared + uint32_t(bytes) - 1); // inside the CTA's shared memory
  cta().asyncCopies[size_t(thread())].open.push_back({sharedByte(shared), static_cast<const char *>(src), bytes,
                                                      srcBytes});
}

void cpAsyncCommit() {
  AsyncCopyGroups &g = cta().asyncCopies[size_t(thread())];
  g.committed.push_back(std::move(g.open));
  g.open.clear();
}

void cpAsyncWait(int pending) {
  AsyncCopyGroups &g = cta().asyncCopies[size_t(thread())];
  while (int(g.committed.size()) > pending) {
    for (const AsyncCopy &c : g.committed.front()) {
      std::memcpy(c.shared, c.global, size_t(c.srcBytes));
      std::memset(c.shared + c.srcBytes, 0, size_t(c.bytes - c.srcBytes));
    }
    g.committed.pop_front();
  }
}

namespace {

// Issues one wgmma of the calling warpgroup (.sync.aligned: every thread, the same operands).
void issue(float *d, int n, uint64_t descA, uint64_t descB, bool accumulate, const uint32_t *a, bool f16) {
  if (n % 8 != 0 || n < 8 || n > 256)
    abortWith("wgmma m64nNk16 takes N = 8, 16, ..., 256");
  Warpgroup &wg = warpgroup();
  const int t = thread() % kWarpgroupSize;
  wg.d[t] = d;
  wg.aSource[t] = a;
  if (a)
    std::copy(a, a + 4, wg.a[t]);
  if (wg.arrived++ == 0) {  // the operands must be in place once any thread issues: take them now
    WgmmaOp probe{descA, descB, n, accumulate, a != nullptr, f16, {}, {}, {}, {}};
    wg.firstShared = sharedOperands(probe);
  }
  wg.barrier.wait();
  if (leadsWarpgroup()) {
    wg.open.push_back(WgmmaOp{descA, descB, n, accumulate, a != nullptr, f16, {}, {}, {}, {}});
    std::copy(std::begin(wg.d), std::end(wg.d), wg.open.back().d);
    std::copy(std::begin(wg.aSource), std::end(wg.aSource), wg.open.back().aSource);
    if (a)
      std::copy(&wg.a[0][0], &wg.a[0][0] + kWarpgroupSize * 4, &wg.open.back().a[0][0]);
    wg.open.back().shared = std::move(wg.firstShared);
    wg.arrived = 0;
  }
  wg.barrier.wait();
  const WgmmaOp &issued = wg.open.back();
  if (issued.descA != descA || issued.descB != descB || issued.n != n || issued.accumulate != accumulate ||
      issued.registerA != (a != nullptr) || issued.f16 != f16)
    abortWith("the threads of a warpgroup issued different wgmmas (.sync.aligned: they must agree)");
  wg.barrier.wait();  // every thread has checked before the next wgmma is appended
}

} // namespace

void wgmmaBf16(float *d, int n, uint64_t descA, uint64_t descB, bool accumulate) {
  issue(d, n, descA, descB, accumulate, nullptr, false);
}

void wgmmaBf16Rs(float *d, int n, const uint32_t (&a)[4], uint64_t descB, bool accumulate) {
  issue(d, n, 0, descB, accumulate, a, false);
}

void wgmmaF16(float *d, int n, uint64_t descA, uint64_t descB, bool accumulate) {
  issue(d, n, descA, descB, accumulate, nullptr, true);
}

void wgmmaF16Rs(float *d, int n, const uint32_t (&a)[4], uint64_t descB, bool accumulate) {
  issue(d, n, 0, descB, accumulate, a, true);
}

void wgmmaCommit() {
  Warpgroup &wg = warpgroup();
  wg.barrier.wait();
  if (leadsWarpgroup()) {
    wg.groups.push_back(std::move(wg.open));
    wg.open.clear();
  }
  wg.barrier.wait();
}

void wgmmaWait(int pending) {
  Warpgroup &wg = warpgroup();
  wg.barrier.wait();
  if (leadsWarpgroup())
    while (int(wg.groups.size()) > pending) {
      for (const WgmmaOp &op : wg.groups.front())
        execute(op);
      wg.groups.pop_front();
    }
  wg.barrier.wait();
}

} // namespace argus::cuda::emu
