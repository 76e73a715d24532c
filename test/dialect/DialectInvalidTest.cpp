//===- DialectInvalidTest.cpp - every verifier diagnostic, triggered ------===//
#include "DialectTestUtil.h"

#include <gtest/gtest.h>

using namespace argus;

namespace {

struct InvalidCase {
  const char *name;
  const char *body;     // placed inside a kernel with %A, %B, %C and constants
  const char *expected; // substring of the diagnostic
};

std::string wrap(const char *body) {
  return std::string(R"(func.func @k(%A: !argus.tensor<?x?xf32>, %B: !argus.tensor<?x?xbf16>, %C: !argus.tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %t = argus.full %f : f32 -> !argus.tile<4x8xf32>
)") + body + "\n  return\n}\n";
}

const InvalidCase kCases[] = {
    {"DimOutOfRange", "%d = argus.dim %A, 2 : !argus.tensor<?x?xf32>", "dimension 2 out of range for a rank-2 tensor"},
    {"GridAxis", "%p = argus.program_id 3", "grid axis must be 0, 1 or 2, got 3"},
    {"NumProgramsAxis", "%p = argus.num_programs -1", "grid axis must be 0, 1 or 2, got -1"},
    {"ReadIndices", "%x = argus.read %A[%c0] : !argus.tensor<?x?xf32> -> f32", "expected 2 indices, got 1"},
    {"ReadType", "%x = argus.read %B[%c0, %c0] : !argus.tensor<?x?xbf16> -> f32", "expected result type 'bf16' (the tensor's element type), got 'f32'"},
    {"PrefetchRank", "argus.prefetch %A[%c0, %c0] [4] : !argus.tensor<?x?xf32>", "expected 2 offsets and a shape of rank 2, got 2 offsets and rank 1"},
    {"PrefetchSize", "argus.prefetch %A[%c0, %c0] [4, 0] : !argus.tensor<?x?xf32>", "shape dimensions must be positive or ? (the whole dimension), got 0"},
    {"PrefetchLevel", "argus.prefetch %A[%c0, %c0] [4, ?] {level = 4 : i64} : !argus.tensor<?x?xf32>", "level must be 1, 2 or 3 (a cache level), got 4"},
    {"LoadOffsets", "%x = argus.load %A[%c0] : !argus.tensor<?x?xf32> -> !argus.tile<4x8xf32>", "expected 2 offsets, got 1"},
    {"LoadRank", "%x = argus.load %C[%c0] : !argus.tensor<?xf32> -> !argus.tile<4x8xf32>", "expected a rank-1 tile, got rank 2"},
    {"LoadElement", "%x = argus.load %B[%c0, %c0] : !argus.tensor<?x?xbf16> -> !argus.tile<4x8xf32>", "expected element type 'bf16', got 'f32'"},
    {"StoreElement", "argus.store %t, %B[%c0, %c0] : !argus.tile<4x8xf32>, !argus.tensor<?x?xbf16>", "expected element type 'bf16'"},
    {"FullScalarType", "%i = arith.constant 1 : i32\n  %x = argus.full %i : i32 -> !argus.tile<4xf32>", "expected a scalar of type 'f32', got 'i32'"},
    {"IotaDim", "%x = argus.iota 2 : !argus.tile<4x8xi32>", "dimension 2 out of range for a rank-2 tile"},
    {"IotaType", "%x = argus.iota 0 : !argus.tile<4x8xf32>", "expected an i32 tile"},
    {"MmaK", "%a = argus.full %f : f32 -> !argus.tile<4x16xf32>\n  %x = argus.mma %a, %t, %t : !argus.tile<4x16xf32>, !argus.tile<4x8xf32>, !argus.tile<4x8xf32>", "to share K, got 16 and 8"},
    {"MmaAccShape", "%x = argus.mma %t, %t, %t : !argus.tile<4x8xf32>, !argus.tile<4x8xf32>, !argus.tile<4x8xf32>", "expected accumulator shape [4, 4], got [4, 8]"},
    {"MmaAccType", "%h = arith.constant 1.0 : bf16\n  %acc = argus.full %h : bf16 -> !argus.tile<4x4xbf16>\n  %x = argus.mma %t, %t, %acc : !argus.tile<4x8xf32>, !argus.tile<4x8xf32>, !argus.tile<4x4xbf16>", "expected an f32 accumulator"},
    {"BinaryBroadcast", "%u = argus.full %f : f32 -> !argus.tile<3xf32>\n  %x = argus.binary add %t, %u : !argus.tile<4x8xf32>, !argus.tile<3xf32> -> !argus.tile<4x8xf32>", "do not broadcast"},
    {"BinaryResultShape", "%x = argus.binary add %t, %f : !argus.tile<4x8xf32>, f32 -> !argus.tile<4x4xf32>", "expected result shape [4, 8], got [4, 4]"},
    {"BinaryElement", "%i = arith.constant 1 : i32\n  %x = argus.binary add %t, %i : !argus.tile<4x8xf32>, i32 -> !argus.tile<4x8xf32>", "expected one element type"},
    {"UnaryFloat", "%i = argus.iota 0 : !argus.tile<4x8xi32>\n  %x = argus.unary exp %i : !argus.tile<4x8xi32>", "'exp' needs a floating-point tile"},
    {"CmpResult", "%x = argus.cmp lt %t, %t : !argus.tile<4x8xf32>, !argus.tile<4x8xf32> -> !argus.tile<4x8xf32>", "expected an i1 result"},
    {"SelectCondition", "%x = argus.select %t, %t, %t : !argus.tile<4x8xf32>, !argus.tile<4x8xf32>, !argus.tile<4x8xf32> -> !argus.tile<4x8xf32>", "expected an i1 condition"},
    {"ReduceNegativeAxis", "%x = argus.reduce sum %t, -1 : !argus.tile<4x8xf32> -> !argus.tile<4x1xf32>", "axis -1 out of range"},
    {"DimNegative", "%d = argus.dim %A, -1 : !argus.tensor<?x?xf32>", "dimension -1 out of range"},
    {"ReduceAxis", "%x = argus.reduce sum %t, 2 : !argus.tile<4x8xf32> -> !argus.tile<4x1xf32>", "axis 2 out of range"},
    {"ReduceResult", "%x = argus.reduce sum %t, 1 : !argus.tile<4x8xf32> -> !argus.tile<4xf32>", "expected result '!argus.tile<4x1xf32>'"},
    {"CastShape", "%x = argus.cast %t : !argus.tile<4x8xf32> to !argus.tile<8x4xbf16>", "expected result shape [4, 8], got [8, 4]"},
    {"TransposeShape", "%x = argus.transpose %t : !argus.tile<4x8xf32> -> !argus.tile<4x8xf32>", "expected result '!argus.tile<8x4xf32>'"},
    {"ReshapeCount", "%x = argus.reshape %t : !argus.tile<4x8xf32> -> !argus.tile<30xf32>", "expected 32 elements, got 30"},
    {"BinaryBoolean", "%i = argus.iota 0 : !argus.tile<4x8xi32>\n  %m = argus.cmp lt %i, %i : !argus.tile<4x8xi32>, !argus.tile<4x8xi32> -> !argus.tile<4x8xi1>\n  %x = argus.binary max %m, %m : !argus.tile<4x8xi1>, !argus.tile<4x8xi1> -> !argus.tile<4x8xi1>", "is not defined on i1 (boolean) elements"},
    {"CmpBooleanOrder", "%i = argus.iota 0 : !argus.tile<4x8xi32>\n  %m = argus.cmp lt %i, %i : !argus.tile<4x8xi32>, !argus.tile<4x8xi32> -> !argus.tile<4x8xi1>\n  %x = argus.cmp lt %m, %m : !argus.tile<4x8xi1>, !argus.tile<4x8xi1> -> !argus.tile<4x8xi1>", "compare booleans with eq or ne"},
    {"ReduceBoolean", "%i = argus.iota 0 : !argus.tile<4x8xi32>\n  %m = argus.cmp lt %i, %i : !argus.tile<4x8xi32>, !argus.tile<4x8xi32> -> !argus.tile<4x8xi1>\n  %x = argus.reduce sum %m, 1 : !argus.tile<4x8xi1> -> !argus.tile<4x1xi1>", "reduce a cast of it instead"},
    {"WaitPending", "argus.wait -1", "pending count must be >= 0, got -1"},
    {"BufferSlotIndices", "%b = argus.alloc : !argus.buffer<2x4x8xf32, shared>\n  %x = argus.buffer_load %b[] : !argus.buffer<2x4x8xf32, shared> -> !argus.tile<4x8xf32>", "expected 1 buffer indices for a rank-2 tile in a rank-3 buffer, got 0"},
    {"BufferSlotShape", "%b = argus.alloc : !argus.buffer<2x4x4xf32, shared>\n  argus.buffer_store %t, %b[%c0] : !argus.tile<4x8xf32>, !argus.buffer<2x4x4xf32, shared>", "expected tile shape [4, 4] to match the buffer slot, got [4, 8]"},
    {"CopyElement", "%b = argus.alloc : !argus.buffer<2x4x8xf32, shared>\n  argus.copy %B[%c0, %c0], %b[%c0] : !argus.tensor<?x?xbf16>, !argus.buffer<2x4x8xf32, shared>", "expected buffer element type 'bf16', got 'f32'"},
    {"CopyIndices", "%b = argus.alloc : !argus.buffer<2x4x8xf32, shared>\n  argus.copy %A[%c0, %c0], %b[] : !argus.tensor<?x?xf32>, !argus.buffer<2x4x8xf32, shared>", "expected 1 buffer indices to copy a rank-2 tile, got 0"},
    {"BufferSpace", "%b = argus.alloc : !argus.buffer<4xf32, global>", "expected memory space 'shared' or 'local', got 'global'"},
    {"BufferLayoutSize", "%b = argus.alloc : !argus.buffer<4x8xf32, shared, #argus.layout<(4,4):(4,1)>>", "buffer layout size 16 does not match the buffer's 32 elements"},
    {"LayoutCongruence", "%b = argus.alloc : !argus.buffer<4x8xf32, shared, #argus.layout<(4,8):(8,(1,2))>>", "layout shape and stride must have the same nesting"},
    {"SwizzleShift", "%b = argus.alloc : !argus.buffer<64xf32, shared, #argus.swizzle<3,3,2>>", "swizzle |shift| must be >= bits (3), got 2"},
    {"TileZeroDim", "%x = argus.full %f : f32 -> !argus.tile<0x8xf32>", "tile dimensions must be positive, got 0"},
    {"UnmaskedPadding", "%x = argus.load unmasked %A[%c0, %c0] {padding = 2.0 : f64} : !argus.tensor<?x?xf32> -> !argus.tile<4x8xf32>", "an unmasked load reads no padding, got padding 2"},
    {"ViewNotALayout", "%b = argus.alloc : !argus.buffer<2x4x8xf32, shared>\n  %x = argus.buffer_load %b[%c0] view(3 : i64) : !argus.buffer<2x4x8xf32, shared> -> !argus.tile<4x8xf32>", "attribute 'view' failed to satisfy constraint"},
    {"ViewLayoutSize", "%b = argus.alloc : !argus.buffer<2x4x8xf32, shared>\n  %x = argus.buffer_load %b[%c0] view(#argus.layout<(8,8):(8,1)>) : !argus.buffer<2x4x8xf32, shared> -> !argus.tile<4x8xf32>", "view layout size 64 does not match the slot's 32 elements"},
    {"ViewLayoutReach", "%b = argus.alloc : !argus.buffer<2x4x8xf32, shared>\n  argus.buffer_store %t, %b[%c0] view(#argus.layout<(4,8):(16,1)>) : !argus.tile<4x8xf32>, !argus.buffer<2x4x8xf32, shared>", "view layout reaches offset 55, outside the slot's 32 elements"},
    {"ViewSwizzleLeavesSlot", "%b = argus.alloc : !argus.buffer<2x3xf32, shared>\n  %x = argus.buffer_load %b[%c0] view(#argus.swizzle<1,0,1>) : !argus.buffer<2x3xf32, shared> -> !argus.tile<3xf32>", "view swizzle maps slot element 2 to offset 3, outside the slot's 3 elements"},
    {"ViewSwizzleWide", "%b = argus.alloc : !argus.buffer<2x4x8xf32, shared>\n  %x = argus.buffer_load %b[%c0] view(#argus.swizzle<3,3,60>) : !argus.buffer<2x4x8xf32, shared> -> !argus.tile<4x8xf32>", "view swizzle spans 66 address bits; expected at most 48"},
    {"TagArity", "argus.tag %A names [\"m\"] : !argus.tensor<?x?xf32> {\n  ^bb0(%i: index):\n    argus.yield %i : index\n  }", "expected 2 coordinate arguments, got 1"},
    {"TagNames", "argus.tag %A names [\"m\"] : !argus.tensor<?x?xf32> {\n  ^bb0(%i: index, %j: index):\n    argus.yield %i, %j : index, index\n  }", "expected 2 field names, got 1"},
    {"AssertYield", "argus.assert_tag %t : !argus.tile<4x8xf32> {\n  ^bb0(%a: !argus.tag):\n    %k = argus.tag_get %a[\"k\"]\n    argus.yield %k : index\n  }", "assertion must yield exactly one i1"},
    {"AssertArgs", "argus.assert_tag %t, %t : !argus.tile<4x8xf32>, !argus.tile<4x8xf32> {\n  ^bb0(%a: !argus.tag):\n    %b = arith.constant true\n    argus.yield %b : i1\n  }", "expected 2 tag arguments, got 1"},
};

