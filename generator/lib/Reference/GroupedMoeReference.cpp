//===- GroupedMoeReference.cpp - float64 grouped expert GEMMs -------------===//
#include "GroupedMoeReference.h"

#include <algorithm>
#include <cmath>

namespace argus::ref {
namespace {

RefArg &argNamed(std::vector<RefArg> &args, const char *name) {
  return *std::find_if(args.begin(), args.end(), [&](const RefArg &a) { return a.name == name; });
}

/// "" when X is MB x BR x K, every weight E x N x K, block_expert MB, the
/// output MB x BR x N and live_blocks 2; else what is wrong, for `op`.
std::string validateGrouped(const std::string &op, const RefArg &x, const std::vector<const RefArg *> &weights,
                            const RefArg &experts, const RefArg &out, const RefArg &live) {
  const std::vector<int64_t> &X = x.shape, &W = weights.front()->shape, &O = out.shape;
  const bool shaped = X.size() == 3 && W.size() == 3 && experts.shape.size() == 1 && O.size() == 3 &&
                      live.shape == std::vector<int64_t>{2} &&
                      std::all_of(weights.begin(), weights.end(), [&](const RefArg *w) { return w->shape == W; });
  if (!shaped || X[2] != W[2] || experts.shape[0] != X[0] || O[0] != X[0] || O[1] != X[1] || O[2] != W[1])
    return op + " expects X of [blocks, block_rows, K], weights of [experts, N, K], block_expert of [blocks], " +
           out.name + " of [blocks, block_rows, N] and live_blocks of [2]";
  return "";
}

/// out[b, r, n] = f(row r of block b · each weight's row n of expert e), e
/// block b's expert, for the live blocks; zeros for a block of no expert.
template <class Combine>
void groupedProducts(const RefArg &x, const std::vector<const RefArg *> &weights, const RefArg &experts, RefArg &out,
                     const RefArg &live, Combine combine) {
  const int64_t blocks = liveBlockCount(live, x.shape[0]), rows = x.shape[1], K = x.shape[2],
                E = weights.front()->shape[0], N = weights.front()->shape[1];
  std::vector<double> sums(weights.size());
  for (int64_t b = 0; b < blocks; ++b) {
    const double entry = experts.data[size_t(b)];
    const bool live = entry >= 0 && entry < double(E);
    const int64_t e = live ? int64_t(entry) : 0;
    for (int64_t r = 0; r < rows; ++r) {
      const double *row = x.data.data() + (b * rows + r) * K;
      for (int64_t n = 0; n < N; ++n) {
        for (size_t w = 0; w < weights.size(); ++w) {
          const double *column = weights[w]->data.data() + (e * N + n) * K;
          double sum = 0;
          for (int64_t k = 0; live && k < K; ++k)
            sum += row[k] * column[k];
          sums[w] = sum;
        }
        out.data[size_t((b * rows + r) * N + n)] = combine(sums);
      }
    }
  }
}

} // namespace

int64_t liveBlockCount(const RefArg &liveBlocks, int64_t blocks) {
  return std::clamp(int64_t(liveBlocks.data[1]), int64_t(0), blocks);
}

void arrangeLiveBlocks(RefArg &liveBlocks, int64_t blocks) {
  liveBlocks.data = {0.0, double(blocks >= 2 ? blocks - 1 : blocks)};
}

std::string validateMoeGroupedGateUp(const std::vector<RefArg> &args) {
  return validateGrouped("moe_grouped_gate_up", args[0], {&args[1], &args[2]}, args[3], args[4], args[5]);
}

void moeGroupedGateUp(std::vector<RefArg> &args) {
  groupedProducts(args[0], {&args[1], &args[2]}, args[3], args[4], args[5], [](const std::vector<double> &s) {
    return s[0] / (1.0 + std::exp(-s[0])) * s[1];
  });
}

std::string validateMoeGroupedDown(const std::vector<RefArg> &args) {
  return validateGrouped("moe_grouped_down", args[0], {&args[1]}, args[2], args[3], args[4]);
}

void moeGroupedDown(std::vector<RefArg> &args) {
  groupedProducts(args[0], {&args[1]}, args[2], args[3], args[4], [](const std::vector<double> &s) { return s[0]; });
}

void arrangeMoeBlocks(std::vector<RefArg> &args, std::mt19937_64 &rng) {
  RefArg &experts = argNamed(args, "block_expert");
  const int64_t E = args[1].shape[0];
  std::uniform_int_distribution<int64_t> expert(0, std::max<int64_t>(E - 1, 0));
  const size_t blocks = experts.data.size();
  for (size_t b = 0; b < blocks; ++b)
    experts.data[b] = double(blocks >= 2 && b + 1 == blocks ? -1 : blocks >= 3 && b == 1 ? E : expert(rng));
  arrangeLiveBlocks(argNamed(args, "live_blocks"), int64_t(blocks));
}

} // namespace argus::ref
