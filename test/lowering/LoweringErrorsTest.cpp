//===- LoweringErrorsTest.cpp - every lowering diagnostic, pinned ---------===//
//
// Each case is a small kernel with one mistake, the position the diagnostic
// must point at and a substring of its message.
//
//===----------------------------------------------------------------------===//
#include "LoweringTestUtil.h"

#include <gtest/gtest.h>

using namespace argus;

namespace {

struct ErrorCase {
  const char *name;
  const char *source;
  int line, col;
  const char *message;
};

// Line 1 of every source is the decorator line below unless the case starts
// with its own; bodies start on line 3.
#define K1 "@kernel(grid=(1,))\ndef k(X: Tensor[N, f32], s: f32, n: i32, BM: const = 16):\n"

const ErrorCase kCases[] = {
    {"UnknownName", K1 "    t = foo + 1\n", 3, 9, "unknown name 'foo'"},
    {"NoAnnotation", "@kernel(grid=(1,))\ndef k(X):\n    pass\n", 2, 7, "parameter 'X' needs an annotation"},
    {"BadAnnotation", "@kernel(grid=(1,))\ndef k(X: Tensr[N, f32]):\n    pass\n", 2, 10, "unknown parameter annotation for 'X'"},
    {"DuplicateParam", "@kernel(grid=(1,))\ndef k(X: Tensor[N, f32], X: f32):\n    pass\n", 2, 26, "duplicate parameter 'X'"},
    {"ConstNoDefault", "@kernel(grid=(1,))\ndef k(X: Tensor[N, f32], BM: const):\n    pass\n", 2, 26, "const parameter 'BM' has no default"},
    {"DtypeNotDtype", "@kernel(grid=(1,))\ndef k(X: Tensor[N, T], T: dtype = 3):\n    pass\n", 2, 24, "dtype parameter 'T' must be a dtype"},
    {"TensorNoDtype", "@kernel(grid=(1,))\ndef k(X: Tensor[N]):\n    pass\n", 2, 10, "expected Tensor[dim, ..., dtype]"},
    {"TensorBadDim", "@kernel(grid=(1,))\ndef k(X: Tensor[0, f32]):\n    pass\n", 2, 17, "tensor dimensions must be positive, got 0"},
    {"ScalarDefault", "@kernel(grid=(1,))\ndef k(s: f32 = 1.0):\n    pass\n", 2, 16, "only const and dtype parameters take defaults"},
    {"NoGrid", "@kernel(threads=1)\ndef k(X: Tensor[N, f32]):\n    pass\n", 1, 2, "@kernel needs grid=(...)"},
    {"GridTooMany", "@kernel(grid=(1, 1, 1, 1))\ndef k(X: Tensor[N, f32]):\n    pass\n", 1, 14, "grid must have 1 to 3 dimensions, got 4"},
    {"UnknownDecoratorArg", "@kernel(grid=(1,), blocks=2)\ndef k(X: Tensor[N, f32]):\n    pass\n", 1, 20, "unknown @kernel argument 'blocks'"},
    {"ThreadsRange", "@kernel(grid=(1,), threads=0)\ndef k(X: Tensor[N, f32]):\n    pass\n", 1, 28, "threads must lie in [1, 1024], got 0"},
    {"ReturnInKernel", K1 "    return 1\n", 3, 5, "kernels return nothing"},
    {"NestedDef", K1 "    def g(x):\n        pass\n", 3, 5, "nested functions are not supported"},
    {"StaticAssert", K1 "    assert BM % 32 == 0, \"BM must be a multiple of 32\"\n", 3, 5, "assertion failed: BM must be a multiple of 32"},
    {"AssertRuntime", K1 "    assert s > 0.0\n", 3, 12, "assert checks compile-time constants only"},
    {"IntDivision", K1 "    q = n / 2\n", 3, 9, "'/' on integers gives a float; use '//'"},
    {"ConstDivZero", K1 "    q = BM // 0\n", 3, 9, "division by zero in a constant expression"},
    {"ConstOverflow", K1 "    q = 9223372036854775807 + 1\n", 3, 9, "integer overflow in constant"},
    {"TileShapeNotConst", K1 "    t = zeros((n, 4), f32)\n", 3, 15, "expected a compile-time integer for the tile shape"},
    {"TileShapeZero", K1 "    t = zeros((0, 4), f32)\n", 3, 15, "the tile shape dimensions must be positive, got 0"},
    {"TensorReadIndexCount", K1 "    t = X[0, 1]\n", 3, 11, "reading one element of X takes 1 index, got 2"},
    {"TileRankMismatch", K1 "    t = load(X.tile((0, 0), (4, 4)))\n", 3, 14, "tensor 'X' has rank 1; tile() needs that many"},
    {"LoadWrongThing", K1 "    t = load(X)\n", 3, 14, "load() reads a tensor tile (A.tile(...)) or a buffer slot"},
    {"SegmentOffsetsNotATensor", K1 "    x = X.segment(n, 0)\n", 3, 19, "segment() takes the cumulative lengths as a tensor"},
    {"SegmentOffsetsNotIntegers", K1 "    x = X.segment(X, 0)\n", 3, 19, "segment() needs cumulative lengths of rank 1 and an integer type"},
    {"StoreWrongType", "@kernel(grid=(1,))\ndef k(X: Tensor[N, bf16]):\n    store(X.tile((0,), (4,)), zeros((4,), f32))\n", 3, 5,
     "element type differs from tensor 'X's; use cast(...)"},
    {"StoreWrongShape", K1 "    store(X.tile((0,), (4,)), zeros((8,), f32))\n", 3, 5, "shape differs from the destination tile's"},
    {"MmaK", K1 "    acc = mma(zeros((4, 8), f32), zeros((4, 16), f32), zeros((4, 4), f32))\n", 3, 11, "their K differ (8 and 16)"},
    {"MmaAcc", K1 "    acc = mma(zeros((4, 8), f32), zeros((2, 8), f32), zeros((4, 4), f32))\n", 3, 11, "acc must be 4 x 2"},
    {"MmaAccDtype", K1 "    acc = mma(zeros((4, 8), f32), zeros((2, 8), f32), zeros((4, 2), bf16))\n", 3, 55, "mma() accumulates in f32"},
    {"MixedTileTypes", K1 "    t = zeros((4,), f32) + zeros((4,), bf16)\n", 3, 9, "operands have different element types (f32 and bf16)"},
    {"NoBroadcast", K1 "    t = zeros((4, 3), f32) + zeros((4,), f32)\n", 3, 9, "tile shapes do not broadcast"},
    {"UnaryOnScalar", K1 "    t = exp(s)\n", 3, 13, "exp() applies to tiles"},
    {"LoopCarriedTypeChange", K1 "    t = zeros((4,), f32)\n    for i in range(n):\n        t = zeros((8,), f32)\n", 4, 5,
     "loop-carried 't' changes type inside the loop"},
    {"ForNotRange", K1 "    for i in [1, 2]:\n        pass\n", 3, 14, "expected range(...) or pipeline(...) after 'in'"},
    {"RangeOutsideFor", K1 "    r = range(4)\n", 3, 9, "range() is only allowed as the iterable of a for loop"},
    {"PipelineStages", K1 "    for i in pipeline(4, stages=0):\n        pass\n", 3, 33, "pipeline stages must lie in [1, 16], got 0"},
    {"IfBranchTypes", K1 "    t = zeros((4,), f32)\n    if s > 0.0:\n        t = zeros((8,), f32)\n", 4, 5,
     "'t' has different types in the two branches of the if"},
    {"UnknownKeyword", K1 "    t = zeros((4,), f32, fill=1)\n", 3, 26, "zeros() got an unexpected keyword argument 'fill'"},
    {"TooManyArgs", K1 "    t = cdiv(1, 2, 3)\n", 3, 9, "cdiv() takes 2 positional arguments, got 3"},
    {"NotCallable", K1 "    t = s(1)\n", 3, 9, "is not callable"},
    {"BadAttribute", K1 "    t = X.rows\n", 3, 11, "has no attribute 'rows'"},
    {"TupleUnpack", K1 "    a, b = 1, 2, 3\n", 3, 5, "expected 2 values to unpack, got 3"},
    {"AssignBuiltin", K1 "    f32 = 1\n", 3, 5, "cannot assign to the builtin name 'f32'"},
    {"TagArity", K1 "    tag(X, lambda m, k: (m, k))\n", 3, 12, "the tag function of a rank-1 value takes 1 coordinates, got 2"},
    {"TagNotLambda", K1 "    tag(X, 3)\n", 3, 12, "tag() needs a lambda"},
    {"AssertTagNoLambda", K1 "    t = zeros((4,), f32)\n    assert_tag(t, t)\n", 4, 5, "assert_tag() takes tiles then a lambda"},
    {"AssertTagNotCondition", K1 "    t = zeros((4,), f32)\n    assert_tag(t, lambda a: a.k)\n", 4, 29, "the assertion must be a condition"},
    {"SwizzleInvalid", K1 "    b = shared((64,), f32, layout=swizzle(3, 3, 1))\n", 3, 35, "invalid swizzle"},
    {"BufferTooManyIndices", K1 "    b = shared((4, 8), f32)\n    x = b[0, 1]\n", 4, 11, "a buffer slot needs fewer indices than the buffer's rank (2), got 2"},
    {"CopyShape", K1 "    b = shared((2, 8), f32)\n    copy(X.tile((0,), (4,)), b[0])\n", 4, 5, "the tile's shape differs from the buffer slot's"},
    {"GridAxis", K1 "    p = pid(3)\n", 3, 13, "grid axis must be 0, 1 or 2, got 3"},
    {"ModuleLevelStatement", "for i in range(3):\n    pass\n" K1 "    pass\n", 1, 1, "only imports, constant assignments and function definitions"},
    {"ModuleLevelRuntime", "X = load(1)\n" K1 "    pass\n", 1, 10, "load() reads a tensor tile"},
    {"ModuleLevelTile", "X = zeros((4,), f32)\n" K1 "    pass\n", 1, 1, "module-level assignments must be constants"},
    {"FloorDivOverflow", "X = (-9223372036854775807 - 1) // -1\n" K1 "    pass\n", 1, 5, "integer overflow in constant"},
    {"CdivOverflow", K1 "    q = cdiv(-9223372036854775807 - 1, -1)\n", 3, 9, "integer overflow in constant"},
    {"ShiftOverflow", K1 "    q = 3 << 62\n", 3, 9, "integer overflow in constant"},
    {"IntOfHugeFloat", K1 "    q = int(1e300)\n", 3, 9, "outside the range of a 64-bit integer"},
    {"ConstantDoesNotFit", K1 "    t = full((2, 2), 100000, i8)\n", 3, 22, "the constant 100000 does not fit in i8"},
    {"HugeTile", K1 "    t = zeros((100000, 100000), f32)\n", 3, 15, "holds more than 16777216 elements"},
    {"GridUsesPid", "@kernel(grid=(pid(0),))\ndef k(X: Tensor[N, f32]):\n    pass\n", 1, 15, "pid() cannot be used in grid=(...)"},
    {"ModuleTupleRuntime", "P = (pid(0), 3)\n" K1 "    pass\n", 1, 1, "module-level assignments must be constants"},
    {"RuntimeStep", K1 "    for i in range(0, 10, n):\n        pass\n", 3, 27, "expected a compile-time integer for a range step"},
    {"MaskedNotBool", K1 "    t = load(X.tile((0,), (4,)), masked=1)\n", 3, 41, "masked= expects a compile-time bool (True or False), got "},
    {"MaskedRuntime", K1 "    t = load(X.tile((0,), (4,)), masked=n > 0)\n", 3, 41, "masked= expects a compile-time bool (True or False), got "},
    {"StoreMaskedNotBool", K1 "    store(X.tile((0,), (4,)), zeros((4,), f32), masked=\"no\")\n", 3, 56, "masked= expects a compile-time bool"},
    {"CopyMaskedNotBool", K1 "    b = shared((2, 4), f32)\n    copy_async(X.tile((0,), (4,)), b[0], masked=0.0)\n", 4, 49, "masked= expects a compile-time bool"},
    {"PaddingUnmasked", K1 "    t = load(X.tile((0,), (4,)), padding=1.0, masked=False)\n", 3, 34, "padding= has no meaning with masked=False"},
    {"MaskedOnSlot", K1 "    b = shared((2, 4), f32)\n    t = b[0].load(masked=False)\n", 4, 19, "buffer slots are never masked"},
    {"MaskedOnSlotStore", K1 "    b = shared((2, 4), f32)\n    b[0].store(zeros((4,), f32), masked=True)\n", 4, 34, "buffer slots are never masked"},
    {"LayoutOnTensor", K1 "    t = load(X.tile((0,), (4,)), layout=swizzle(1, 0, 1))\n", 3, 34, "layout= views a buffer slot"},
    {"LayoutNotLayout", K1 "    b = shared((2, 4), f32)\n    t = b[0].load(layout=3)\n", 4, 26, "layout= expects layout(...) or swizzle(...), got "},
    {"ViewSizeMismatch", K1 "    b = shared((2, 8), f32)\n    t = b[1].load(layout=layout((4,), (1,)))\n", 4, 9, "view layout size 4 does not match the slot's 8 elements"},
    {"CopyKeyword", K1 "    b = shared((2, 4), f32)\n    copy(X.tile((0,), (4,)), b[0], layout=swizzle(1, 0, 1))\n", 4, 36, "copy() got an unexpected keyword argument 'layout'"},
    {"ScalarMix", K1 "    q = s + n\n", 3, 9, "cannot mix"},
    {"PrefetchLevel", K1 "    prefetch(X.tile((0,), (4,)), level=4)\n", 3, 40, "prefetch() level must be 1, 2 or 3 (a cache level), got 4"},
    {"PrefetchCoords", K1 "    prefetch(X, (0, 1))\n", 3, 17, "prefetch(A, coords) takes 1 to 1 leading coordinates of 'X', got 2"},
    {"PrefetchScalar", K1 "    prefetch(s)\n", 3, 14, "prefetch() takes a tensor tile (A.tile(...)) or a tensor and leading coordinates"},
    {"PriorityLevel", K1 "    priority(4)\n", 3, 14, "priority() takes a level from 0 (the default) to 3, got 4"},
    {"PriorityRuntime", K1 "    priority(n)\n", 3, 14, "expected a compile-time integer for priority()'s level"},
    {"ScheduleGroupKind", K1 "    schedule_group(\"mma\", 1)\n", 3, 20, "schedule_group() takes a kind: \"mfma\", \"valu\""},
    {"ScheduleGroupCount", K1 "    schedule_group(\"mfma\", 0)\n", 3, 28, "schedule_group() takes a count from 1 to 64, got 0"},
};

class LoweringErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LoweringErrors, PointAtTheMistake) {
  const ErrorCase &c = GetParam();
  test::Lowered l = test::lower(c.source);
  ASSERT_FALSE(l.error.empty()) << "accepted:\n" << c.source << "\n" << l.ir;
  std::string where = "t.argus:" + std::to_string(c.line) + ":" + std::to_string(c.col) + ": error: ";
  EXPECT_NE(l.error.find(where), std::string::npos) << "expected position " << where << " in:\n" << l.error;
  EXPECT_NE(l.error.find(c.message), std::string::npos) << "expected '" << c.message << "' in:\n" << l.error;
  EXPECT_NE(l.error.find("^"), std::string::npos) << "diagnostics show a caret under the column";
}

