//===- SlotViewTest.cpp - buffer_load / buffer_store through a view -------===//
//
// A `view` addresses one slot through its own layout or swizzle: element i
// of the slot is at storage[slot base + view(i)], whatever the buffer's own
// layout. The expectations are computed here from the definitions (CuTe
// Swizzle<B,M,S>, shape:stride layouts), independently of the interpreter.
//
//===----------------------------------------------------------------------===//
#include "TestUtils.h"

using namespace argus::interp;
using namespace argus::interp::test;

namespace {

int64_t swizzle(int64_t b, int64_t m, int64_t s, int64_t i) {
  int64_t yyy = ((int64_t(1) << b) - 1) << (m + s);
  return i ^ ((i & yyy) >> s);
}

TEST(InterpreterSlotViews, ViewsPlaceElementsAsTheirLayoutSays) {
  LoadedKernel k = loadInput("slot_views.mlir");
  ASSERT_TRUE(k) << "slot_views.mlir did not parse";
  std::mt19937 rng(13);
  HostTensor<float> x({32});
  std::vector<HostTensor<float>> y(5, HostTensor<float>({32}));
  for (auto &v : x.data)
    v = randomValue(rng);
  for (auto &t : y)
    std::fill(t.data.begin(), t.data.end(), nanf32());
  std::vector<KernelArg> args = {x.arg()};
  for (auto &t : y)
    args.push_back(t.arg());
  ASSERT_EQ(errorText(runKernel(k.kernel, args)), "");
  int moved3 = 0, moved4 = 0, moved5 = 0;
  for (int64_t i = 0; i < 32; ++i) {
    SCOPED_TRACE("element " + std::to_string(i));
    EXPECT_EQ(y[0].data[i], x.data[i]) << "a view equal to the buffer's swizzle changes nothing";
    EXPECT_EQ(y[1].data[i], x.data[i]) << "a view equal to the buffer's swizzle changes nothing";
    int64_t v3 = (i % 8) * 4 + i / 8;
    EXPECT_EQ(y[2].data[i], x.data[v3]);
    int64_t s4 = swizzle(1, 0, 1, i);
    EXPECT_EQ(y[3].data[s4], x.data[i]);
    int64_t v5 = swizzle(2, 0, 2, swizzle(1, 0, 2, i));
    EXPECT_EQ(y[4].data[i], x.data[v5]);
    moved3 += v3 != i;
    moved4 += s4 != i;
    moved5 += v5 != i;
  }
  EXPECT_GT(moved3, 16) << "the test must move elements to mean anything";
  EXPECT_GT(moved4, 8);
  EXPECT_GT(moved5, 8);
}

// The identity of a view equal to the buffer's own swizzle holds in every
// slot when the slot size is a multiple of the swizzle's period: swept over
// slots and several swizzles.
TEST(InterpreterSlotViews, OwnSwizzleAsViewIsTheIdentityOnAlignedSlots) {
  for (auto [b, m, s] : {std::array<int, 3>{2, 0, 2}, {1, 2, 1}, {2, 1, 3}, {3, 0, 3}}) {
    int64_t period = int64_t(1) << (b + m + s);
    int64_t slot = period * 2, slots = 3;
    std::string buf = "!argus.buffer<" + std::to_string(slots) + "x" + std::to_string(slot) +
                      "xf32, shared, #argus.swizzle<" + std::to_string(b) + "," + std::to_string(m) +
                      "," + std::to_string(s) + ">>";
    std::string view = "view(#argus.swizzle<" + std::to_string(b) + "," + std::to_string(m) + "," +
                       std::to_string(s) + ">)";
    std::string tile = "!argus.tile<" + std::to_string(slot) + "xf32>";
    std::string tensor = "!argus.tensor<?xf32>";
    std::string text = "module {\n"
                       "func.func @g(%X: " + tensor + ", %Y: " + tensor + ", %i: index) -> (index, index, index) {\n"
                       "  %c1 = arith.constant 1 : index\n  return %c1, %c1, %c1 : index, index, index\n}\n"
                       "func.func @k(%X: " + tensor + ", %Y: " + tensor + ", %i: index) attributes {argus.kernel, argus.grid = @g} {\n"
                       "  %c0 = arith.constant 0 : index\n"
                       "  %b = argus.alloc : " + buf + "\n"
                       "  %x = argus.load %X[%c0] : " + tensor + " -> " + tile + "\n"
                       "  argus.buffer_store %x, %b[%i] : " + tile + ", " + buf + "\n"
                       "  %v = argus.buffer_load %b[%i] " + view + " : " + buf + " -> " + tile + "\n"
                       "  argus.store %v, %Y[%c0] : " + tile + ", " + tensor + "\n"
                       "  return\n}\n}\n";
    LoadedKernel k = loadString(text, "own_swizzle.mlir");
    ASSERT_TRUE(k) << text;
    for (int64_t i = 0; i < slots; ++i) {
      SCOPED_TRACE("swizzle<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) +
                   "> slot " + std::to_string(i));
      std::mt19937 rng(17 + i);
      HostTensor<float> x({slot}), y({slot});
      for (auto &v : x.data)
        v = randomValue(rng);
      std::fill(y.data.begin(), y.data.end(), nanf32());
      ASSERT_EQ(errorText(runKernel(k.kernel, {x.arg(), y.arg(), ScalarArg{0, i}})), "");
      EXPECT_EQ(y.data, x.data);
    }
  }
}

} // namespace
