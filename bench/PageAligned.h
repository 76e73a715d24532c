//===- PageAligned.h - benchmark operands on page boundaries -----------------===//
//
// Serving engines hand kernels buffers that start on wide boundaries (torch's
// CPU allocator: 64 bytes and up; KV caches and weights are whole
// allocations). glibc's malloc places large blocks 16 bytes past a page, so a
// std::vector operand would split every 64-byte vector load of a row across
// two cache lines and give each row of a decode page one line more to fetch:
// a case no engine presents, measured by accident. Benchmark operands that
// stand for such buffers use PageAlignedVector.
//
// ARGUS_BENCH_HUGE_PAGES=1 puts them on transparent huge pages instead (2 MiB
// aligned, madvise(MADV_HUGEPAGE)), as an engine that asks for them gets
// (PyTorch: THP_MEM_ALLOC_ENABLE=1): decode's pages, scattered over a pool of
// 4 KiB pages, cost a TLB walk for every 2 KiB row pitch they cross.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BENCH_PAGE_ALIGNED_H
#define ARGUS_BENCH_PAGE_ALIGNED_H

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace argus::bench {

/// Whether ARGUS_BENCH_HUGE_PAGES=1 asks for transparent huge pages.
inline bool benchHugePages() {
  static const bool huge = [] {
    const char *env = std::getenv("ARGUS_BENCH_HUGE_PAGES");
    return env && std::strcmp(env, "1") == 0;
  }();
  return huge;
}

template <class T> struct PageAlignedAllocator {
  using value_type = T;
  PageAlignedAllocator() = default;
  template <class U> PageAlignedAllocator(const PageAlignedAllocator<U> &) {}
  T *allocate(size_t n) {
    const size_t alignment = benchHugePages() ? size_t(2) << 20 : 4096;
    const size_t bytes = (n * sizeof(T) + alignment - 1) / alignment * alignment;
    void *p = std::aligned_alloc(alignment, bytes);
    if (!p) throw std::bad_alloc();
    if (benchHugePages()) madvise(p, bytes, MADV_HUGEPAGE); /* a hint: 4 KiB pages where the kernel has none */
    return static_cast<T *>(p);
  }
  void deallocate(T *p, size_t) { std::free(p); }
  template <class U> bool operator==(const PageAlignedAllocator<U> &) const { return true; }
  template <class U> bool operator!=(const PageAlignedAllocator<U> &) const { return false; }
};

template <class T> using PageAlignedVector = std::vector<T, PageAlignedAllocator<T>>;

/// Copies of an operand of `bytes` that together hold twice the last-level
/// cache (64 MiB assumed when the system does not say). Benchmarks of
/// memory-bound work (decode GEMMs, paged decode) rotate through them, so
/// each call reads from memory, as a serving engine's layer does (the other
/// layers evict it between tokens), not from what the previous call cached.
inline int64_t copiesBeyondCache(double bytes) {
  const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const double cacheBytes = llc > 0 ? double(llc) : double(64 << 20);
  const double copies = std::ceil(2.0 * cacheBytes / bytes);
  return copies < 1 ? 1 : int64_t(copies);
}

} // namespace argus::bench

#endif // ARGUS_BENCH_PAGE_ALIGNED_H
