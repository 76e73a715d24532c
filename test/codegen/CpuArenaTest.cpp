//===- CpuArenaTest.cpp - load_ref's operand copies in the thread's arena -===//
//
// ak::load_ref copies an mma operand only when its tile is not a plain
// window of the tensor; the emitter names the copy's buffer by an
// ak::arena_scratch tag, a slot of the calling thread's arena
// (argus_cpu_arena.h), so that the rarely used, tile-sized buffer takes no
// stack. Checked here: a window read in place leaves the arena alone, a
// gathered tile lands in its slot with every element right, slots of one
// thread and the same slot of two threads are distinct buffers, and a slot
// grows for a larger tile.
//
//===----------------------------------------------------------------------===//
#include "argus_cpu_kernel.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace {

namespace ak = argus_cpu;

/// A rows x cols f32 tensor over `data` whose elements lie `inner` apart.
argus_cpu_tensor matrix(std::vector<float> &data, int64_t rows, int64_t cols, int64_t inner) {
  argus_cpu_tensor t{};
  t.data = data.data();
  t.shape[0] = rows, t.shape[1] = cols;
  t.stride[0] = cols * inner, t.stride[1] = inner;
  t.layout = ARGUS_CPU_STRIDED;
  return t;
}

std::vector<float> numbered(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = 0.5f + float(i) * 0.25f;
  return v;
}

TEST(CpuArena, GatheredTilesLandInTheirSlotAndWindowsStayInPlace) {
  constexpr int64_t R = 16, C = 32;
  const ak::arena_scratch<float, R * C, 3> slot{};
  // Unit inner stride: a plain window, read where it lies.
  std::vector<float> dense = numbered(40 * 64);
  const argus_cpu_tensor d = matrix(dense, 40, 64, 1);
  const ak::tile_ref<float> w = ak::load_ref<ak::f32, R, C>(slot, d, {8, 16}, 0.0);
  EXPECT_EQ(w.data, dense.data() + 8 * 64 + 16);
  EXPECT_EQ(w.ld, 64);
  // Every other element: gathered into slot 3 of this thread's arena.
  std::vector<float> strided = numbered(40 * 64 * 2);
  const argus_cpu_tensor s = matrix(strided, 40, 64, 2);
  const ak::tile_ref<float> g = ak::load_ref<ak::f32, R, C>(slot, s, {8, 16}, 0.0);
  EXPECT_EQ(g.data, ak::detail::scratch_pointer(slot));
  ASSERT_EQ(g.ld, C);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c)
      ASSERT_EQ(g.data[r * C + c], strided[size_t((8 + r) * 128 + (16 + c) * 2)]) << r << ", " << c;
  // Past the tensor's last row and column: masked, padded with zero.
  const ak::tile_ref<float> edge = ak::load_ref<ak::f32, R, C>(slot, s, {32, 48}, 0.0);
  EXPECT_EQ(edge.data, g.data) << "the same slot: the same buffer";
  EXPECT_EQ(edge.data[0], strided[size_t(32 * 128 + 48 * 2)]);
  EXPECT_EQ(edge.data[8 * C + 16], 0.0f) << "row 40, column 64: outside";
}

TEST(CpuArena, SlotsAndThreadsHaveBuffersOfTheirOwn) {
  using ak::detail::scratch_pointer;
  float *a = scratch_pointer(ak::arena_scratch<float, 1024, 0>{});
  float *b = scratch_pointer(ak::arena_scratch<float, 1024, 1>{});
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u) << "64-byte aligned, as the stack arrays were";
  EXPECT_EQ(scratch_pointer(ak::arena_scratch<float, 1024, 0>{}), a) << "kept between calls";
  // A larger tile in the same slot: the buffer grows, and all of it is writable.
  float *big = scratch_pointer(ak::arena_scratch<float, 1 << 18, 0>{});
  for (int64_t i = 0; i < (1 << 18); ++i) big[i] = float(i);
  EXPECT_EQ(big[(1 << 18) - 1], float((1 << 18) - 1));
  EXPECT_EQ(scratch_pointer(ak::arena_scratch<float, 1024, 0>{}), big) << "a smaller tile keeps the larger buffer";
  float *other = nullptr;
  std::thread([&] { other = scratch_pointer(ak::arena_scratch<float, 1024, 0>{}); }).join();
  EXPECT_NE(other, nullptr);
  EXPECT_NE(other, big) << "another thread: another buffer";
}

} // namespace
