//===- MoeReference.cpp - float64 mixture of experts ----------------------===//
#include "argus/Reference/MoeReference.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace argus::ref {

std::vector<int64_t> topKExperts(const float *logits, int64_t experts, int64_t k) {
  std::vector<int64_t> order(static_cast<size_t>(experts));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  order.resize(static_cast<size_t>(k));
  return order;
}

void moeF64(const MoeShape &s, const double *x, const float *logits, const double *wGateUp, const double *wDown,
            double *out) {
  const int64_t H = s.hidden, I = s.intermediate;
  std::vector<double> h(static_cast<size_t>(I));
  for (int64_t t = 0; t < s.tokens; ++t) {
    const float *l = logits + t * s.experts;
    const double top = *std::max_element(l, l + s.experts);
    double sum = 0;
    for (int64_t e = 0; e < s.experts; ++e) sum += std::exp(double(l[e]) - top);
    std::vector<int64_t> chosen = topKExperts(l, s.experts, s.topK);
    std::vector<double> w;
    double chosenSum = 0;
    for (int64_t e : chosen) chosenSum += w.emplace_back(std::exp(double(l[e]) - top) / sum);
    if (s.renormalize)
      for (double &v : w) v /= chosenSum;
    double *o = out + t * H;
    std::fill(o, o + H, 0.0);
    const double *xt = x + t * H;
    for (size_t j = 0; j < chosen.size(); ++j) {
      const double *gate = wGateUp + chosen[j] * 2 * I * H, *up = gate + I * H;
      for (int64_t i = 0; i < I; ++i) {
        double g = 0, u = 0;
        for (int64_t c = 0; c < H; ++c) g += xt[c] * gate[i * H + c], u += xt[c] * up[i * H + c];
        h[i] = g / (1.0 + std::exp(-g)) * u;
      }
      const double *down = wDown + chosen[j] * H * I;
      for (int64_t c = 0; c < H; ++c) {
        double y = 0;
        for (int64_t i = 0; i < I; ++i) y += h[i] * down[c * I + i];
        o[c] += w[j] * y;
      }
    }
  }
}

} // namespace argus::ref
