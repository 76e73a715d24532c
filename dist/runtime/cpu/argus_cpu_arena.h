/*===- argus_cpu_arena.h - operand copies off the stack -----------------===*
 *
 * load_ref reads an mma operand in place and copies it only when the tile is
 * not a plain window of its tensor (an odd row stride, a gathered partial
 * k-step, the last rows of M). The copy's buffer is as large as the tile
 * (a 256 x 512 bf16 tile: 256 KiB) yet almost never written, so it should not
 * take a program instance's stack, which the backend bounds (engine threads
 * may have small stacks). The emitter names it by an `arena_scratch` tag
 * instead: the buffer is the calling thread's arena slot SLOT, allocated the
 * first time a copy needs it and kept, grown as needed, until the thread
 * exits. Slots are per thread and an instance runs on one thread to its end,
 * so distinct tags of one instance (distinct SLOTs) never share a buffer.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_ARENA_H
#define ARGUS_CPU_ARENA_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace argus_cpu {

/// Arena slots per thread: the emitter gives each operand copy of an
/// instance its own, and keeps copies past the last on the stack.
constexpr int kArenaSlots = 8;

/// The scratch of a load_ref, ELEMS elements of S, in arena slot SLOT.
template <class S, int64_t ELEMS, int SLOT> struct arena_scratch {
  static_assert(SLOT >= 0 && SLOT < kArenaSlots, "arena_scratch: no such arena slot");
};

namespace detail {

struct thread_arena {
  void *data[kArenaSlots] = {};
  size_t bytes[kArenaSlots] = {};
  thread_arena() = default;
  thread_arena(const thread_arena &) = delete;
  thread_arena &operator=(const thread_arena &) = delete;
  ~thread_arena() {
    for (void *p : data)
      std::free(p);
  }
};

/// The calling thread's buffer of `bytes` bytes in `slot`, 64-byte aligned.
/// Out of memory there is no way on: the tile was not copied and the
/// product cannot run, so the process stops with a message (as a stack too
/// small for the copy would, without one).
__attribute__((noinline)) inline void *arena_buffer(int slot, size_t bytes) {
  static thread_local thread_arena arena;
  if (arena.bytes[slot] < bytes) {
    std::free(arena.data[slot]);
    arena.data[slot] = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    arena.bytes[slot] = arena.data[slot] ? bytes : 0;
    if (!arena.data[slot]) {
      std::fprintf(stderr, "argus: out of memory for a %zu-byte operand copy\n", bytes);
      std::abort();
    }
  }
  return arena.data[slot];
}

template <class S> inline S *scratch_pointer(S *scratch) { return scratch; }
template <class S, int64_t ELEMS, int SLOT> inline S *scratch_pointer(arena_scratch<S, ELEMS, SLOT>) {
  return static_cast<S *>(arena_buffer(SLOT, size_t(ELEMS) * sizeof(S)));
}

} // namespace detail
} // namespace argus_cpu

#endif // ARGUS_CPU_ARENA_H
