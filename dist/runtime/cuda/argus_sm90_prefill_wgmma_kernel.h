//===- argus_sm90_prefill_wgmma_kernel.h - prefill attention on TMA and wgmma -===//
//
// FlashAttention-3's structure on Hopper: a CTA of three warpgroups serves 128
// query rows of one (sequence, head).
//
//   producer   warpgroup 0. Its thread 0 loads Q once and, block by block, 64
//              keys of K and V into a ring of stages (TMA, 128-byte swizzle,
//              completing on the stage's `full` mbarrier) as soon as the
//              consumers have released the stage (`empty`). Its 128 threads
//              then write the block's V transposed (Vt: value columns as rows
//              of 64 keys, the K-major operand wgmma takes) and signal `vtReady`.
//   consumers  warpgroups 1 and 2, 64 query rows each. Per block:
//                S = Q · Kᵀ        wgmma m64n64k16, both operands in shared memory
//                online softmax    in registers (base 2; rows shared by 4 lanes)
//                O = O · α + P · V wgmma m64n{DV}k16 with P in registers: S's
//                                  accumulators are, two n-tiles at a time, P's
//                                  A fragments (no trip through shared memory)
//              then release the stage. Two overlaps (FA3's): step j issues
//              block j's Q · Kᵀ and block j - 1's P · V together and runs block
//              j's softmax while that P · V is in flight; and the consumers take
//              turns issuing (named barriers 1 and 2, ping-pong), so one's
//              softmax runs under the other's matrix products.
//
// Causal blocks past the diagonal of the CTA's last row are not loaded.
// Varlen: the tensor maps span the packed tensors; rows a block reads past its
// sequence belong to the next one (or are TMA's zeros past the tensor) and are
// masked. What this version leaves to tuning on a GPU: the producer loading
// ahead of its transposition, and register reallocation (setmaxnreg).
//
// Written against argus_sm90.cuh and argus_cuda_kernel_device.h, so the
// cluster emulator runs it (Sm90PrefillWgmmaEmulatedTest).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_SM90_PREFILL_WGMMA_KERNEL_H
#define ARGUS_SM90_PREFILL_WGMMA_KERNEL_H

#include "argus_sm90.cuh"
#include "argus_sm90_attention_rows.h"
#include "argus_sm90_schedule.h"
#include "gpu/argus_gpu_prefill_params.h"

