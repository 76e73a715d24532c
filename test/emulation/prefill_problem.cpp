//===- prefill_problem.cpp - varlen prefill attention against float64 -----===//
#include "prefill_problem.h"

#include "gemm_problem.h"

#include "argus/Reference/AttentionReference.h"
#include "argus_numerics.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace argus::gpu::test {
namespace {


std::vector<double> widened(const std::vector<uint16_t> &v, size_t first, size_t count) {
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i)
    out[i] = argus_num::bf16_to_f32(v[first + i]);
  return out;
}

} // namespace

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
     << ", sequences";
  for (const auto &s : seqlens)
    os << " " << s.first << "x" << s.second;
  return os.str();
}

PrefillData::PrefillData(const PrefillProblem &p, std::mt19937 &rng) {
  q = randomBf16(size_t(p.totalQ()) * size_t(p.heads) * size_t(p.headDim), rng, false, kQueryRange);
  k = randomBf16(size_t(p.totalKv()) * size_t(p.kvHeads) * size_t(p.headDim), rng);
  v = randomBf16(size_t(p.totalKv()) * size_t(p.kvHeads) * size_t(p.valueDim), rng);
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
    ref::attentionPrefillF64(
        shape, widened(d.q, q0 * size_t(p.heads * p.headDim), size_t(shape.seqQ) * size_t(p.heads * p.headDim)).data(),
        widened(d.k, kv0 * size_t(p.kvHeads * p.headDim), size_t(shape.seqKv) * size_t(p.kvHeads * p.headDim)).data(),
        widened(d.v, kv0 * size_t(p.kvHeads * p.valueDim), size_t(shape.seqKv) * size_t(p.kvHeads * p.valueDim))
            .data(),
        ref.data(), magnitude.data());
    for (size_t i = 0; i < outputs; ++i) {
      const double value = argus_num::bf16_to_f32(d.o[q0 * size_t(p.heads * p.valueDim) + i]);
      const double tolerance = std::ldexp(std::fabs(ref[i]), -8) + std::ldexp(magnitude[i], -7) + 1e-30;
      if (!(std::fabs(value - ref[i]) <= tolerance) && ++wrong <= 5)
        problems << p.describe() << ": sequence " << b << " o[" << i << "] = " << value << ", expected " << ref[i]
                 << "\n";
    }
  }
  const size_t outputs = size_t(p.totalQ()) * size_t(p.heads) * size_t(p.valueDim);
  return finishReport(problems.str(), wrong, d.o, outputs, p.describe(), "o");
}

} // namespace argus::gpu::test
