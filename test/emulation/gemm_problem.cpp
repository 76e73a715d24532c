//===- gemm_problem.cpp - bf16 GEMM problems against float64 ---------------===//
#include "gemm_problem.h"

#include "argus_numerics.h"

#include <cmath>
#include <sstream>

namespace argus::gpu::test {
namespace {

constexpr uint16_t kNaN = 0x7fc0, kNaNF16 = 0x7e00, kPadding = 0x1234;

} // namespace

double widen(uint16_t bits, bool f16) { return f16 ? argus_num::f16_to_f32(bits) : argus_num::bf16_to_f32(bits); }

std::vector<double> widened(const std::vector<uint16_t> &v, size_t first, size_t count, bool f16) {
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i)
    out[i] = widen(v[first + i], f16);
  return out;
}

std::vector<uint16_t> randomBf16(size_t count, std::mt19937 &rng, bool f16, float range) {
  std::uniform_real_distribution<float> value(-range, range);
  std::vector<uint16_t> v(count);
  for (uint16_t &x : v)
    x = f16 ? argus_num::f32_to_f16(value(rng)) : argus_num::f32_to_bf16(value(rng));
  return v;
}

namespace {

// `count` random finite fp8 codes (every code but 0x80, NaN).
std::vector<uint8_t> randomFp8(size_t count, std::mt19937 &rng) {
  std::uniform_int_distribution<int> code(0, 254);
  std::vector<uint8_t> v(count);
  for (uint8_t &x : v) {
    const int c = code(rng);
    x = uint8_t(c < 0x80 ? c : c + 1);
  }
  return v;
}

} // namespace

std::string GemmProblem::describe() const {
  std::ostringstream os;
  os << (f16 ? "f16 " : fp8 ? "fp8 " : "") << "m=" << m << " n=" << n << " k=" << k << " alpha=" << alpha << " beta=" << beta
     << (bias ? " bias" : "");
  return os.str();
}

GemmData::GemmData(const GemmProblem &p, std::mt19937 &rng)
    : a(randomBf16(size_t(p.m) * size_t(p.lda()), rng, p.f16)), b(randomBf16(size_t(p.n) * size_t(p.ldb()), rng, p.f16)),
      bias(randomBf16(size_t(p.n), rng, p.f16)), c(randomBf16(size_t(p.m + 1) * size_t(p.ldc()), rng, p.f16)) {
  for (int64_t row = 0; row <= p.m; ++row)
    for (int64_t col = 0; col < p.ldc(); ++col) {
      uint16_t &x = c[size_t(row * p.ldc() + col)];
      if (col >= p.n || row == p.m)
        x = kPadding;
      else if (p.beta == 0.0f)
        x = p.f16 ? kNaNF16 : kNaN;
    }
  c0 = c;
  if (p.fp8) {
    a8 = randomFp8(a.size(), rng);
    b8 = randomFp8(b.size(), rng);
  }
}

std::string finishReport(std::string problems, int wrong, const std::vector<uint16_t> &out, size_t outputs,
                         const std::string &problem, const char *output) {
  for (size_t i = outputs; i < out.size(); ++i)
    if (out[i] != kGuard && ++wrong <= 5)
      problems += problem + ": guard element " + std::to_string(i - outputs) + " after " + output + " overwritten\n";
  if (wrong > 5)
    problems += "... " + std::to_string(wrong) + " wrong elements in all\n";
  return problems;
}

std::string compareWithFloat64(const GemmProblem &p, const GemmData &d) {
  auto f = [&](uint16_t bits) { return widen(bits, p.f16); };
  std::ostringstream problems;
  int wrong = 0;
  for (int64_t row = 0; row <= p.m; ++row)
    for (int64_t col = 0; col < p.ldc(); ++col) {
      const size_t at = size_t(row * p.ldc() + col);
      if (col >= p.n || row == p.m) {
        if (d.c[at] != kPadding && ++wrong <= 5)
          problems << p.describe() << ": padding or guard element [" << row << "][" << col << "] overwritten\n";
        continue;
      }
      double sum = 0, scale = 0;
      for (int64_t i = 0; i < p.k; ++i) {
        const size_t ai = size_t(row * p.lda() + i), bi = size_t(col * p.ldb() + i);
        const double product = p.fp8 ? argus_num::fp8_e4m3fnuz_to_f32(d.a8[ai]) * argus_num::fp8_e4m3fnuz_to_f32(d.b8[bi])
                                     : f(d.a[ai]) * f(d.b[bi]);
        sum += product;
        scale += std::fabs(product);
      }
      double ref = p.alpha * sum;
      scale *= std::fabs(p.alpha);
      if (p.beta != 0.0f) {
        ref += p.beta * f(d.c0[at]);
        scale += std::fabs(p.beta * f(d.c0[at]));
      }
      if (p.bias) {
        ref += f(d.bias[size_t(col)]);
        scale += std::fabs(f(d.bias[size_t(col)]));
      }
      const double value = f(d.c[at]);
      // bf16 output rounding (2^-8 relative) plus f32 accumulation over k terms.
      const double tolerance = std::ldexp(std::fabs(ref), -8) + std::ldexp(scale, -16) + 1e-30;
      if (!(std::fabs(value - ref) <= tolerance) && ++wrong <= 5)
        problems << p.describe() << ": C[" << row << "][" << col << "] = " << value << ", expected " << ref
                 << " (tolerance " << tolerance << ")\n";
    }
  if (wrong > 5)
    problems << "... " << wrong << " wrong elements in all\n";
  return problems.str();
}

} // namespace argus::gpu::test
