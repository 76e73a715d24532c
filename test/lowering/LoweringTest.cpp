//===- LoweringTest.cpp - what the DSL lowers to --------------------------===//
#include "LoweringTestUtil.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace argus;

namespace {

std::string gemmTemplate() {
  std::ifstream in(std::string(ARGUS_SOURCE_DIR) + "/templates/gemm/gemm_tn.argus");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool contains(const std::string &text, const std::string &what) { return text.find(what) != std::string::npos; }

TEST(Lowering, GemmTemplateDefaults) {
  test::Lowered l = test::lower(gemmTemplate());
  ASSERT_TRUE(l.error.empty()) << l.error;
  EXPECT_TRUE(contains(l.ir, "func.func @gemm_tn__grid")) << l.ir;
  EXPECT_TRUE(contains(l.ir, "argus.grid = @gemm_tn__grid"));
  EXPECT_TRUE(contains(l.ir, "argus.reference = \"gemm_tn\""));
  EXPECT_TRUE(contains(l.ir, "argus.arg_names = [\"A\", \"B\", \"C\", \"bias\", \"alpha\", \"beta\", \"has_bias\"]"));
  EXPECT_TRUE(contains(l.ir, "argus.symbols = {K = [[0, 1], [1, 1]], M = [[0, 0], [2, 0]], N = [[1, 0], [2, 1], [3, 0]]}"));
  // Every const and dtype parameter's value, defaults included (a library manifest's "parameters").
  EXPECT_TRUE(contains(l.ir, "argus.constants = {BK = 128 : i64, BM = 32 : i64, BN = 64 : i64, TA = \"f32\", TC = \"f32\"}"))
      << l.ir;
  EXPECT_TRUE(contains(l.ir, "iter_args")) << "acc must be loop-carried";
  EXPECT_TRUE(contains(l.ir, "argus.mma")) << l.ir;
  EXPECT_TRUE(contains(l.ir, "<32x128xf32>")) << "BM x BK tile of A";
  EXPECT_TRUE(contains(l.ir, "argus.assert_tag"));
  EXPECT_TRUE(contains(l.ir, "argus.tag_get %arg9[\"k\"]")) << l.ir;
  EXPECT_TRUE(contains(l.ir, "scf.if")) << "beta and bias are run-time conditions";
}

TEST(Lowering, SpecialisationChangesTypesAndPinsDims) {
  lowering::Specialization spec;
  spec.constants = {{"TA", std::string("bf16")}, {"TC", std::string("bf16")}, {"BM", int64_t(4)}};
  spec.dims = {{"N", 4096}, {"K", 1024}};
  test::Lowered l = test::lower(gemmTemplate(), spec);
  ASSERT_TRUE(l.error.empty()) << l.error;
  EXPECT_TRUE(contains(l.ir, "!argus.tensor<4096x1024xbf16>")) << l.ir;
  EXPECT_TRUE(contains(l.ir, "!argus.tensor<?x1024xbf16>"));
  EXPECT_TRUE(contains(l.ir, "<4x128xbf16>"));
  EXPECT_TRUE(contains(l.ir, "argus.constants = {BK = 128 : i64, BM = 4 : i64, BN = 64 : i64, TA = \"bf16\", TC = \"bf16\"}"));
  EXPECT_FALSE(contains(l.ir, "argus.dim %arg1")) << "pinned dims fold to constants";
}

TEST(Lowering, ConstantIfLowersOneBranchOnly) {
  test::Lowered l = test::lower(R"(
@kernel(grid=(1,))
def k(X: Tensor[N, f32], FAST: const = 1):
    t = load(X.tile((0,), (16,)))
    if FAST == 1:
        t = exp(t)
    else:
        t = log(t)
    store(X.tile((0,), (16,)), t)
)");
  ASSERT_TRUE(l.error.empty()) << l.error;
  EXPECT_TRUE(contains(l.ir, "argus.unary exp"));
  EXPECT_FALSE(contains(l.ir, "argus.unary log"));
  EXPECT_FALSE(contains(l.ir, "scf.if"));
}

TEST(Lowering, RunTimeIfYieldsChangedVariables) {
  test::Lowered l = test::lower(R"(
@kernel(grid=(1,))
def k(X: Tensor[N, f32], s: f32):
    t = load(X.tile((0,), (16,)))
    n = 3
    if s > 0.0:
        t = t * s
    store(X.tile((0,), (16,)), t)
)");
  ASSERT_TRUE(l.error.empty()) << l.error;
  EXPECT_TRUE(contains(l.ir, "scf.if %")) << l.ir;
  EXPECT_TRUE(contains(l.ir, "-> (!argus.tile<16xf32>)")) << l.ir;
}

TEST(Lowering, PipelineLoopsCarryTheirStages) {
  test::Lowered l = test::lower(R"(
@kernel(grid=(1,))
def k(X: Tensor[M, K, bf16], Y: Tensor[M, K, bf16], S: const = 3):
    sa = shared((S, 16, 64), bf16, layout=swizzle(3, 3, 3))
    for kt in pipeline(cdiv(K, 64), stages=S):
        copy_async(X.tile((0, kt), (16, 64)), sa[kt % S])
        wait(S - 1)
        a = sa[kt % S].load()
        store(Y.tile((0, kt), (16, 64)), a)
    reset_tags(sa)
)");
  ASSERT_TRUE(l.error.empty()) << l.error;
  EXPECT_TRUE(contains(l.ir, "argus.pipeline_stages = 3")) << l.ir;
  EXPECT_TRUE(contains(l.ir, "3x16x64xbf16, shared, #argus.swizzle<3, 3, 3>>"));
  EXPECT_TRUE(contains(l.ir, "argus.copy async"));
  EXPECT_TRUE(contains(l.ir, "argus.wait 2"));
  EXPECT_TRUE(contains(l.ir, "argus.reset_tags"));
}

TEST(Lowering, ElementwiseReductionsAndMasks) {
  test::Lowered l = test::lower(R"(
@kernel(grid=(cdiv(M, 8),), threads=1)
def softmax(X: Tensor[M, N, f32], Y: Tensor[M, N, f32], BN: const = 64):
    x = load(X.tile((pid(0), 0), (8, BN)), padding=-1e30)
    cols = iota((8, BN), 1)
    rows = iota((8, BN), 0)
    x = where(cols <= rows + 100, x, -1e30)
    m = reduce_max(x, axis=1)
    e = exp(x - m)
    y = e / reduce_sum(e, axis=1)
    store(Y.tile((pid(0), 0), (8, BN)), y)
)");
  ASSERT_TRUE(l.error.empty()) << l.error;
  for (const char *op : {"argus.iota 1", "argus.cmp le", "argus.select", "argus.reduce max", "argus.reduce sum",
                         "argus.unary exp", "argus.binary div", "padding = -1.000000e+30"})
    EXPECT_TRUE(contains(l.ir, op)) << op << "\n" << l.ir;
}

// x + mma(a, b, zeros) accumulates onto x (one mma, no zero tile, no add);
// an mma onto a non-zero tile, or one with a second use, stays as written.
TEST(Lowering, SumsOfZeroStartedProductsAccumulateInPlace) {
  test::Lowered l = test::lower(R"(
@kernel(grid=(1,), threads=1)
def k(A: Tensor[16, 32, bf16], B: Tensor[16, 32, bf16], Y: Tensor[16, 16, f32], Z: Tensor[16, 16, f32], s: f32):
    a = load(A.tile((0, 0), (16, 32)))
    b = load(B.tile((0, 0), (16, 32)))
    x = load(Y.tile((0, 0), (16, 16))) * s
    store(Y.tile((0, 0), (16, 16)), x + mma(a, b, zeros((16, 16), f32)))
    p = mma(a, b, zeros((16, 16), f32))
    store(Z.tile((0, 0), (16, 16)), (p + x) * p)
)");
  ASSERT_TRUE(l.error.empty()) << l.error;
  auto count = [&](const std::string &what) {
    size_t n = 0;
    for (size_t at = l.ir.find(what); at != std::string::npos; at = l.ir.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("argus.mma"), 2u) << l.ir;
  EXPECT_EQ(count("argus.binary add"), 1u) << "only the product with two uses keeps its add\n" << l.ir;
  EXPECT_TRUE(contains(l.ir, "argus.binary mul")) << l.ir;
}

TEST(Lowering, ModuleConstantsAndTupleAssignments) {
  test::Lowered l = test::lower(R"(
from argus import *
TILE = 32
@kernel(grid=(cdiv(N, TILE),))
def k(X: Tensor[N, f32]):
    a, b = TILE // 2, TILE * 2
    assert a * 4 == b, "tuple assignment"
    t = load(X.tile((pid(0),), (TILE,)))
    store(X.tile((pid(0),), (TILE,)), t + float(a))
)");
  EXPECT_TRUE(l.error.empty()) << l.error;
}

TEST(Lowering, UnmaskedAccessesAndSlotViews) {
  test::Lowered l = test::lower(R"(
@kernel(grid=(1,))
def k(X: Tensor[M, K, bf16], Y: Tensor[M, K, bf16]):
    sa = shared((2, 16, 64), bf16, layout=swizzle(3, 3, 3))
    sb = shared((2, 16, 64), bf16)
    copy_async(X.tile((0, 0), (16, 64)), sa[0], masked=False)
    copy(X.tile((0, 1), (16, 64)), sb[1], masked=False)
    wait(0)
    a = sa[0].load(layout=swizzle(2, 3, 3))
    b = load(sb[1], layout=layout((16, 64), (64, 1)))
    sb[0].store(a, layout=swizzle(3, 3, 3))
    store(sb[1], b, layout=None)
    c = load(X.tile((1, 0), (16, 64)), masked=False)
    d = load(X.tile((1, 1), (16, 64)), masked=True, padding=2.0)
    store(Y.tile((0, 0), (16, 64)), c + d, masked=False)
    store(Y.tile((1, 0), (16, 64)), sb[0].load(), masked=True)
)");
  ASSERT_TRUE(l.error.empty()) << l.error;
  EXPECT_TRUE(contains(l.ir, "argus.copy async unmasked")) << l.ir;
  EXPECT_TRUE(contains(l.ir, "argus.copy unmasked"));
  EXPECT_TRUE(contains(l.ir, "argus.load unmasked"));
  EXPECT_TRUE(contains(l.ir, "argus.store unmasked"));
  EXPECT_TRUE(contains(l.ir, "{padding = 2.000000e+00 : f64}")) << "masked=True keeps the padding";
  EXPECT_TRUE(contains(l.ir, "view(#argus.swizzle<2, 3, 3>) : <2x16x64xbf16, shared, #argus.swizzle<3, 3, 3>>"));
  EXPECT_TRUE(contains(l.ir, "view(#argus.layout<(16, 64):(64, 1)>)"));
  EXPECT_TRUE(contains(l.ir, "view(#argus.swizzle<3, 3, 3>) : <16x64xbf16>, <2x16x64xbf16, shared>"));
  auto count = [&](const std::string &what) {
    size_t n = 0;
    for (size_t at = l.ir.find(what); at != std::string::npos; at = l.ir.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("unmasked"), 4u) << "masked=True and the default stay masked:\n" << l.ir;
  EXPECT_EQ(count(" view("), 3u) << "layout=None is no view:\n" << l.ir;
}

TEST(Lowering, ChoosesKernelByName) {
  const char *src = R"(
@kernel(grid=(1,))
def first(X: Tensor[N, f32]):
    pass
@kernel(grid=(1,))
def second(X: Tensor[N, f32]):
    pass
)";
  EXPECT_TRUE(contains(test::lower(src, {}, "second").ir, "@second"));
  EXPECT_TRUE(contains(test::lower(src).error, "several kernels"));
  EXPECT_TRUE(contains(test::lower(src, {}, "third").error, "no @kernel named 'third' (the file defines: first, second)"));
}

} // namespace
