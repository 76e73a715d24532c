//===- ErrorsTest.cpp - every error the interpreter reports ---------------===//
//
// Bad kernels and bad arguments come back as messages naming what was
// expected, what was found and (for ops) the file:line:col; nothing crashes.
//
//===----------------------------------------------------------------------===//
#include "TestUtils.h"

using namespace argus::interp;
using namespace argus::interp::test;

namespace {

/// A one-instance kernel over (%X: tensor<?x8xf32>, %i: index) around `body`.
std::string kernelWith(const std::string &body, const std::string &extra = "") {
  return R"(module {
  func.func @k__grid(%X: !argus.tensor<?x8xf32>, %i: index) -> (index, index, index)
      attributes {argus.grid_of = @k} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @k(%X: !argus.tensor<?x8xf32>, %i: index)
      attributes {argus.kernel, argus.grid = @k__grid, argus.arg_names = ["X", "i"]} {
    %c0 = arith.constant 0 : index
)" + body + R"(
    return
  }
)" + extra + "}";
}

struct InterpreterErrors : ::testing::Test {
  HostTensor<float> x{{3, 8}};
  std::string run(const std::string &body, std::vector<KernelArg> args = {},
                  const std::string &extra = "") {
    LoadedKernel k = loadString(kernelWith(body, extra), "err.mlir");
    if (!k)
      return "parse error";
    if (args.empty())
      args = {x.arg(), ScalarArg{0, 0}};
    return errorText(runKernel(k.kernel, args));
  }
};

#define EXPECT_CONTAINS(haystack, needle)                                                        \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "message: " << (haystack)

} // namespace

TEST_F(InterpreterErrors, UnsupportedOpIsNamedWithItsLocation) {
  std::string err = run("    func.call @helper() : () -> ()", {},
                        "  func.func private @helper()\n");
  EXPECT_CONTAINS(err, "err.mlir:10:5: the interpreter does not support 'func.call'");
}

TEST_F(InterpreterErrors, UnsupportedArithOpIsNamed) {
  std::string err = run("    %c3 = arith.constant 3 : i32\n"
                        "    %lo, %hi = arith.mulsi_extended %c3, %c3 : i32");
  EXPECT_CONTAINS(err, "err.mlir:11:16: the interpreter does not support 'arith.mulsi_extended'");
}

TEST_F(InterpreterErrors, WrongArgumentCount) {
  LoadedKernel k = loadString(kernelWith(""), "err.mlir");
  ASSERT_TRUE(k);
  std::string err = errorText(runKernel(k.kernel, {x.arg()}));
  EXPECT_CONTAINS(err, "@k expects 2 arguments, got 1");
  llvm::Expected<std::array<int64_t, 3>> grid = evaluateGrid(k.kernel, {x.arg()});
  ASSERT_FALSE(static_cast<bool>(grid));
  EXPECT_CONTAINS(llvm::toString(grid.takeError()), "expects 2 arguments, got 1");
}

TEST_F(InterpreterErrors, ScalarGivenForATensorAndTheReverse) {
  EXPECT_CONTAINS(run("", {ScalarArg{1, 1}, ScalarArg{0, 0}}),
                  "expected a tensor for 'X' (argument 0) of type !argus.tensor<?x8xf32>, got a scalar");
  EXPECT_CONTAINS(run("", {x.arg(), x.arg()}),
                  "expected a scalar for 'i' (argument 1) of type index, got a tensor");
}

TEST_F(InterpreterErrors, StaticDimensionMismatch) {
  HostTensor<float> wrong({3, 7});
  EXPECT_CONTAINS(run("", {wrong.arg(), ScalarArg{0, 0}}),
                  "expected size 8 for dimension 1 of 'X' (argument 0) (type "
                  "!argus.tensor<?x8xf32>), got 7");
}

TEST_F(InterpreterErrors, NegativeDimension) {
  argus_cpu_tensor t = x.arg();
  t.shape[0] = -1;
  EXPECT_CONTAINS(run("", {t, ScalarArg{0, 0}}),
                  "expected a non-negative size for dimension 0 of 'X' (argument 0), got -1");
}

TEST_F(InterpreterErrors, TensorWithoutDataIsReportedWhenRead) {
  argus_cpu_tensor t = x.arg();
  t.data = nullptr;
  std::string err = run("    %v = argus.load %X[%c0, %c0] : !argus.tensor<?x8xf32> -> "
                        "!argus.tile<2x8xf32>",
                        {t, ScalarArg{0, 0}});
  EXPECT_CONTAINS(err, "err.mlir:10:10: tensor 'X' (argument 0) was given without data, but "
                       "element (0, 0) is read");
  // Fully out-of-bounds accesses of a data-less tensor are fine.
  EXPECT_EQ(run("    %c9 = arith.constant 9 : index\n"
                "    %v = argus.load %X[%c9, %c0] : !argus.tensor<?x8xf32> -> !argus.tile<2x8xf32>",
                {t, ScalarArg{0, 0}}),
            "");
}

