//===- prefill_problem.cpp - varlen prefill attention against float64 -----===//
#include "prefill_problem.h"

#include "gemm_problem.h"

#include "argus/Reference/AttentionReference.h"
#include "argus_numerics.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace argus::gpu::test {

int PrefillProblem::maxSeqQ() const {
  int most = 0;
  for (const auto &s : seqlens)
    most = std::max(most, s.first);
  return most;
}

int PrefillProblem::totalQ() const {
  int total = 0;
  for (const auto &s : seqlens)
    total += s.first;
  return total;
}

int PrefillProblem::totalKv() const {
  int total = 0;
  for (const auto &s : seqlens)
    total += s.second;
  return total;
}

float PrefillProblem::effectiveScale() const { return scale != 0.0f ? scale : 1.0f / std::sqrt(float(headDim)); }

std::string PrefillProblem::describe() const {
  std::ostringstream os;
  os << "heads " << heads << "/" << kvHeads << ", d " << headDim << "/" << valueDim << (causal ? ", causal" : "")
     << (f16 ? ", f16" : "") << ", sequences";
  for (const auto &s : seqlens)
    os << " " << s.first << "x" << s.second;
  return os.str();
}

PrefillData::PrefillData(const PrefillProblem &p, std::mt19937 &rng) {
  q = randomBf16(size_t(p.totalQ()) * size_t(p.heads) * size_t(p.headDim), rng, p.f16, kQueryRange);
  k = randomBf16(size_t(p.totalKv()) * size_t(p.kvHeads) * size_t(p.headDim), rng, p.f16);
  v = randomBf16(size_t(p.totalKv()) * size_t(p.kvHeads) * size_t(p.valueDim), rng, p.f16);
  o.assign(size_t(p.totalQ()) * size_t(p.heads) * size_t(p.valueDim), kPoison);
  o.resize(o.size() + kGuardElements, kGuard);
  cuSeqlensQ = {0};
  cuSeqlensKv = {0};
  for (const auto &s : p.seqlens) {
    cuSeqlensQ.push_back(cuSeqlensQ.back() + s.first);
    cuSeqlensKv.push_back(cuSeqlensKv.back() + s.second);
  }
}

std::string compareWithFloat64(const PrefillProblem &p, const PrefillData &d) {
  std::ostringstream problems;
  int wrong = 0;
  for (int b = 0; b < p.batch(); ++b) {
    ref::AttentionShape shape;
    shape.seqQ = p.seqlens[size_t(b)].first;
    shape.seqKv = p.seqlens[size_t(b)].second;
    shape.numHeads = p.heads;
    shape.numKvHeads = p.kvHeads;
    shape.headDim = p.headDim;
    shape.vHeadDim = p.valueDim;
    shape.causal = p.causal;
    shape.scale = p.effectiveScale();
    const size_t q0 = size_t(d.cuSeqlensQ[size_t(b)]), kv0 = size_t(d.cuSeqlensKv[size_t(b)]);
    const size_t outputs = size_t(shape.seqQ) * size_t(p.heads) * size_t(p.valueDim);
    std::vector<double> ref(outputs), magnitude(outputs);
    auto rows = [&](const std::vector<uint16_t> &v, size_t first, int count, int width) {
      return widened(v, first * size_t(width), size_t(count) * size_t(width), p.f16);
    };
    ref::attentionPrefillF64(shape, rows(d.q, q0, shape.seqQ, p.heads * p.headDim).data(),
                             rows(d.k, kv0, shape.seqKv, p.kvHeads * p.headDim).data(),
                             rows(d.v, kv0, shape.seqKv, p.kvHeads * p.valueDim).data(), ref.data(),
                             magnitude.data());
    for (size_t i = 0; i < outputs; ++i) {
      const double value = widen(d.o[q0 * size_t(p.heads * p.valueDim) + i], p.f16);
      // bf16 keeps 8 significant bits, f16 11: the bound tightens with it (a kernel rounding f16 data
      // through bf16 fails it).
      const int bits = p.f16 ? 11 : 8;
      const double tolerance = std::ldexp(std::fabs(ref[i]), -bits) + std::ldexp(magnitude[i], 1 - bits) + 1e-30;
      if (!(std::fabs(value - ref[i]) <= tolerance) && ++wrong <= 5)
        problems << p.describe() << ": sequence " << b << " o[" << i << "] = " << value << ", expected " << ref[i]
                 << "\n";
    }
  }
  const size_t outputs = size_t(p.totalQ()) * size_t(p.heads) * size_t(p.valueDim);
  return finishReport(problems.str(), wrong, d.o, outputs, p.describe(), "o");
}

} // namespace argus::gpu::test
