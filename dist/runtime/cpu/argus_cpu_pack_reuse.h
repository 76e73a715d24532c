/*===- argus_cpu_pack_reuse.h - packed operand panels kept for a launch ---===*
 *
 * Part of section 6 of argus_cpu_kernel.h, included by argus_cpu_mma.h (not
 * a standalone header). The packed register blocks pack b into VNNI panels
 * at every product. Where the same tile of b feeds the products of many
 * program instances in a row (prefill attention: each K and V tile of a KV
 * head, for every query block of its GROUP heads), the emitter tags the
 * product with pack_reuse, and the thread keeps each panel it packs for the
 * rest of the launch: the next instance reads it instead of packing again
 * (bf16 prefill, two threads, S = 1024-4096: 1.05-1.09x).
 *
 * The contract the emitter keeps: b is a plain window of a kernel argument
 * (read in place, not a copy) that no instance of the kernel stores to, so
 * its bytes do not change during the launch. Panels are found again by
 * b's address, layout and column, and only within the launch that packed
 * them: each launch takes a new number (next_pack_launch) and every thread
 * that runs its instances enters it (enter_pack_launch).
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_PACK_REUSE_H
#define ARGUS_CPU_PACK_REUSE_H

#include <atomic>

namespace argus_cpu {

/// The tag of a product whose b panels the thread keeps for the launch.
struct pack_reuse {};

namespace detail {

/// The launch whose instances this thread runs (0: none entered).
inline uint64_t &pack_launch() {
  static thread_local uint64_t launch = 0;
  return launch;
}

/// A thread's panels: a direct-mapped table of kSlots panels of up to
/// kSlotBytes, found by their b address, layout and column and by launch.
/// 8 MiB, allocated at the first reusing product: twice the panels of one KV
/// head's keys and values at 8192 tokens (d = 128). Without the memory,
/// products pack each call as before.
class pack_cache {
public:
  static constexpr int kSlotBits = 10, kSlots = 1 << kSlotBits;
  static constexpr size_t kSlotBytes = 8192;

  pack_cache() = default;
  pack_cache(const pack_cache &) = delete;
  pack_cache &operator=(const pack_cache &) = delete;
  ~pack_cache() { std::free(data_); }

  /// The slot for (key, tag) in `launch`, and whether it holds that panel.
  /// nullptr when there is no memory for the table.
  uint32_t *find(const void *key, int64_t tag, uint64_t launch, bool &hit) {
    if (!data_ && !failed_) {
      data_ = static_cast<uint32_t *>(std::aligned_alloc(4096, kSlots * kSlotBytes));
      failed_ = !data_;
    }
    if (!data_) return nullptr;
    const uint64_t h = (uint64_t(reinterpret_cast<uintptr_t>(key)) >> 6) * 0x9E3779B97F4A7C15ull +
                       uint64_t(tag) * 0xC2B2AE3D27D4EB4Full;
    const int i = int(h >> (64 - kSlotBits));
    entry &e = entries_[i];
    hit = e.key == key && e.tag == tag && e.launch == launch;
    e.key = key, e.tag = tag, e.launch = launch; /* the caller fills it on a miss */
    return data_ + size_t(i) * (kSlotBytes / sizeof(uint32_t));
  }

private:
  struct entry {
    const void *key = nullptr;
    int64_t tag = 0;
    uint64_t launch = 0;
  };
  entry entries_[kSlots];
  uint32_t *data_ = nullptr;
  bool failed_ = false;
};

/// Whether a VNNI panel PW wide of K k fits a slot (keys of d = 192,
/// latent attention's, do not: they pack each call).
template <int64_t PW, int64_t K> constexpr bool fits_slot() {
  return (K + 1) / 2 * PW * int64_t(sizeof(uint32_t)) <= int64_t(pack_cache::kSlotBytes);
}

inline pack_cache &thread_pack_cache() {
  static thread_local pack_cache cache;
  return cache;
}

#if defined(__AVX512F__)
/// Where the bf16 packed blocks get b's VNNI panels: packed into the
/// caller's buffer at every call (the default)...
struct packs_each_call {
  template <BLayout L, int64_t PW, int64_t K>
  const uint32_t *panel(uint32_t *buffer, tile_ref<uint16_t> b, int64_t n0, int64_t nb) const {
    pack_vnni_panel<L, PW, K>(buffer, b, n0, nb);
    return buffer;
  }
};

/// ... or kept in the thread's pack_cache for the launch (pack_reuse).
struct panels_kept {
  template <BLayout L, int64_t PW, int64_t K>
  const uint32_t *panel(uint32_t *buffer, tile_ref<uint16_t> b, int64_t n0, int64_t nb) const {
    if constexpr (!fits_slot<PW, K>()) return packs_each_call().panel<L, PW, K>(buffer, b, n0, nb);
    bool hit = false;
    const uint64_t launch = pack_launch();
    /* what else tells this panel from another of the same address: its product's k, width, column, layout */
    const int64_t tag = ((((K << 8) | PW) << 24 | n0) << 1) | int64_t(L == BLayout::KN);
    uint32_t *slot = launch ? thread_pack_cache().find(b.data, tag, launch, hit) : nullptr;
    if (!slot) return packs_each_call().panel<L, PW, K>(buffer, b, n0, nb); /* no launch entered, or no memory */
    if (!hit) pack_vnni_panel<L, PW, K>(slot, b, n0, nb);
    return slot;
  }
};
#endif // __AVX512F__

/// Whether b may be kept: a plain window read in place (load_ref's copies
/// carry their scratch, and tiles on the stack are pointers, not windows).
template <class S> inline bool keepable(const tile_ref<S> &b) {
  return b.rows < 0 && b.cols < 0 && !b.panels && b.scratch == nullptr;
}

} // namespace detail

/// A new launch's number, taken once by its entry point.
inline uint64_t next_pack_launch() {
  static std::atomic<uint64_t> launches{0};
  return launches.fetch_add(1, std::memory_order_relaxed) + 1;
}

/// The calling thread runs instances of `launch` from now on.
inline void enter_pack_launch(uint64_t launch) { detail::pack_launch() = launch; }

} // namespace argus_cpu

#endif // ARGUS_CPU_PACK_REUSE_H
