//===- MoeRoutingReference.cpp - float64 MoE route, gather, combine -------===//
#include "MoeRoutingReference.h"

#include "GroupedMoeReference.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace argus::ref {

std::string validateMoeRoute(const std::vector<RefArg> &args) {
  const RefArg &logits = args[0], &choices = args[1], &weights = args[2];
  if (logits.shape.size() != 2 || choices.shape.size() != 2 || weights.shape != choices.shape ||
      choices.shape[0] != logits.shape[0])
    return "moe_route expects logits of [tokens, E] and choices and weights of [tokens, top_k]";
  if (choices.shape[1] > logits.shape[1])
    return "moe_route expects top_k <= E";
  return "";
}

void moeRoute(std::vector<RefArg> &args) {
  const RefArg &logits = args[0];
  RefArg &choices = args[1], &weights = args[2];
  const int64_t tokens = logits.shape[0], E = logits.shape[1], K = choices.shape[1];
  const bool renormalize = args[3].scalar != 0;
  std::vector<int64_t> order(size_t(E), 0);
  for (int64_t t = 0; t < tokens; ++t) {
    const double *l = logits.data.data() + t * E;
    const double high = *std::max_element(l, l + E);
    double total = 0;
    for (int64_t e = 0; e < E; ++e)
      total += std::exp(l[e] - high);
    std::iota(order.begin(), order.end(), int64_t(0));
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return l[a] > l[b]; });
    double chosen = 0;
    for (int64_t j = 0; j < K; ++j)
      chosen += std::exp(l[order[size_t(j)]] - high) / total;
    for (int64_t j = 0; j < K; ++j) {
      const int64_t e = order[size_t(j)];
      choices.data[size_t(t * K + j)] = double(e);
      weights.data[size_t(t * K + j)] = std::exp(l[e] - high) / total / (renormalize ? chosen : 1.0);
    }
  }
}

void arrangeMoeRoute(std::vector<RefArg> &args, std::mt19937_64 &rng) {
  std::vector<double> &logits = args[0].data;
  const int64_t tokens = args[0].shape[0], E = args[0].shape[1];
  if (E >= 2)
    logits[size_t(std::uniform_int_distribution<int64_t>(1, E - 1)(rng))] = logits[0];
  if (tokens >= 2)
    std::fill(logits.begin() + E, logits.begin() + 2 * E, logits[size_t(E)]);
}

std::string validateMoeGather(const std::vector<RefArg> &args) {
  const RefArg &x = args[0], &blockRows = args[1], &rows = args[2], &live = args[3], &topK = args[4];
  if (x.shape.size() != 2 || blockRows.shape.size() != 2 || rows.shape.size() != 3 ||
      rows.shape[0] != blockRows.shape[0] || rows.shape[1] != blockRows.shape[1] || rows.shape[2] != x.shape[1] ||
      live.shape != std::vector<int64_t>{2})
    return "moe_gather expects x of [tokens, H], block_rows of [MB, BR], rows of [MB, BR, H] and live_blocks of [2]";
  if (topK.scalar < 1)
    return "moe_gather expects top_k >= 1";
  return "";
}

void moeGather(std::vector<RefArg> &args) {
  const RefArg &x = args[0], &blockRows = args[1];
  RefArg &rows = args[2];
  const int64_t tokens = x.shape[0], H = x.shape[1], topK = int64_t(args[4].scalar);
  const size_t liveRows = size_t(liveBlockCount(args[3], blockRows.shape[0]) * blockRows.shape[1]);
  for (size_t r = 0; r < liveRows; ++r) {
    const int64_t choice = int64_t(blockRows.data[r]);
    const int64_t token = choice < 0 ? -1 : choice / topK;
    for (int64_t h = 0; h < H; ++h)
      rows.data[r * size_t(H) + size_t(h)] = token < tokens && token >= 0 ? x.data[size_t(token * H + h)] : 0.0;
  }
}

void arrangeMoeGather(std::vector<RefArg> &args, std::mt19937_64 &rng) {
  const int64_t pairs = args[0].shape[0] * int64_t(args[4].scalar);
  std::vector<double> &blockRows = args[1].data;
  std::uniform_int_distribution<int64_t> entry(-1, pairs - 1);
  for (double &choice : blockRows)
    choice = double(entry(rng));
  if (blockRows.size() >= 3)
    blockRows[1] = double(pairs);
  arrangeLiveBlocks(args[3], args[1].shape[0]);
}

std::string validateMoeCombine(const std::vector<RefArg> &args) {
  const RefArg &Y = args[0], &choiceRow = args[1], &weights = args[2], &out = args[3];
  if (Y.shape.size() != 2 || choiceRow.shape.size() != 2 || weights.shape != choiceRow.shape ||
      out.shape.size() != 2 || out.shape[0] != choiceRow.shape[0] || out.shape[1] != Y.shape[1])
    return "moe_combine expects Y of [R, N], choice_row and weights of [tokens, top_k] and out of [tokens, N]";
  return "";
}

void moeCombine(std::vector<RefArg> &args) {
  const RefArg &Y = args[0], &choiceRow = args[1], &weights = args[2];
  RefArg &out = args[3];
  const int64_t R = Y.shape[0], N = Y.shape[1], tokens = choiceRow.shape[0], topK = choiceRow.shape[1];
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0;
      for (int64_t j = 0; j < topK; ++j) {
        const int64_t row = int64_t(choiceRow.data[size_t(t * topK + j)]);
        if (row >= 0 && row < R)
          sum += weights.data[size_t(t * topK + j)] * Y.data[size_t(row * N + n)];
      }
      out.data[size_t(t * N + n)] = sum;
    }
}

void arrangeMoeCombine(std::vector<RefArg> &args, std::mt19937_64 &rng) {
  std::uniform_int_distribution<int64_t> row(0, args[0].shape[0] - 1);
  for (double &landed : args[1].data)
    landed = double(row(rng));
}

} // namespace argus::ref
