/*===- argus_cpu_pack_reuse.h - packed operand panels kept for a launch ---===*
 *
 * Part of section 6 of argus_cpu_kernel.h, included by argus_cpu_mma.h (not
 * a standalone header). The packed register blocks pack b into panels (bf16
 * in VNNI pairs) at every product. Where the same tile of b feeds the products of many
 * program instances in a row (prefill attention: each K and V tile of a KV
 * head, for every query block of its GROUP heads), the emitter tags the
 * product with pack_reuse, and the thread keeps each panel it packs for the
 * rest of the launch: the next instance reads it instead of packing again
 * (bf16 prefill, two threads, S = 1024-4096: 1.05-1.09x; f32 1.06-1.11x).
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
#include <new>

namespace argus_cpu {

/// The tag of a product whose b panels the thread keeps for the launch.
struct pack_reuse {};

namespace detail {

/// The launch whose instances this thread runs (0: none entered).
inline uint64_t &pack_launch() {
  static thread_local uint64_t launch = 0;
  return launch;
}

/// A thread's panels for its launch: an arena that hands out each panel's
/// bytes in the order the products first ask for them, and an index that
/// finds them again by b's address, layout and column. Nothing moves or is
/// overwritten while the launch lasts, so a product may hold all its panels
/// at once (f32), and a KV head's keys and values, walked again by every
/// query block, all hit while they fit (a hashed table, one panel a slot,
/// lost up to half of them to collisions between the tiles' arithmetic runs
/// of addresses: 0.90x at bf16 8192 tokens, 76% misses f32 at 4096 in a
/// model of the walk).
///
/// Once full it keeps what it holds (a walk longer than the arena still
/// hits its first 8 MiB each time round) until more panels miss in a row
/// than it holds: the walk has moved on (the next KV head), and at
/// the next product (never during one: its panels stay put) it starts over.
/// 8 MiB, allocated at the first reusing product: one KV head's keys and
/// values at 16384 tokens bf16, 8192 f32 (d = 128). Without the memory,
/// products pack each call as before.
class pack_cache {
public:
  static constexpr size_t kArenaBytes = size_t(8) << 20;
  static constexpr int kIndexBits = 12, kIndexSize = 1 << kIndexBits;
  static constexpr int kMaxPanels = kIndexSize / 2; /* the index at most half full: short probes */
  static constexpr size_t kMaxPanelBytes = kArenaBytes / 64;

  pack_cache() = default;
  pack_cache(const pack_cache &) = delete;
  pack_cache &operator=(const pack_cache &) = delete;
  ~pack_cache() { std::free(data_); }

  /// A product of `launch` begins: a new launch, or a walk that moved on,
  /// starts the arena over.
  void begin_product(uint64_t launch) {
    if (launch != launch_ || restart_) restart(launch);
  }

  /// The `bytes` of column `column` of the tile (key, tag), and whether
  /// they hold that panel already (else the caller fills them). nullptr
  /// when it is not kept: no memory, or the arena is full.
  void *find(const void *key, int64_t tag, int64_t column, size_t bytes, bool &hit) {
    hit = false;
    if (!data_ && !failed_) allocate();
    if (!data_ || bytes > kMaxPanelBytes) return nullptr;
    entry *e = probe(key, tag, column);
    if (e->epoch == epoch_) {
      hit = true, missesInRow_ = 0, restart_ = false;
      return data_ + e->offset;
    }
    bytes = (bytes + 63) / 64 * 64;
    if (used_ + bytes > kArenaBytes || panels_ == kMaxPanels) {
      restart_ = ++missesInRow_ > panels_;
      return nullptr;
    }
    *e = entry{key, tag, column, epoch_, used_};
    used_ += bytes, ++panels_, missesInRow_ = 0;
    return data_ + e->offset;
  }

