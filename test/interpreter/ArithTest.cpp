//===- ArithTest.cpp - scalar arith semantics: wrap-around and rounding ---===//
//
// Every integer arith op on i32 against a C++ reference that wraps at 32 bits
// (edge cases: MIN / -1, negative operands of the rounding divisions, shifts
// of negative values), index arithmetic wrapping at 64 bits, and float ops
// and conversions rounded to f32 / f16 / bf16 through argus_numerics.h.
//
//===----------------------------------------------------------------------===//
#include "TestUtils.h"


#include <functional>

using namespace argus::interp;
using namespace argus::interp::test;

namespace {

struct IntOp {
  const char *name;
  std::function<int64_t(int32_t, int32_t)> ref; // result before wrapping to i32
  bool divides;                                  // needs b != 0
};

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t ceilDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

const std::vector<IntOp> &intOps() {
  static const std::vector<IntOp> ops = {
      {"addi", [](int32_t a, int32_t b) { return int64_t(a) + b; }, false},
      {"subi", [](int32_t a, int32_t b) { return int64_t(a) - b; }, false},
      {"muli", [](int32_t a, int32_t b) { return int64_t(a) * b; }, false},
      {"divsi", [](int32_t a, int32_t b) { return int64_t(a) / b; }, true},
      {"remsi", [](int32_t a, int32_t b) { return int64_t(a) % b; }, true},
      {"divui", [](int32_t a, int32_t b) { return int64_t(uint32_t(a) / uint32_t(b)); }, true},
      {"remui", [](int32_t a, int32_t b) { return int64_t(uint32_t(a) % uint32_t(b)); }, true},
      {"ceildivsi", [](int32_t a, int32_t b) { return ceilDiv(a, b); }, true},
      {"floordivsi", [](int32_t a, int32_t b) { return floorDiv(a, b); }, true},
      {"minsi", [](int32_t a, int32_t b) { return int64_t(std::min(a, b)); }, false},
      {"maxsi", [](int32_t a, int32_t b) { return int64_t(std::max(a, b)); }, false},
      {"minui", [](int32_t a, int32_t b) { return int64_t(int32_t(std::min(uint32_t(a), uint32_t(b)))); }, false},
      {"maxui", [](int32_t a, int32_t b) { return int64_t(int32_t(std::max(uint32_t(a), uint32_t(b)))); }, false},
      {"andi", [](int32_t a, int32_t b) { return int64_t(a & b); }, false},
      {"ori", [](int32_t a, int32_t b) { return int64_t(a | b); }, false},
      {"xori", [](int32_t a, int32_t b) { return int64_t(a ^ b); }, false},
      {"shli", [](int32_t a, int32_t b) { return int64_t(int32_t(uint32_t(a) << (b & 31))); }, false},
      {"shrsi", [](int32_t a, int32_t b) { return int64_t(a >> (b & 31)); }, false},
      {"shrui", [](int32_t a, int32_t b) { return int64_t(uint32_t(a) >> (b & 31)); }, false},
  };
  return ops;
}

/// A kernel storing op_k(a, b) (or op_k(a, s) for shifts) to O[k].
std::string intKernel() {
  std::string body;
  for (size_t k = 0; k < intOps().size(); ++k) {
    std::string name = intOps()[k].name, id = std::to_string(k);
    bool shift = name.rfind("sh", 0) == 0;
    body += "    %r" + id + " = arith." + name + " %a, " + (shift ? "%s" : "%b") + " : i32\n" +
            "    %t" + id + " = argus.full %r" + id + " : i32 -> !argus.tile<1xi32>\n" +
            "    %c" + id + " = arith.constant " + id + " : index\n" +
            "    argus.store %t" + id + ", %O[%c" + id + "] : !argus.tile<1xi32>, !argus.tensor<?xi32>\n";
  }
  return R"(module {
  func.func @ints__grid(%O: !argus.tensor<?xi32>, %a: i32, %b: i32, %s: i32) -> (index, index, index)
      attributes {argus.grid_of = @ints} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @ints(%O: !argus.tensor<?xi32>, %a: i32, %b: i32, %s: i32)
      attributes {argus.kernel, argus.grid = @ints__grid} {
)" + body + R"(    return
  }
})";
}

} // namespace