class InvalidOps : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidOps, IsRejectedWithItsMessage) {
  const InvalidCase &c = GetParam();
  mlir::MLIRContext ctx(test::registry());
  std::string diags;
  auto m = test::parse(ctx, wrap(c.body), diags);
  EXPECT_FALSE(m) << "accepted:\n" << wrap(c.body);
  EXPECT_NE(diags.find(c.expected), std::string::npos) << "expected '" << c.expected << "' in:\n" << diags;
}

INSTANTIATE_TEST_SUITE_P(Verifier, InvalidOps, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(InvalidOps, IntegerTilesNeedIntegerPadding) {
  mlir::MLIRContext ctx(test::registry());
  for (const char *padding : {"0x7FF8000000000000", "1.5", "1.0e300"}) {
    std::string diags;
    std::string text = std::string("func.func @k(%X: !argus.tensor<?xi32>) {\n  %c0 = arith.constant 0 : index\n"
                                    "  %x = argus.load %X[%c0] {padding = ") +
                       padding + " : f64} : !argus.tensor<?xi32> -> !argus.tile<4xi32>\n  return\n}\n";
    EXPECT_FALSE(test::parse(ctx, text, diags)) << padding;
    EXPECT_NE(diags.find("is not an integer an 'i32' tile can hold"), std::string::npos) << diags;
  }
}

TEST(ValidOps, WrapperItselfIsValid) {
  mlir::MLIRContext ctx(test::registry());
  std::string diags;
  EXPECT_TRUE(test::parse(ctx, wrap(""), diags)) << diags;
}

} // namespace
