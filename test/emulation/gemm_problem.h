//===- gemm_problem.h - a bf16 GEMM problem and its float64 check ----------===//
//
// Fresh random bf16 (or f16) operands in [-1, 1) (or fp8 ones: every finite code, so
// [-240, 240] with subnormals) with padded pitches (lda, ldb past k;
// ldc = n + 3), C poisoned with NaN when beta is 0 (it must not be read and
// every element must be written), a sentinel in the padding of every row and
// in a guard row after the last, and an element-wise comparison against a
// float64 GEMM: |err| <= 2^-8 |ref| + 2^-16 (|alpha| sum |a b| + |beta c| + |bias|)
// (f16 rounds finer, 2^-11, and is held to the same bound).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_EMULATION_GEMM_PROBLEM_H
#define ARGUS_TEST_EMULATION_GEMM_PROBLEM_H

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace argus::gpu::test {

/// `count` bf16 (or f16) patterns of values uniform in [-range, range).
std::vector<uint16_t> randomBf16(size_t count, std::mt19937 &rng, bool f16 = false, float range = 1.0f);
/// A bf16 (or f16) pattern's value; `count` of them from v[first] on.
double widen(uint16_t bits, bool f16);
std::vector<double> widened(const std::vector<uint16_t> &v, size_t first, size_t count, bool f16);

/// What the attention and MoE problems write into an output before a run: a
/// bf16 NaN in every element, then kGuardElements of kGuard after the last.
inline constexpr uint16_t kPoison = 0x7fc0, kGuard = 0x1234;
inline constexpr int kGuardElements = 64;

/// Ends a comparison's report: a line per guard element after `outputs` in
/// `out` that was overwritten, then the total when more than 5 were wrong
/// (`wrong` counts the elements found wrong so far; 5 lines are printed).
std::string finishReport(std::string problems, int wrong, const std::vector<uint16_t> &out, size_t outputs,
                         const std::string &problem, const char *output);

/// The range of attention tests' queries: scores spread enough that the
/// softmax is far from uniform, so that a wrong scale, mask or key shows in
/// the output (with queries in [-1, 1) a 5% scale error hid in the tolerance).
inline constexpr float kQueryRange = 4.0f;

struct GemmProblem {
  int m, n, k;
  float alpha, beta;
  bool bias;
  bool f16 = false;  // f16 in and out instead of bf16
  bool fp8 = false;  // A and B gfx942's fp8 (E4M3FNUZ, any finite code), C and bias bf16

  int64_t lda() const { return (k + 7) / 8 * 8 + 8; }
  int64_t ldb() const { return (k + 7) / 8 * 8; }
  int64_t ldc() const { return n + 3; }
  std::string describe() const;
};

struct GemmData {
  std::vector<uint16_t> a, b, bias, c, c0;  // c: (m + 1) x ldc, c0 its initial contents
  std::vector<uint8_t> a8, b8;               // A and B of an fp8 problem (a and b then unused)

  GemmData(const GemmProblem &p, std::mt19937 &rng);
  const uint16_t *biasOrNull(const GemmProblem &p) const { return p.bias ? bias.data() : nullptr; }
};

/// The first few problems with `data.c` ("" when every element is within
/// tolerance and padding and guard row are untouched).
std::string compareWithFloat64(const GemmProblem &p, const GemmData &data);

} // namespace argus::gpu::test

#endif // ARGUS_TEST_EMULATION_GEMM_PROBLEM_H
