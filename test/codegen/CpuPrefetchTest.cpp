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

/// The lines a tile_shadow would still fetch.
std::set<uintptr_t> linesOf(const ak::tile_shadow<2> &shadow) {
  std::set<uintptr_t> lines;
  shadow.for_each_line([&](const char *line) { lines.insert(reinterpret_cast<uintptr_t>(line)); });
  return lines;
}

// Decode's pools: 40 pages x 16 tokens x 8 KV heads x 128, bf16.
argus_cpu_tensor decodePool(char *data) {
  argus_cpu_tensor t{};
  t.data = data;
  const int64_t shape[4] = {40, 16, 8, 128}, stride[4] = {16 * 8 * 128, 8 * 128, 128, 1};
  for (int d = 0; d < 4; ++d) t.shape[d] = shape[d], t.stride[d] = stride[d];
  return t;
}

TEST(CpuPrefetch, ShadowHandsAPageToTheProductThatReadsAnother) {
  alignas(64) static char buffer[1];
  const argus_cpu_tensor pool = decodePool(buffer); /* addresses only: nothing is read */
  const int64_t next[4] = {7, 0, 3, 0}, page[4] = {1, 16, 1, 128};
  ak::tile_shadow<2> shadow = ak::prefetch_shadow<ak::bf16, 2>(pool, next, page);
  EXPECT_EQ(linesOf(shadow), expectedLines<4>(pool, next, page, 2)); // held, not fetched yet
  // The product reads page 2 of the same head: 16 rows of 128, 8 x 128 apart, like page 7.
  const char *b = buffer + (2 * 16 * 8 * 128 + 3 * 128) * 2;
  std::ptrdiff_t delta = 0;
  EXPECT_TRUE((shadow.take<16, 128, 2>(b, 8 * 128, delta)));
  EXPECT_EQ(b + delta, buffer + (7 * 16 * 8 * 128 + 3 * 128) * 2);
  EXPECT_TRUE(linesOf(shadow).empty()); // taken once: a second product gets nothing
  EXPECT_FALSE((shadow.take<16, 128, 2>(b, 8 * 128, delta)));
}

TEST(CpuPrefetch, ShadowFetchesAtOnceWhatNoProductCanSpread) {
  alignas(64) static char buffer[1];
  const argus_cpu_tensor pool = decodePool(buffer);
  const int64_t next[4] = {7, 0, 3, 0}, page[4] = {1, 16, 1, 128};
  const char *b = buffer + (2 * 16 * 8 * 128 + 3 * 128) * 2;
  std::ptrdiff_t delta = 0;
  { // b is a dense copy (rows 128 apart), not a window of the pool: the lines go out at once
    ak::tile_shadow<2> shadow = ak::prefetch_shadow<ak::bf16, 2>(pool, next, page);
    EXPECT_FALSE((shadow.take<16, 128, 2>(b, 128, delta)));
    EXPECT_TRUE(linesOf(shadow).empty());
  }
  { // a product of another shape
    ak::tile_shadow<2> shadow = ak::prefetch_shadow<ak::bf16, 2>(pool, next, page);
    EXPECT_FALSE((shadow.take<16, 64, 2>(b, 8 * 128, delta)));
    EXPECT_FALSE((ak::prefetch_shadow<ak::bf16, 2>(pool, next, page).take<8, 128, 2>(b, 8 * 128, delta)));
  }
  { // rows that do not start on a cache line: spread, each row's last line would go unfetched
    const argus_cpu_tensor shifted = decodePool(buffer + 16);
    ak::tile_shadow<2> shadow = ak::prefetch_shadow<ak::bf16, 2>(shifted, next, page);
    EXPECT_EQ(linesOf(shadow), expectedLines<4>(shifted, next, page, 2));
    EXPECT_FALSE((shadow.take<16, 128, 2>(b + 16, 8 * 128, delta)));
  }
  // Tiles that are no window of rows wholly in bounds are fetched by prefetch_shadow itself.
  const int64_t past[4] = {39, 8, 3, 0}, twoHeads[4] = {1, 16, 2, 64}, column[4] = {1, 16, 1, 1};
  EXPECT_TRUE(linesOf(ak::prefetch_shadow<ak::bf16, 2>(pool, past, page)).empty());     // rows past the pool
  EXPECT_TRUE(linesOf(ak::prefetch_shadow<ak::bf16, 2>(pool, next, twoHeads)).empty()); // two runs a row
  EXPECT_EQ(linesOf(ak::prefetch_shadow<ak::bf16, 2>(pool, next, column)).size(), 16u); // one element a row
  // A whole page of every head is one run: one row.
  const int64_t whole[4] = {7, 0, 0, 0}, allHeads[4] = {1, 16, 8, 128};
  ak::tile_shadow<2> page7 = ak::prefetch_shadow<ak::bf16, 2>(pool, whole, allHeads);
  EXPECT_EQ(linesOf(page7), expectedLines<4>(pool, whole, allHeads, 2));
  EXPECT_TRUE((page7.take<1, 16 * 8 * 128, 2>(buffer, 16 * 8 * 128, delta)));
}

} // namespace
