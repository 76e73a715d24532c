//===- CpuSlotViewRunTest.cpp - slot views and unmasked accesses on the CPU -===//
//
// The CPU backend stores buffers row-major whatever their layout, so a
// buffer_load / buffer_store `view` is mapped back through the buffer's own
// layout (none, or a swizzle whose period divides the slot); anything else is
// refused with a diagnostic. Unmasked accesses are still masked on the CPU.
// The kernels are the interpreter's (test/interpreter/inputs): the CPU must
// agree with the reference semantics. A slot loaded, updated and stored back
// lives in the buffer's own storage meanwhile (no copy in or out).
//
//===----------------------------------------------------------------------===//
#include "CodegenTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <regex>

using namespace argus::codegen;
using namespace argus::codegen::testing;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

int64_t swizzle(int64_t b, int64_t m, int64_t s, int64_t i) {
  int64_t yyy = ((int64_t(1) << b) - 1) << (m + s);
  return i ^ ((i & yyy) >> s);
}

TEST(CpuSlotViews, SlotsStoredBackAreUpdatedInPlace) {
  const std::string path = "test/codegen/inputs/buffer_in_place.mlir";
  std::string cpp = emitFromFile(path, "inplace", "inplace_cpu");
  ASSERT_FALSE(cpp.empty());
  // Slot 0: the buffer's storage itself, updated in a branch and stored back
  // without a copy.
  auto count = [&](const std::string &s) {
    size_t n = 0;
    for (size_t at = cpp.find(s); at != std::string::npos; at = cpp.find(s, at + s.size())) ++n;
    return n;
  };
  EXPECT_TRUE(std::regex_search(cpp, std::regex(R"(float \*(\w+) = buf \+ \(c0\) \* 64;[^\n]*updated in place)"))) << cpp;
  EXPECT_EQ(count("is the buffer slot: stored in place"), 1u) << cpp;
  // Slot 1 is read again before its store: its first load is a copy, and its
  // store copies back (the second load, last before the store, may alias the
  // slot: the sum stored is the copy's).
  EXPECT_EQ(count("the buffer slot itself: updated in place until it is stored back"), 2u) << cpp;
  EXPECT_TRUE(std::regex_search(cpp, std::regex(R"(ak::copy<64>\(\w+, buf \+ \(c1\) \* 64\);)"))) << cpp;
  EXPECT_TRUE(std::regex_search(cpp, std::regex(R"(ak::copy<64>\(buf \+ \(c1\) \* 64, \w+\);)"))) << cpp;
  // A view read by an elementwise run: fused (one pass over its rows).
  EXPECT_EQ(count("2 ops fused"), 1u) << cpp;

  auto kernel = buildKernel(path, "inplace");
  ASSERT_TRUE(kernel);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(128), y(128, kNaN);
  for (float &v : x) v = dist(rng);
  (*kernel)({tensorArg(x.data(), {8, 16}, {16, 1}), tensorArg(y.data(), {8, 16}, {16, 1})}, 1);
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_NEAR(y[i], std::exp(2.0 * x[i]), 1e-5 * std::exp(2.0 * x[i])) << "element " << i;
    EXPECT_EQ(y[64 + i], 2.0f * x[64 + i]) << "element " << 64 + i;
  }
}

TEST(CpuSlotViews, ValuesReadAfterTheStoreBackLiveOutsideTheSlot) {
  // u = 2 x is computed while the slot is held in place, and read after the
  // store back of u^2: in the slot, the store would have overwritten it.
  auto kernel = buildKernel("test/codegen/inputs/buffer_in_place.mlir", "live");
  ASSERT_TRUE(kernel);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(64), y(64, kNaN);
  for (float &v : x) v = dist(rng);
  (*kernel)({tensorArg(x.data(), {4, 16}, {16, 1}), tensorArg(y.data(), {4, 16}, {16, 1})}, 1);
  for (int64_t i = 0; i < 64; ++i) {
    const float u = 2.0f * x[i];
    EXPECT_EQ(y[i], u * u + u) << "element " << i;
  }
}

TEST(CpuSlotViews, ViewsPlaceElementsLikeTheInterpreter) {
  auto kernel = buildKernel("test/interpreter/inputs/slot_views.mlir", "slot_views");
  ASSERT_TRUE(kernel);
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> dist(1.0f, 2.0f);
  std::vector<float> x(32);
  for (float &v : x) v = dist(rng);
  std::vector<std::vector<float>> y(5, std::vector<float>(32, kNaN));
  std::vector<argus_cpu_arg> args = {tensorArg(x.data(), {32}, {1})};
  for (auto &t : y) args.push_back(tensorArg(t.data(), {32}, {1}));
  (*kernel)(args, 1);
  for (int64_t i = 0; i < 32; ++i) {
    SCOPED_TRACE("element " + std::to_string(i));
    EXPECT_EQ(y[0][i], x[i]);
    EXPECT_EQ(y[1][i], x[i]);
    EXPECT_EQ(y[2][i], x[(i % 8) * 4 + i / 8]);
    EXPECT_EQ(y[3][swizzle(1, 0, 1, i)], x[i]);
    EXPECT_EQ(y[4][i], x[swizzle(2, 0, 2, swizzle(1, 0, 2, i))]);
  }
}