TEST(InterpreterArith, IntegerOpsWrapAtTheirWidth) {
  LoadedKernel k = loadString(intKernel(), "ints.mlir");
  ASSERT_TRUE(k);
  const int32_t kMin = std::numeric_limits<int32_t>::min(), kMax = std::numeric_limits<int32_t>::max();
  std::vector<std::pair<int32_t, int32_t>> pairs = {
      {kMin, -1}, {kMax, 1}, {kMax, kMax}, {-7, 2}, {7, -2}, {-7, -2}, {kMin, kMax}, {-1, 3}};
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> dist(kMin, kMax);
  for (int i = 0; i < 40; ++i)
    pairs.push_back({dist(rng), dist(rng)});
  const size_t numOps = intOps().size();
  for (auto [a, b] : pairs) {
    if (b == 0)
      b = 3;
    int32_t s = static_cast<int32_t>(static_cast<uint32_t>(b) % 32);
    SCOPED_TRACE("a=" + std::to_string(a) + " b=" + std::to_string(b) + " s=" + std::to_string(s));
    HostTensor<int32_t> out({static_cast<int64_t>(numOps)});
    std::fill(out.data.begin(), out.data.end(), 0x5a5a5a5a);
    ASSERT_EQ(errorText(runKernel(k.kernel, {out.arg(), ScalarArg{0, a}, ScalarArg{0, b},
                                             ScalarArg{0, s}})),
              "");
    for (size_t op = 0; op < numOps; ++op) {
      const IntOp &o = intOps()[op];
      bool shift = std::string(o.name).rfind("sh", 0) == 0;
      int64_t ref = o.ref(a, shift ? s : b);
      EXPECT_EQ(out.data[op], static_cast<int32_t>(static_cast<uint32_t>(ref))) << o.name;
    }
  }
}

TEST(InterpreterArith, IndexArithmeticWrapsAt64Bits) {
  const char *text = R"(module {
  func.func @g(%O: !argus.tensor<?xi64>, %a: index) -> (index, index, index) attributes {argus.grid_of = @k} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @k(%O: !argus.tensor<?xi64>, %a: index) attributes {argus.kernel, argus.grid = @g} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = arith.addi %a, %c1 : index
    %i = arith.index_cast %r : index to i64
    %t = argus.full %i : i64 -> !argus.tile<1xi64>
    argus.store %t, %O[%c0] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    return
  }
})";
  LoadedKernel k = loadString(text, "index.mlir");
  ASSERT_TRUE(k);
  HostTensor<int64_t> out({1});
  ASSERT_EQ(errorText(runKernel(k.kernel, {out.arg(), ScalarArg{0, std::numeric_limits<int64_t>::max()}})), "");
  EXPECT_EQ(out.data[0], std::numeric_limits<int64_t>::min());
}

TEST(InterpreterArith, FloatResultsAreRoundedToTheirType) {
  const char *text = R"(module {
  func.func @g(%O: !argus.tensor<?xf32>, %a: f32, %b: f32) -> (index, index, index) attributes {argus.grid_of = @k} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @k(%O: !argus.tensor<?xf32>, %a: f32, %b: f32) attributes {argus.kernel, argus.grid = @g} {
    %c0 = arith.constant 0 : index
    %s = arith.addf %a, %b : f32
    %p = arith.mulf %a, %b : f32
    %hb = arith.truncf %a : f32 to bf16
    %hh = arith.truncf %a : f32 to f16
    %sb = arith.addf %hb, %hb : bf16
    %e0 = arith.extf %hb : bf16 to f32
    %e1 = arith.extf %hh : f16 to f32
    %e2 = arith.extf %sb : bf16 to f32
    %i = arith.fptosi %a : f32 to i32
    %e3 = arith.sitofp %i : i32 to f32
    %v0 = argus.full %s : f32 -> !argus.tile<1xf32>
    %v1 = argus.full %p : f32 -> !argus.tile<1xf32>
    %v2 = argus.full %e0 : f32 -> !argus.tile<1xf32>
    %v3 = argus.full %e1 : f32 -> !argus.tile<1xf32>
    %v4 = argus.full %e2 : f32 -> !argus.tile<1xf32>
    %v5 = argus.full %e3 : f32 -> !argus.tile<1xf32>
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    argus.store %v0, %O[%c0] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    argus.store %v1, %O[%c1] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    argus.store %v2, %O[%c2] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    argus.store %v3, %O[%c3] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    argus.store %v4, %O[%c4] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    argus.store %v5, %O[%c5] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    return
  }
})";
  LoadedKernel k = loadString(text, "floats.mlir");
  ASSERT_TRUE(k);
  std::mt19937 rng(9);
  for (int trial = 0; trial < 50; ++trial) {
    float a = randomValue(rng, -300.f, 300.f), b = randomValue(rng, -1.f, 1.f) * 1e-5f;
    SCOPED_TRACE("a=" + std::to_string(a) + " b=" + std::to_string(b));
    HostTensor<float> out({6});
    std::fill(out.data.begin(), out.data.end(), nanf32());
    ASSERT_EQ(errorText(runKernel(k.kernel, {out.arg(), ScalarArg{a, 0}, ScalarArg{b, 0}})), "");
    EXPECT_EQ(out.data[0], static_cast<float>(double(a) + double(b)));
    EXPECT_EQ(out.data[1], static_cast<float>(double(a) * double(b)));
    float bfa = argus_num::bf16_to_f32(argus_num::f32_to_bf16(a));
    EXPECT_EQ(out.data[2], bfa);
    EXPECT_EQ(out.data[3], argus_num::f16_to_f32(argus_num::f32_to_f16(a)));
    EXPECT_EQ(out.data[4], argus_num::bf16_to_f32(argus_num::f32_to_bf16(bfa + bfa)));
    EXPECT_EQ(out.data[5], std::trunc(a));
  }
}