INSTANTIATE_TEST_SUITE_P(Diagnostics, LoweringErrors, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(LoweringErrors, SpecialisationOfUnknownConstant) {
  lowering::Specialization spec;
  spec.constants["BX"] = int64_t(4);
  EXPECT_NE(test::lower(K1 "    pass\n", spec).error.find("kernel 'k' has no const or dtype parameter 'BX'"), std::string::npos);
  lowering::Specialization dims;
  dims.dims["Q"] = 4;
  EXPECT_NE(test::lower(K1 "    pass\n", dims).error.find("kernel 'k' has no symbolic dimension 'Q'"), std::string::npos);
  lowering::Specialization dtype;
  dtype.constants["BM"] = std::string("bf16");
  EXPECT_NE(test::lower(K1 "    pass\n", dtype).error.find("is not a number"), std::string::npos);
}

TEST(LoweringErrors, ParseErrorsComeThroughFormatted) {
  test::Lowered l = test::lower("@kernel(grid=(1,))\ndef k(X: Tensor[N, f32]:\n    pass\n");
  EXPECT_NE(l.error.find("t.argus:2:"), std::string::npos) << l.error;
}

TEST(LoweringErrors, PowersOfSmallBasesFoldWithoutLooping) {
  // 1 ** (2**63 - 1) must fold at once, not loop 2**63 times.
  EXPECT_TRUE(test::lower("X = 1 ** 9223372036854775807\nY = (-1) ** 9223372036854775807\n" K1 "    pass\n").error.empty());
}

TEST(LoweringErrors, BooleansWidenToOne) {
  test::Lowered l = test::lower(K1 "    c = n > 0\n    q = int(c)\n    t = full((4,), float(q), f32)\n    store(X.tile((0,), (4,)), t)\n");
  ASSERT_TRUE(l.error.empty()) << l.error;
  EXPECT_NE(l.ir.find("arith.index_castui"), std::string::npos) << l.ir;
}

TEST(LoweringErrors, NoKernelInFile) {
  EXPECT_NE(test::lower("X = 1\n").error.find("defines no @kernel function"), std::string::npos);
}

} // namespace
