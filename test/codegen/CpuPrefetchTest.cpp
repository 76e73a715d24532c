//===- CpuPrefetchTest.cpp - which lines ak::prefetch fetches -------------===//
//
// A prefetch never faults and never changes a result, so a walker that
// fetched the wrong lines would pass every other test. for_each_tile_line,
// the walk ak::prefetch runs, must visit exactly the cache lines of the tile's
// in-bounds elements: compared here with every element's line, on tiles of
// decode's page layout, clipped tiles, merged dense runs, strided innermost
// dimensions and broadcast ones.
//
//===----------------------------------------------------------------------===//
#include "argus_cpu_kernel.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace {

namespace ak = argus_cpu;

template <int RANK> struct Case {
  std::vector<int64_t> shape, stride;
  int64_t off[RANK], sizes[RANK];
};

/// The lines of every in-bounds element, by brute force.
template <int RANK>
std::set<uintptr_t> expectedLines(const argus_cpu_tensor &t, const int64_t (&off)[RANK], const int64_t (&sizes)[RANK],
                                  int elementBytes) {
  std::set<uintptr_t> lines;
  int64_t idx[RANK] = {0}, n[RANK];
  for (int d = 0; d < RANK; ++d) n[d] = sizes[d] < 0 ? t.shape[d] : sizes[d];
  for (;;) {
    bool in = true;
    int64_t at = 0;
    for (int d = 0; d < RANK; ++d) {
      const int64_t c = (sizes[d] < 0 ? 0 : off[d]) + idx[d];
      in = in && c >= 0 && c < t.shape[d];
      at += c * t.stride[d];
    }
    if (in) {
      const uintptr_t first = reinterpret_cast<uintptr_t>(static_cast<const char *>(t.data) + at * elementBytes);
      lines.insert(first & ~uintptr_t(63));
      lines.insert((first + elementBytes - 1) & ~uintptr_t(63));
    }
    int d = RANK - 1;
    for (; d >= 0 && ++idx[d] == n[d]; --d) idx[d] = 0;
    if (d < 0) return lines;
  }
}

template <int RANK> void check(const Case<RANK> &c, int elementBytes, const char *what) {
  argus_cpu_tensor t{};
  alignas(64) static char buffer[1];
  t.data = buffer; /* addresses only: nothing is read */
  for (int d = 0; d < RANK; ++d) t.shape[d] = c.shape[size_t(d)], t.stride[d] = c.stride[size_t(d)];
  std::set<uintptr_t> visited;
  std::vector<uintptr_t> order;
  auto visit = [&](const char *line) {
    visited.insert(reinterpret_cast<uintptr_t>(line));
    order.push_back(reinterpret_cast<uintptr_t>(line));
  };
  if (elementBytes == 2)
    ak::for_each_tile_line<2>(t, c.off, c.sizes, visit);
  else
    ak::for_each_tile_line<4>(t, c.off, c.sizes, visit);
  EXPECT_EQ(visited, expectedLines<RANK>(t, c.off, c.sizes, elementBytes)) << what;
  for (uintptr_t line : order) EXPECT_EQ(line % 64, 0u) << what;
}

TEST(CpuPrefetch, VisitsExactlyTheTilesLines) {
  // Decode's page of one KV head: P x 16 x 8 x 128 bf16, one page, 16 rows of 256 bytes 2 KiB apart.
  check<4>({{40, 16, 8, 128}, {16 * 8 * 128, 8 * 128, 128, 1}, {7, 0, 3, 0}, {1, 16, 1, 128}}, 2, "decode page");
  // The same with 64-wide heads in f32, and a whole page of all heads (one dense run).
  check<4>({{40, 16, 8, 64}, {16 * 8 * 64, 8 * 64, 64, 1}, {2, 0, 5, 0}, {1, 16, 1, 64}}, 4, "f32 page");
  check<4>({{40, 16, 8, 64}, {16 * 8 * 64, 8 * 64, 64, 1}, {2, 0, 0, 0}, {1, 16, 8, 64}}, 2, "whole page");
  // Clipped at both ends, a 2-D tile of an odd pitch (runs not on line boundaries).
  check<2>({{50, 37}, {41, 1}, {-3, 30}, {9, 16}}, 4, "clipped, odd pitch");
  check<2>({{50, 37}, {41, 1}, {45, -1}, {9, -1}}, 2, "last rows, whole width");
  // A strided innermost dimension (element by element) and a broadcast one.
  check<2>({{20, 30}, {1, 20}, {3, 4}, {5, 6}}, 4, "column-major");
  check<3>({{4, 6, 33}, {0, 40, 1}, {1, 2, 0}, {3, 3, 33}}, 2, "broadcast outer dimension");
  // Nothing in bounds: no line.
  check<2>({{10, 10}, {10, 1}, {10, 0}, {4, 4}}, 4, "past the end");
}

} // namespace