namespace {

// gfx942's fp8 (E4M3FNUZ): the interpreter rounds through LLVM's APFloat; argus_numerics.h (the
// float64 reference's host tensors, the HIP emulator's MFMAs, the GPU test problems) by its own
// integer statement of the format. They must agree on every code, every tie between neighbours (ties to
// even), the overflow edge (240 is the largest, 248 and past are NaN) and values that round to
// zero (+0: the format has no -0).
TEST(InterpreterArith, Fp8FnuzRoundsAsTheReferenceDoes) {
  const char *text = R"(module {
  func.func @g(%O: !argus.tensor<?xf32>, %a: f32) -> (index, index, index) attributes {argus.grid_of = @k} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @k(%O: !argus.tensor<?xf32>, %a: f32) attributes {argus.kernel, argus.grid = @g} {
    %c0 = arith.constant 0 : index
    %f8 = arith.truncf %a : f32 to f8E4M3FNUZ
    %e = arith.extf %f8 : f8E4M3FNUZ to f32
    %v = argus.full %e : f32 -> !argus.tile<1xf32>
    argus.store %v, %O[%c0] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    return
  }
})";
  LoadedKernel k = loadString(text, "fp8.mlir");
  ASSERT_TRUE(k);
  std::vector<float> values = {0.0f, -0.0f, 1e-30f, -1e-30f, 240.0f, 247.9f, 248.0f, -248.0f, 1e6f, -1e6f,
                               std::ldexp(1.0f, -11), -std::ldexp(1.0f, -11), 3 * std::ldexp(1.0f, -11)};
  for (int code = 1; code < 0x80; ++code) { // every positive code, its negation and the ties above it
    const float v = argus_num::fp8_e4m3fnuz_to_f32(uint8_t(code));
    const float next = code < 0x7f ? argus_num::fp8_e4m3fnuz_to_f32(uint8_t(code + 1)) : 256.0f;
    values.insert(values.end(), {v, -v, (v + next) / 2, -(v + next) / 2, std::nextafter(v, 0.0f)});
  }
  std::mt19937 rng(17);
  for (int i = 0; i < 200; ++i)
    values.push_back(randomValue(rng, -260.f, 260.f));
  for (float a : values) {
    SCOPED_TRACE("a=" + std::to_string(a));
    HostTensor<float> out({1});
    out.data[0] = 12345.0f;
    ASSERT_EQ(errorText(runKernel(k.kernel, {out.arg(), ScalarArg{a, 0}})), "");
    const uint8_t code = argus_num::f32_to_fp8_e4m3fnuz(a);
    const double want = argus_num::fp8_e4m3fnuz_to_f32(code);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(out.data[0])) << out.data[0];
    } else {
      EXPECT_EQ(out.data[0], float(want));
      EXPECT_FALSE(std::signbit(out.data[0]) && out.data[0] == 0.0f) << "no -0 in E4M3FNUZ";
    }
  }
}

TEST(InterpreterArith, TileIntegerDivisionByZeroIsZero) {
  // argus.binary div on integers: x / 0 = 0 and MIN / -1 wraps, as in the CPU backend.
  LoadedKernel k = loadString(R"(
module {
  func.func @d__grid(%X: !argus.tensor<4xi32>, %Y: !argus.tensor<4xi32>) -> (index, index, index)
      attributes {argus.grid_of = @d} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @d(%X: !argus.tensor<4xi32>, %Y: !argus.tensor<4xi32>)
      attributes {argus.kernel, argus.grid = @d__grid, argus.threads = 1 : i64} {
    %c0 = arith.constant 0 : index
    %x = argus.load %X[%c0] : !argus.tensor<4xi32> -> !argus.tile<4xi32>
    %y = argus.load %Y[%c0] : !argus.tensor<4xi32> -> !argus.tile<4xi32>
    %q = argus.binary div %x, %y : !argus.tile<4xi32>, !argus.tile<4xi32> -> !argus.tile<4xi32>
    argus.store %q, %X[%c0] : !argus.tile<4xi32>, !argus.tensor<4xi32>
    return
  }
}
)", "div.mlir");
  ASSERT_TRUE(k);
  int32_t x[4] = {7, -7, std::numeric_limits<int32_t>::min(), 5};
  int32_t y[4] = {0, 2, -1, 0};
  argus_cpu_tensor tx{x, {4}, {1}}, ty{y, {4}, {1}};
  llvm::Error e = runKernel(k.kernel, {KernelArg(tx), KernelArg(ty)});
  ASSERT_FALSE(e) << errorText(std::move(e));
  EXPECT_EQ(x[0], 0);
  EXPECT_EQ(x[1], -3);
  EXPECT_EQ(x[2], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(x[3], 0);
}

} // namespace
