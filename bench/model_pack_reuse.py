#!/usr/bin/env python3
"""Misses of prefill's kept panels (argus_cpu_pack_reuse.h) in a model of one thread's walk.

Replays the panels that one thread's prefill instances ask for (heads-major grid, Llama-3-8B heads:
32 query heads, 8 KV heads, d = 128, 64-key tiles, panels 32 columns wide) against three policies:
  table  direct-mapped, one panel a slot, hashed by address and column (session 60; bf16 only)
  spans  direct-mapped, a tile's panels on consecutive slots (session 61)
  arena  first-use order in 8 MiB, kept while it lasts, restarted after more misses in a row than
         panels held (session 62)
Prints the fraction of panel requests that pack again. Usage: model_pack_reuse.py [THREADS]
"""
import sys

MASK = (1 << 64) - 1
SLOT_BITS, SLOTS, SLOT_BYTES = 10, 1 << 10, 8192
ARENA_BYTES, MAX_PANELS = 8 << 20, 2048


def hashed(key, tag):
    h = (((key >> 6) * 0x9E3779B97F4A7C15) + tag * 0xC2B2AE3D27D4EB4F) & MASK
    return h >> (64 - SLOT_BITS)


def panel_bytes(dtype, k):
    return k * 32 * 4 if dtype == 'f32' else (k + 1) // 2 * 32 * 4


class Table:
    """Direct-mapped; `consecutive`: column c of a tile at base + c x span (else hashed with the column)."""

    def __init__(self, consecutive):
        self.consecutive, self.slots = consecutive, [None] * SLOTS

    def begin_product(self):
        pass

    def request(self, key, k, layout, column, nbytes, dtype):
        span = 1
        while span * SLOT_BYTES < nbytes:
            span *= 2
        if self.consecutive:
            tag = ((k << 8 | 32) << 2 | (dtype == 'bf16') << 1) | layout
            first = (hashed(key, tag) + column * span) & (SLOTS - span)
        else:
            first = hashed(key, (((k << 8 | 32) << 24 | column * 32) << 1) | layout) & (SLOTS - span)
        name = (key, layout, column)
        if self.slots[first] == name and all(self.slots[first + j] == 'cont' for j in range(1, span)):
            return True
        self.slots[first:first + span] = [name] + ['cont'] * (span - 1)
        return False


class Arena:
    def __init__(self):
        self.index, self.used, self.in_row, self.restart = {}, 0, 0, False

    def begin_product(self):
        if self.restart:
            self.index, self.used, self.in_row, self.restart = {}, 0, 0, False

    def request(self, key, k, layout, column, nbytes, dtype):
        name = (key, layout, column)
        if name in self.index:
            self.in_row, self.restart = 0, False
            return True
        nbytes = (nbytes + 63) // 64 * 64
        if self.used + nbytes > ARENA_BYTES or len(self.index) == MAX_PANELS:
            self.in_row += 1
            self.restart = self.in_row > len(self.index)
            return False
        self.index[name], self.used, self.in_row = self.used, self.used + nbytes, 0
        return False


def misses(policy, dtype, seqlen, causal, threads, heads=32, kv_heads=8, d=128, bkv=64):
    bq = 64 if dtype == 'bf16' else 32
    esz = 2 if dtype == 'bf16' else 4
    row = kv_heads * d * esz
    k_base = 0x7F1200000040
    v_base = k_base + seqlen * row + 3 * 4096 + 64
    blocks = (seqlen + bq - 1) // bq
    instances = [(h, qt) for h in range(heads) for qt in range(blocks)]
    mine = instances[:(len(instances) + threads - 1) // threads]
    asked = packed = 0
    for h, qt in mine:
        g = h // (heads // kv_heads)
        n_kv = min(seqlen, (qt + 1) * bq) if causal else seqlen
        for kt in range((n_kv + bkv - 1) // bkv):
            # the scores' product reads the key tile (NK, k = d), the values' the value tile (KN, k = bkv)
            for base, k, columns, layout in ((k_base, d, bkv // 32, 0), (v_base, bkv, d // 32, 1)):
                policy.begin_product()
                key = base + kt * bkv * row + g * d * esz
                for c in range(columns):
                    asked += 1
                    packed += not policy.request(key, k, layout, c, panel_bytes(dtype, k), dtype)
    return packed / asked


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    print(f'fraction of panels packed again, one of {threads} threads')
    print('| dtype | S | mask | table | spans | arena |\n|---|---:|---|---:|---:|---:|')
    for dtype in ('bf16', 'f32'):
        for seqlen in (1024, 2048, 4096, 8192, 16384):
            for causal in (False, True):
                row = [misses(p, dtype, seqlen, causal, threads) for p in (Table(False), Table(True), Arena())]
                mask = 'causal' if causal else 'full'
                print(f'| {dtype} | {seqlen} | {mask} | ' + ' | '.join(f'{m:.3f}' for m in row) + ' |')


if __name__ == '__main__':
    main()
