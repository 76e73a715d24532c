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
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BENCH_PAGE_ALIGNED_H
#define ARGUS_BENCH_PAGE_ALIGNED_H

#include <cstdlib>
#include <new>
#include <vector>

namespace argus::bench {

template <class T> struct PageAlignedAllocator {
  using value_type = T;
  static constexpr size_t kAlignment = 4096;
  PageAlignedAllocator() = default;
  template <class U> PageAlignedAllocator(const PageAlignedAllocator<U> &) {}
  T *allocate(size_t n) {
    const size_t bytes = (n * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
    if (void *p = std::aligned_alloc(kAlignment, bytes)) return static_cast<T *>(p);
    throw std::bad_alloc();
  }
  void deallocate(T *p, size_t) { std::free(p); }
  template <class U> bool operator==(const PageAlignedAllocator<U> &) const { return true; }
  template <class U> bool operator!=(const PageAlignedAllocator<U> &) const { return false; }
};

template <class T> using PageAlignedVector = std::vector<T, PageAlignedAllocator<T>>;

} // namespace argus::bench

#endif // ARGUS_BENCH_PAGE_ALIGNED_H