namespace argus::sm90 {

using argus::gpu::PrefillParams;
using cuda::KeyMask;
using cuda::SoftmaxRows;

inline constexpr int kWgPrefillRows = 128;  // query rows per CTA: two consumer warpgroups of 64
inline constexpr int kWgPrefillKeys = 64;   // keys per block: one 128-byte row of Vt
inline constexpr int kWgPrefillStages = 2;
inline constexpr int kWgPrefillThreads = 3 * 128;
inline constexpr uint32_t kTurnBarrier = 1;  // named barriers 1 and 2: consumer 0's and 1's turn

/// Where everything lives in the CTA's shared memory (from a 1024-byte aligned base).
template <int D, int DV>
struct WgPrefillLayout {
  static_assert(D % 64 == 0 && DV % 64 == 0 && D <= 128 && DV <= 128, "head dims of 64 or 128");
  static constexpr int kBox = 64 * 128;  // one TMA box: 64 rows of 64 16-bit elements, 128-byte swizzled
  static constexpr int kQ = 0;                                       // 2 consumers x D / 64 boxes
  static constexpr int kK = kQ + 2 * (D / 64) * kBox;                // per stage: D / 64 boxes
  static constexpr int kV = kK + kWgPrefillStages * (D / 64) * kBox;  // per stage: DV / 64 boxes
  static constexpr int kVt = kV + kWgPrefillStages * (DV / 64) * kBox;  // per stage: DV rows x 128 bytes
  static constexpr int kBarriers = kVt + kWgPrefillStages * DV * 128;
  static constexpr int kBytes = kBarriers + (1 + 3 * kWgPrefillStages) * 8 + 1024;  // + alignment of the base
};

/// Byte offset of element (row, column) of a 128-byte swizzled tile of 128-byte rows (1024-byte aligned).
ARGUS_CUDA_FN int swizzledOffset(int row, int column) {
  return row * 128 + ((((column * 2) >> 4) ^ (row % 8)) << 4) + (column * 2) % 16;
}

/// E: the element type of q, k, v and o (cuda::Bf16 or cuda::F16).
template <class E, int D, int DV>
ARGUS_CUDA_FN void prefillWgmma(const CUtensorMap &mapQ, const CUtensorMap &mapK, const CUtensorMap &mapV,
                                const PrefillParams &p) {
  using Layout = WgPrefillLayout<D, DV>;
  using cuda::kWarpSize;
  const int b = int(blockAt(2)), h = int(blockAt(1)), q0 = int(blockAt(0)) * kWgPrefillRows;
  const int firstQ = p.cuSeqlensQ[b], seqQ = p.cuSeqlensQ[b + 1] - firstQ;
  const int firstKv = p.cuSeqlensKv[b], seqKv = p.cuSeqlensKv[b + 1] - firstKv;
  if (q0 >= seqQ)
    return;
  const int kvHead = h / (p.heads / p.kvHeads), shift = seqKv - seqQ;  // causal: row i sees keys <= i + shift
  int keys = seqKv;
  if (p.causal) {
    const int lastRow = (q0 + kWgPrefillRows < seqQ ? q0 + kWgPrefillRows : seqQ) - 1;
    keys = lastRow + shift + 1 < keys ? lastRow + shift + 1 : keys;
  }
  const int blocks = keys > 0 ? (keys + kWgPrefillKeys - 1) / kWgPrefillKeys : 0;

  uint8_t *base = reinterpret_cast<uint8_t *>(cuda::dynamicShared());
  base = reinterpret_cast<uint8_t *>((reinterpret_cast<uintptr_t>(base) + 1023) & ~uintptr_t(1023));
  uint64_t *const qFull = reinterpret_cast<uint64_t *>(base + Layout::kBarriers);
  uint64_t *const full = qFull + 1, *const vtReady = full + kWgPrefillStages, *const empty = vtReady + kWgPrefillStages;
  const int tid = int(threadX()), warpgroup = tid / 128;
  if (tid == 0) {
    barrierInit(qFull, 1);
    for (int s = 0; s < kWgPrefillStages; ++s) {
      barrierInit(&full[s], 1);
      barrierInit(&vtReady[s], 128);  // every producer thread writes part of Vt
      barrierInit(&empty[s], 8);      // one arrival per consumer warp
    }
    fenceBarrierInit();
  }
  cuda::syncThreads();
  RingCursor cursor;

  if (warpgroup == 0) {
    if (tid == 0) {
      barrierArriveExpectBytes(qFull, 2 * (D / 64) * Layout::kBox);
      for (int c = 0; c < 2; ++c)
        for (int s = 0; s < D / 64; ++s)
          tmaLoad2d(base + Layout::kQ + (c * (D / 64) + s) * Layout::kBox, &mapQ, qFull, h * D + 64 * s,
                    firstQ + q0 + 64 * c);
    }
    for (int j = 0; j < blocks; ++j) {
      const int stage = cursor.stage;
      uint8_t *const k = base + Layout::kK + stage * (D / 64) * Layout::kBox;
      uint8_t *const v = base + Layout::kV + stage * (DV / 64) * Layout::kBox;
      uint8_t *const vt = base + Layout::kVt + stage * DV * 128;
      if (tid == 0) {
        barrierWait(&empty[stage], cursor.emptyParity());
        barrierArriveExpectBytes(&full[stage], (D + DV) / 64 * Layout::kBox);
        const int row = firstKv + j * kWgPrefillKeys;
        for (int s = 0; s < D / 64; ++s)
          tmaLoad2d(k + s * Layout::kBox, &mapK, &full[stage], kvHead * D + 64 * s, row);
        for (int s = 0; s < DV / 64; ++s)
          tmaLoad2d(v + s * Layout::kBox, &mapV, &full[stage], kvHead * DV + 64 * s, row);
      }
      // Vt[column][key] = V[key][column]; full's phase follows empty's, so Vt's last readers are done.
      barrierWait(&full[stage], cursor.fullParity());
      for (int e = tid; e < kWgPrefillKeys * DV; e += 128) {
        const int key = e % kWgPrefillKeys, column = e / kWgPrefillKeys;
        const uint8_t *from = v + (column / 64) * Layout::kBox + swizzledOffset(key, column % 64);
        *reinterpret_cast<uint16_t *>(vt + swizzledOffset(column, key)) = *reinterpret_cast<const uint16_t *>(from);
      }
      fenceAsyncShared();  // the writes above are read by wgmma (the async proxy)
      barrierArrive(&vtReady[stage]);
      cursor.advance(kWgPrefillStages);
    }
    return;
  }

  // Consumers: rows 16 warp + g and + 8 of this warpgroup's 64.
  const int consumer = warpgroup - 1, warp = (tid / kWarpSize) % 4, lane = tid % kWarpSize;
  const int g = lane / 4, t = lane % 4;
  const int rows[2] = {q0 + 64 * consumer + 16 * warp + g, q0 + 64 * consumer + 16 * warp + g + 8};
  const uint8_t *const q = base + Layout::kQ + consumer * (D / 64) * Layout::kBox;
  float o[DV / 8][4];  // wgmma's accumulators: n-tile n of 8 value columns, 4 per thread
  ARGUS_CUDA_UNROLL
  for (int n = 0; n < DV / 8; ++n)
    ARGUS_CUDA_UNROLL
    for (int e = 0; e < 4; ++e)
      o[n][e] = 0.0f;
  float(&oFlat)[DV / 2] = reinterpret_cast<float(&)[DV / 2]>(o);
  SoftmaxRows state;
  const KeyMask mask{seqQ, seqKv, p.causal != 0};
  uint32_t pFragments[kWgPrefillKeys / 16][4];  // the previous block's P: A of its P · V, in flight
  RingCursor previous;                          // the previous block's stage

  // Ping-pong: a consumer issues its matrix products on its turn (named barrier kTurnBarrier + consumer,
  // both consumers' threads) and then hands the turn over; consumer 0 goes first. Each takes blocks + 1
  // turns, and consumer 1 hands over none after its last, so no arrival is left pending.
  const int turns = blocks > 0 ? blocks + 1 : 0;
  auto takeTurn = [&] {
    namedBarrier(kTurnBarrier + consumer, 2 * 128);
    fenceRegisters(oFlat);
    wgmmaFence();
  };
  auto passTurn = [&](int turn) {
    if (consumer == 0 || turn + 1 < turns)
      namedBarrierArrive(kTurnBarrier + 1 - consumer, 2 * 128);
  };
  // S = Q · Kᵀ of the block in `cursor`'s stage: k-step kk is columns 16 kk .. + 15, box kk / 4, byte 32 (kk % 4).
  auto issueScores = [&](float(&sFlat)[kWgPrefillKeys / 2]) {
    const uint8_t *const k = base + Layout::kK + cursor.stage * (D / 64) * Layout::kBox;
    fenceRegisters(sFlat);
    ARGUS_CUDA_UNROLL
    for (int kk = 0; kk < D / 16; ++kk)
      Wgmma<E, kWgPrefillKeys>::mma(sFlat, swizzled128Descriptor(q + (kk / 4) * Layout::kBox, 32 * (kk % 4)),
                                    swizzled128Descriptor(k + (kk / 4) * Layout::kBox, 32 * (kk % 4)), kk > 0);
    wgmmaCommit();
  };
  // O += P · V of the block in `previous`'s stage: k-step ks is keys 16 ks .. + 15, Vt at byte 32 ks.
  auto issueValues = [&] {
    const uint8_t *const vt = base + Layout::kVt + previous.stage * DV * 128;
    ARGUS_CUDA_UNROLL
    for (int ks = 0; ks < kWgPrefillKeys / 16; ++ks)
      WgmmaRs<E, DV>::mma(oFlat, pFragments[ks], swizzled128Descriptor(vt, 32 * ks), 1);
    wgmmaCommit();
  };
  auto releaseValues = [&] {
    fenceRegisters(oFlat);
    if (lane == 0)
      barrierArrive(&empty[previous.stage]);
  };
  // Once the last P · V retired: O rescaled, this block's P written, the ring moved on.
  auto finishScores = [&](float(&s)[kWgPrefillKeys / 8][4], const float(&alpha)[2]) {
    ARGUS_CUDA_UNROLL
    for (int n = 0; n < DV / 8; ++n)
      ARGUS_CUDA_UNROLL
      for (int e = 0; e < 4; ++e)
        o[n][e] *= alpha[e / 2];
    ARGUS_CUDA_UNROLL
    for (int ks = 0; ks < kWgPrefillKeys / 16; ++ks) {  // P's k-step ks: S's n-tiles 2 ks and 2 ks + 1
      const float *lo = s[2 * ks], *hi = s[2 * ks + 1];
      pFragments[ks][0] = cuda::packPair<E>(lo[0], lo[1]);
      pFragments[ks][1] = cuda::packPair<E>(lo[2], lo[3]);
      pFragments[ks][2] = cuda::packPair<E>(hi[0], hi[1]);
      pFragments[ks][3] = cuda::packPair<E>(hi[2], hi[3]);
    }
    previous = cursor;
    cursor.advance(kWgPrefillStages);
  };

  if (consumer == 1 && turns > 0)
    namedBarrierArrive(kTurnBarrier, 2 * 128);
  barrierWait(qFull, 0);
  // Turn j < blocks issues block j's Q · Kᵀ and block j - 1's P · V, then runs block j's softmax while that
  // P · V is in flight; turn `blocks` issues the last P · V. Every wait precedes the turn's wgmma.fence
  // and no wgmma sits on a branch inside the loop (ptxas would serialise them), so the first and last
  // turns are peeled.
  if (blocks > 0) {
    float s[kWgPrefillKeys / 8][4];
    float(&sFlat)[kWgPrefillKeys / 2] = reinterpret_cast<float(&)[kWgPrefillKeys / 2]>(s);
    float alpha[2];
    barrierWait(&full[cursor.stage], cursor.fullParity());
    takeTurn();
    issueScores(sFlat);
    passTurn(0);
    wgmmaWait<0>();
    fenceRegisters(sFlat);
    softmaxBlock(s, rows, 0, t, mask, p.scaleLog2, state, alpha);
    finishScores(s, alpha);
  }
  for (int turn = 1; turn < blocks; ++turn) {
    float s[kWgPrefillKeys / 8][4];
    float(&sFlat)[kWgPrefillKeys / 2] = reinterpret_cast<float(&)[kWgPrefillKeys / 2]>(s);
    float alpha[2];
    barrierWait(&vtReady[previous.stage], previous.fullParity());
    barrierWait(&full[cursor.stage], cursor.fullParity());
    takeTurn();
    issueScores(sFlat);
    issueValues();
    passTurn(turn);
    wgmmaWait<1>();
    fenceRegisters(sFlat);
    softmaxBlock(s, rows, turn * kWgPrefillKeys, t, mask, p.scaleLog2, state, alpha);
    wgmmaWait<0>();
    releaseValues();
    finishScores(s, alpha);
  }
  if (turns > 0) {
    barrierWait(&vtReady[previous.stage], previous.fullParity());
    takeTurn();
    issueValues();
    passTurn(blocks);
    wgmmaWait<0>();
    releaseValues();
  }

  cuda::storeRows<E>(o, state, rows, seqQ, p.o + int64_t(firstQ) * p.heads * DV + int64_t(h) * DV,
                  int64_t(p.heads) * DV, t);
}

} // namespace argus::sm90

#endif // ARGUS_SM90_PREFILL_WGMMA_KERNEL_H