TEST(CpuSlotViews, EmittedCodeNamesTheView) {
  std::string cpp = emitFromFile("test/interpreter/inputs/slot_views.mlir", "slot_views", "slot_views_cpu");
  EXPECT_NE(cpp.find("[((ix % 8) * 4 + (ix / 8))]"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("through the view #argus.layout<(8, 4):(4, 1)>"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("[(ix ^ ((ix & 2) >> 1))] = "), std::string::npos) << cpp;
  // own swizzle<2,0,2> after view swizzle<1,0,2>
  EXPECT_NE(cpp.find("[((ix ^ ((ix & 4) >> 2)) ^ (((ix ^ ((ix & 4) >> 2)) & 12) >> 2))]"), std::string::npos) << cpp;
}

std::string emitErrorOf(const std::string &body) {
  std::string text =
      "module {\n"
      "  func.func @k__grid(%X: !argus.tensor<?xf32>) -> (index, index, index) {\n"
      "    %c1 = arith.constant 1 : index\n"
      "    return %c1, %c1, %c1 : index, index, index\n"
      "  }\n"
      "  func.func @k(%X: !argus.tensor<?xf32>) attributes {argus.kernel, argus.grid = @k__grid} {\n"
      "    %c0 = arith.constant 0 : index\n" +
      body + "    return\n  }\n}\n";
  auto ctx = makeContext();
  auto module = parseText(*ctx, text, "k.mlir");
  if (!module) {
    ADD_FAILURE() << "cannot parse:\n" << text;
    return "";
  }
  auto cpp = emitCpuKernel(lookupFunc(*module, "k"), "k_cpu", CpuTarget{});
  if (cpp) {
    ADD_FAILURE() << "expected an error, got code:\n" << *cpp;
    return "";
  }
  return llvm::toString(cpp.takeError());
}

TEST(CpuSlotViews, ViewOnABufferWithItsOwnLayoutIsRefused) {
  std::string error = emitErrorOf(
      "    %b = argus.alloc : !argus.buffer<2x8xf32, shared, #argus.layout<(2, 8):(8, 1)>>\n"
      "    %t = argus.buffer_load %b[%c0] view(#argus.swizzle<1, 0, 1>) : !argus.buffer<2x8xf32, shared, #argus.layout<(2, 8):(8, 1)>> -> !argus.tile<8xf32>\n"
      "    argus.store %t, %X[%c0] : !argus.tile<8xf32>, !argus.tensor<?xf32>\n");
  EXPECT_EQ(error, "k.mlir:9:10: the CPU backend stores buffers row-major and cannot place a slot view "
                   "#argus.swizzle<1, 0, 1> on a buffer with its own layout #argus.layout<(2, 8):(8, 1)> "
                   "(supported: no buffer layout, or a buffer swizzle whose period divides the slot)");
}

TEST(CpuSlotViews, ViewOnAMisalignedSwizzledSlotIsRefused) {
  // swizzle<2,0,2> has period 16; the slot has 8 elements.
  std::string error = emitErrorOf(
      "    %t = argus.load %X[%c0] : !argus.tensor<?xf32> -> !argus.tile<8xf32>\n"
      "    %b = argus.alloc : !argus.buffer<4x8xf32, shared, #argus.swizzle<2, 0, 2>>\n"
      "    argus.buffer_store %t, %b[%c0] view(#argus.swizzle<1, 0, 1>) : !argus.tile<8xf32>, !argus.buffer<4x8xf32, shared, #argus.swizzle<2, 0, 2>>\n");
  EXPECT_NE(error.find("k.mlir:10:5: the CPU backend stores buffers row-major and cannot place a slot view"),
            std::string::npos)
      << error;
}

TEST(CpuUnmasked, InBoundsUnmaskedAccessesRun) {
  auto kernel = buildKernel("test/interpreter/inputs/unmasked.mlir", "unmasked");
  ASSERT_TRUE(kernel);
  std::mt19937 rng(37);
  std::uniform_real_distribution<float> dist(1.0f, 2.0f);
  std::vector<float> X(6 * 8), Z(6 * 8), Y(7 * 8, kNaN);
  for (float &v : X) v = dist(rng);
  for (float &v : Z) v = dist(rng);
  const int64_t rl = 2, rs = 3, rc = 1;
  (*kernel)({tensorArg(X.data(), {6, 8}, {8, 1}), tensorArg(Y.data(), {7, 8}, {8, 1}),
             tensorArg(Z.data(), {6, 8}, {8, 1}), intArg(rl), intArg(rs), intArg(rc)},
            1);
  for (int64_t i = 0; i < 7; ++i)
    for (int64_t j = 0; j < 8; ++j) {
      if (i < rs || i >= rs + 4) {
        EXPECT_TRUE(std::isnan(Y[i * 8 + j])) << i << "," << j;
        continue;
      }
      EXPECT_EQ(Y[i * 8 + j], X[(rl + i - rs) * 8 + j] + Z[(rc + i - rs) * 8 + j]) << i << "," << j;
    }
  std::string cpp = emitFromFile("test/interpreter/inputs/unmasked.mlir", "unmasked", "unmasked_cpu");
  EXPECT_NE(cpp.find("unmasked: in bounds by promise, masked anyway"), std::string::npos) << cpp;
}

} // namespace
