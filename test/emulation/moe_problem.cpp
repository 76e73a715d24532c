//===- moe_problem.cpp - routed experts against float64 --------------------===//
#include "moe_problem.h"

#include "gemm_problem.h"

#include "argus/Reference/MoeReference.h"
#include "argus_numerics.h"

#include <cmath>
#include <sstream>

namespace argus::gpu::test {
namespace {

std::vector<double> widened(const std::vector<uint16_t> &v, size_t count) {
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i)
    out[i] = argus_num::bf16_to_f32(v[i]);
  return out;
}

} // namespace

std::string MoeProblem::describe() const {
  std::ostringstream os;
  os << tokens << " tokens, hidden " << hidden << ", intermediate " << intermediate << ", top " << topK << " of "
     << experts << (renormalize ? ", renormalised" : "") << (favourite >= 0 ? ", all to one expert" : "")
     << (tiedLogits ? ", tied logits" : "");
  return os.str();
}

MoeData::MoeData(const MoeProblem &p, std::mt19937 &rng) {
  x = randomBf16(size_t(p.tokens) * size_t(p.hidden), rng);
  wGateUp = randomBf16(size_t(p.experts) * 2 * size_t(p.intermediate) * size_t(p.hidden), rng);
  wDown = randomBf16(size_t(p.experts) * size_t(p.hidden) * size_t(p.intermediate), rng);
  std::normal_distribution<float> logit(0.0f, 2.0f);
  logits.resize(size_t(p.tokens) * size_t(p.experts));
  for (size_t i = 0; i < logits.size(); ++i) {
    logits[i] = logit(rng) + (int(i % size_t(p.experts)) == p.favourite ? 100.0f : 0.0f);
    if (p.tiedLogits)
      logits[i] = std::round(logits[i]);
  }
  out.assign(size_t(p.tokens) * size_t(p.hidden), kPoison);
  out.resize(out.size() + kGuardElements, kGuard);
}

MoeWorkspace::MoeWorkspace(const MoeProblem &p, MoeData &data)
    : bytes(moeLayout(p.tokens, p.hidden, p.intermediate, p.experts, p.topK).bytes / 8 + 1, 0x7fc07fc07fc07fc0ull),
      params(moeParams({p.tokens, p.hidden, p.intermediate, p.experts, p.topK, p.renormalize}, data.x.data(),
                       data.logits.data(), data.wGateUp.data(), data.wDown.data(), data.out.data(), bytes.data())) {}

std::string compareWithFloat64(const MoeProblem &p, const MoeData &d) {
  ref::MoeShape shape;
  shape.tokens = p.tokens;
  shape.hidden = p.hidden;
  shape.intermediate = p.intermediate;
  shape.experts = p.experts;
  shape.topK = p.topK;
  shape.renormalize = p.renormalize;
  const size_t outputs = size_t(p.tokens) * size_t(p.hidden);
  std::vector<double> ref(outputs);
  ref::moeF64(shape, widened(d.x, d.x.size()).data(), d.logits.data(), widened(d.wGateUp, d.wGateUp.size()).data(),
              widened(d.wDown, d.wDown.size()).data(), ref.data());
  std::ostringstream problems;
  int wrong = 0;
  for (int t = 0; t < p.tokens; ++t) {
    double squares = 0;
    for (int n = 0; n < p.hidden; ++n)
      squares += ref[size_t(t) * size_t(p.hidden) + size_t(n)] * ref[size_t(t) * size_t(p.hidden) + size_t(n)];
    const double rms = std::sqrt(squares / p.hidden);
    for (int n = 0; n < p.hidden; ++n) {
      const size_t i = size_t(t) * size_t(p.hidden) + size_t(n);
      const double value = argus_num::bf16_to_f32(d.out[i]);
      const double tolerance = std::ldexp(std::fabs(ref[i]), -8) + std::ldexp(rms, -6) + 1e-30;
      if (!(std::fabs(value - ref[i]) <= tolerance) && ++wrong <= 5)
        problems << p.describe() << ": out[" << t << "][" << n << "] = " << value << ", expected " << ref[i]
                 << " (tolerance " << tolerance << ")\n";
    }
  }
  return finishReport(problems.str(), wrong, d.out, outputs, p.describe(), "out");
}

} // namespace argus::gpu::test
