//===- MagnitudeTest.cpp - attention outputs judged by their error's scale -===//
//
// Causal attention's first rows average a few values and its last rows
// thousands, so |expected| + rms(expected) is the wrong scale for the error
// of an early row: an error bf16 rounding of the probabilities can make
// there fails that rule. The attention references give each output element
// the magnitude of the terms it sums (sum_j p_j |v_j|), and the harness
// compares against it: the same error passes, a larger one still fails.
//
//===----------------------------------------------------------------------===//
#include "argus/Reference/KernelHarness.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace argus;

namespace {

TEST(Magnitude, CausalAttentionEarlyRowsAreJudgedByTheirOwnScale) {
  const int64_t S = 512, D = 64;
  const ref::Reference &reference = *ref::findReference("attention_prefill");
  ASSERT_TRUE(reference.magnitudes);
  auto tensor = [](const char *name, std::vector<int64_t> shape) {
    return ref::HarnessArg{name, true, ref::ElementType::F32, shape, 0};
  };
  std::vector<ref::RefArg> args(6);
  {
    ref::KernelHarness harness;
    ASSERT_EQ(harness.prepare(reference,
                              {tensor("Q", {S, 1, D}), tensor("K", {S, 1, D}), tensor("V", {S, 1, D}),
                               tensor("O", {S, 1, D}), {"scale", false, ref::ElementType::F32, {}, 0.125},
                               {"causal", false, ref::ElementType::I32, {}, 1}},
                              7),
              "");
    for (size_t i = 0; i < args.size(); ++i) {
      args[i].name = harness.args()[i].name;
      args[i].isTensor = harness.args()[i].isTensor;
      args[i].shape = harness.args()[i].shape;
      args[i].scalar = harness.args()[i].scalar;
      if (ref::HostTensor *t = harness.tensor(i)) args[i].data = t->toDoubles();
    }
  }
  std::vector<ref::RefArg> expected = args;
  reference.compute(expected);
  const std::vector<double> &o = expected[3].data;
  std::vector<double> magnitude = reference.magnitudes(expected).at("O");
  ASSERT_EQ(magnitude.size(), o.size());
  for (size_t i = 0; i < o.size(); ++i) ASSERT_GE(magnitude[i], std::fabs(o[i]) * (1 - 1e-12));
  // Rows 1-7 see two to eight keys: their magnitudes are about 0.5, against
  // an rms of the whole output near 0.05; take the element among them where
  // the two scales differ most (values of opposite signs nearly cancel).
  double sumSq = 0;
  for (double e : o) sumSq += e * e;
  const double rms = std::sqrt(sumSq / double(o.size())), tol = 0.016;
  size_t at = D;
  for (size_t i = D; i < size_t(8 * D); ++i)
    if (magnitude[i] / (std::fabs(o[i]) + rms) > magnitude[at] / (std::fabs(o[at]) + rms)) at = i;
  ASSERT_GT(magnitude[at], 4 * rms);

  ref::HostTensor got(ref::ElementType::F64, {S, 1, D});
  auto withError = [&](double error) {
    for (size_t i = 0; i < o.size(); ++i) got.set(int64_t(i), o[i]);
    got.set(int64_t(at), o[at] + error);
  };
  // An error half the tolerance of its magnitude, but several times that of |e| + rms.
  const double small = 0.5 * tol * magnitude[at];
  ASSERT_GT(small, tol * (std::fabs(o[at]) + rms));
  withError(small);
  EXPECT_GE(ref::compare(got, o, tol).mismatches, 1) << "the rms rule misjudges the early row";
  EXPECT_EQ(ref::compare(got, o, tol, &magnitude).mismatches, 0);
  // Twice the tolerance of its magnitude fails either way.
  withError(2 * tol * magnitude[at]);
  ref::Mismatch m = ref::compare(got, o, tol, &magnitude);
  EXPECT_EQ(m.mismatches, 1);
  EXPECT_EQ(m.index, int64_t(at));
}

} // namespace