TEST_F(InterpreterErrors, BufferIndexOutOfBounds) {
  std::string err = run(
      "    %b = argus.alloc : !argus.buffer<2x8xf32, shared>\n"
      "    %v = argus.buffer_load %b[%i] : !argus.buffer<2x8xf32, shared> -> !argus.tile<8xf32>",
      {x.arg(), ScalarArg{0, 2}});
  EXPECT_CONTAINS(err, "err.mlir:11:10: buffer access out of bounds: expected index 0 in [0, 2), "
                       "got 2 (shared buffer allocated at err.mlir:10:10)");
  EXPECT_CONTAINS(err, "(in program instance (0, 0, 0))");
  err = run("    %b = argus.alloc : !argus.buffer<2x8xf32, local>\n"
            "    %t = argus.full %f : f32 -> !argus.tile<8xf32>\n"
            "    argus.buffer_store %t, %b[%i] : !argus.tile<8xf32>, !argus.buffer<2x8xf32, local>",
            {x.arg(), ScalarArg{0, -1}});
  EXPECT_EQ(err, "parse error"); // %f is undefined: the kernel does not even parse
  err = run("    %b = argus.alloc : !argus.buffer<2x8xf32, local>\n"
            "    %f = arith.constant 1.0 : f32\n"
            "    %t = argus.full %f : f32 -> !argus.tile<8xf32>\n"
            "    argus.buffer_store %t, %b[%i] : !argus.tile<8xf32>, !argus.buffer<2x8xf32, local>",
            {x.arg(), ScalarArg{0, -1}});
  EXPECT_CONTAINS(err, "buffer access out of bounds: expected index 0 in [0, 2), got -1");
  err = run("    %b = argus.alloc : !argus.buffer<2x8x8xf32, shared>\n"
            "    argus.copy %X[%c0, %c0], %b[%i] : !argus.tensor<?x8xf32>, !argus.buffer<2x8x8xf32, shared>",
            {x.arg(), ScalarArg{0, 5}});
  EXPECT_CONTAINS(err, "err.mlir:11:5: buffer access out of bounds: expected index 0 in [0, 2), got 5");
}

TEST_F(InterpreterErrors, IntegerDivisionByZero) {
  std::string err = run("    %c1 = arith.constant 1 : index\n"
                        "    %q = arith.divsi %c1, %i : index",
                        {x.arg(), ScalarArg{0, 0}});
  EXPECT_CONTAINS(err, "err.mlir:11:10: integer division by zero in 'arith.divsi'");
}

TEST_F(InterpreterErrors, NonPositiveLoopStep) {
  std::string err = run("    %c4 = arith.constant 4 : index\n"
                        "    scf.for %j = %c0 to %c4 step %i {\n    }",
                        {x.arg(), ScalarArg{0, 0}});
  EXPECT_CONTAINS(err, "err.mlir:11:5: expected a positive scf.for step, got 0");
}

TEST_F(InterpreterErrors, IdsInTheGridFunctionAreRejected) {
  const char *text = R"(module {
  func.func @g(%X: !argus.tensor<?xf32>) -> (index, index, index) attributes {argus.grid_of = @k} {
    %c1 = arith.constant 1 : index
    %p = argus.program_id 0
    return %p, %c1, %c1 : index, index, index
  }
  func.func @k(%X: !argus.tensor<?xf32>) attributes {argus.kernel, argus.grid = @g} {
    return
  }
})";
  LoadedKernel k = loadString(text, "grid.mlir");
  ASSERT_TRUE(k);
  HostTensor<float> t({4});
  std::string err = errorText(runKernel(k.kernel, {t.arg()}));
  EXPECT_CONTAINS(err, "grid.mlir:4:10: 'argus.program_id' has no meaning in a grid function");
}

TEST_F(InterpreterErrors, KernelConventionsAreChecked) {
  const char *text = R"(module {
  func.func @nogrid(%X: !argus.tensor<?xf32>) attributes {argus.kernel} {
    return
  }
  func.func @plain(%X: !argus.tensor<?xf32>) {
    return
  }
  func.func @badthreads(%X: !argus.tensor<?xf32>) attributes {argus.kernel, argus.grid = @missing, argus.threads = 0 : i64} {
    return
  }
  func.func @missinggrid(%X: !argus.tensor<?xf32>) attributes {argus.kernel, argus.grid = @missing} {
    return
  }
})";
  LoadedKernel k = loadString(text, "conv.mlir");
  ASSERT_TRUE(k.module);
  HostTensor<float> t({4});
  auto lookup = [&](const char *name) { return k.module->lookupSymbol<mlir::func::FuncOp>(name); };
  EXPECT_CONTAINS(errorText(runKernel(lookup("nogrid"), {t.arg()})),
                  "kernel @nogrid has no 'argus.grid' attribute naming its grid function");
  EXPECT_CONTAINS(errorText(runKernel(lookup("plain"), {t.arg()})),
                  "@plain is not a kernel (it has no 'argus.kernel' attribute)");
  EXPECT_CONTAINS(errorText(runKernel(lookup("badthreads"), {t.arg()})),
                  "expected 'argus.threads' in [1, 4096] on @badthreads, got 0");
  EXPECT_CONTAINS(errorText(runKernel(lookup("missinggrid"), {t.arg()})),
                  "grid function @missing of kernel @missinggrid not found");
  EXPECT_CONTAINS(errorText(runKernel(mlir::func::FuncOp(), {t.arg()})), "no kernel given");
}