private:
  struct entry {
    const void *key = nullptr;
    int64_t tag = 0, column = 0;
    uint64_t epoch = 0; /* the arena's epoch it lies in; older ones are free */
    size_t offset = 0;
  };
  /// The entry of (key, tag, column) in this epoch, or the free one where
  /// it goes: linear probing (nothing is removed within an epoch).
  entry *probe(const void *key, int64_t tag, int64_t column) {
    const uint64_t h = (uint64_t(reinterpret_cast<uintptr_t>(key)) >> 6) * 0x9E3779B97F4A7C15ull +
                       uint64_t(tag) * 0xC2B2AE3D27D4EB4Full + uint64_t(column) * 0x165667B19E3779F9ull;
    for (int i = int(h >> (64 - kIndexBits));; i = (i + 1) & (kIndexSize - 1)) {
      entry &e = index_[i];
      if (e.epoch != epoch_ || (e.key == key && e.tag == tag && e.column == column)) return &e;
    }
  }
  void restart(uint64_t launch) {
    launch_ = launch, ++epoch_, used_ = 0, panels_ = 0, missesInRow_ = 0, restart_ = false;
  }
  /// The arena and, after it, the index: on the heap, not in the
  /// thread-local object (dynamic TLS in a loaded library).
  void allocate() {
    const size_t bytes = kArenaBytes + kIndexSize * sizeof(entry);
    data_ = static_cast<char *>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
    failed_ = !data_;
    if (!data_) return;
    index_ = reinterpret_cast<entry *>(data_ + kArenaBytes);
    for (int j = 0; j < kIndexSize; ++j) new (index_ + j) entry();
  }
  char *data_ = nullptr;
  entry *index_ = nullptr;
  bool failed_ = false, restart_ = false;
  uint64_t launch_ = 0, epoch_ = 1;
  size_t used_ = 0;
  int panels_ = 0, missesInRow_ = 0;
};

/// The bytes of a panel PW wide of K k as the packed blocks read it: f32 as
/// it is (P = float), bf16 in VNNI pairs (P = uint32_t). Both 4-byte words.
template <class P, int64_t PW, int64_t K> constexpr int64_t panel_bytes() {
  return (std::is_same<P, float>::value ? K : (K + 1) / 2) * PW * int64_t(sizeof(P));
}

/// Whether such a panel may be kept (at most 1/64 of the arena).
template <class P, int64_t PW, int64_t K> constexpr bool panel_keepable() {
  return panel_bytes<P, PW, K>() <= int64_t(pack_cache::kMaxPanelBytes);
}

inline pack_cache &thread_pack_cache() {
  static thread_local pack_cache cache;
  return cache;
}

#if defined(__AVX512F__)
/// b's panel of columns n0 .. n0 + nb packed for the register blocks.
template <BLayout L, int64_t PW, int64_t K>
inline void pack_panel(float *panel, tile_ref<float> b, int64_t n0, int64_t nb) {
  pack_f32_panel<L, PW, K>(panel, b, n0, nb);
}
template <BLayout L, int64_t PW, int64_t K>
inline void pack_panel(uint32_t *panel, tile_ref<uint16_t> b, int64_t n0, int64_t nb) {
  pack_vnni_panel<L, PW, K>(panel, b, n0, nb);
}

/// Where the packed blocks get b's panels (P: float for f32, uint32_t for
/// bf16's VNNI pairs): packed into the caller's buffer at every call (the
/// default)...
struct packs_each_call {
  static constexpr bool kept = false;
  template <BLayout L, int64_t PW, int64_t K, class P, class S>
  const P *panel(P *buffer, tile_ref<S> b, int64_t n0, int64_t nb) const {
    pack_panel<L, PW, K>(buffer, b, n0, nb);
    return buffer;
  }
};

/// ... or kept in the thread's pack_cache for the launch (pack_reuse): one
/// object a product, made as it begins.
class panels_kept {
public:
  static constexpr bool kept = true;
  panels_kept() : cache_(pack_launch() ? &thread_pack_cache() : nullptr) {
    if (cache_) cache_->begin_product(pack_launch());
  }
  template <BLayout L, int64_t PW, int64_t K, class P, class S>
  const P *panel(P *buffer, tile_ref<S> b, int64_t n0, int64_t nb) const {
    /* what else tells this tile from another at the same address: its element, k, width and layout */
    const int64_t tag = (((K << 8) | PW) << 2 | int64_t(sizeof(S) == 2) << 1) | int64_t(L == BLayout::KN);
    bool hit = false;
    P *kept = cache_ ? static_cast<P *>(cache_->find(b.data, tag, n0 / PW, panel_bytes<P, PW, K>(), hit)) : nullptr;
    if (!kept) return packs_each_call().panel<L, PW, K>(buffer, b, n0, nb); /* no launch entered, no room */
    if (!hit) pack_panel<L, PW, K>(kept, b, n0, nb);
    return kept;
  }

private:
  pack_cache *cache_;
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
