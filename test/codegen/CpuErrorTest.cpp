//===- CpuErrorTest.cpp - what the CPU backend refuses, and how it says so -===//
//
// One tiny kernel per diagnostic. Each message starts with the location of
// the offending op ("file:line:col: ") and says what was expected.
//
//===----------------------------------------------------------------------===//
#include "CodegenTestSupport.h"

#include <gtest/gtest.h>

using namespace argus::codegen;
using namespace argus::codegen::testing;

namespace {

/// A kernel whose body is `body` (one or more ops, before `return`) and whose
/// function attributes are `attrs`.
std::string kernelText(const std::string &body, const std::string &attrs = "argus.threads = 1 : i64") {
  return "module {\n"
         "  func.func @k__grid(%X: !argus.tensor<?xf32>) -> (index, index, index) {\n"
         "    %c1 = arith.constant 1 : index\n"
         "    return %c1, %c1, %c1 : index, index, index\n"
         "  }\n"
         "  func.func @k(%X: !argus.tensor<?xf32>) attributes {argus.kernel, argus.grid = @k__grid, " +
         attrs +
         "} {\n" + body +
         "    return\n"
         "  }\n"
         "}\n";
}

/// The error of emitting @k from `text` (buffer name "k.mlir").
std::string emitError(const std::string &text, const std::string &symbol = "k_cpu",
                      const std::string &target = "cpu-avx512", bool allowUnregistered = false) {
  auto ctx = makeContext(allowUnregistered);
  auto module = parseText(*ctx, text, "k.mlir");
  if (!module) {
    ADD_FAILURE() << "cannot parse:\n" << text;
    return "";
  }
  auto cpp = emitCpuKernel(lookupFunc(*module, "k"), symbol, CpuTarget{target});
  if (cpp) {
    ADD_FAILURE() << "expected an error, got code:\n" << *cpp;
    return "";
  }
  return llvm::toString(cpp.takeError());
}

TEST(CpuErrors, ThreadLevelKernelIsRejected) {
  EXPECT_EQ(emitError(kernelText("", "argus.threads = 128 : i64")),
            "k.mlir:6:3: the CPU backend runs one thread per program instance; kernel 'k' asks for 128");
}

TEST(CpuErrors, UnsupportedOpNamesItsLocation) {
  std::string text = kernelText("    %t = \"foo.bar\"() : () -> i32\n");
  EXPECT_EQ(emitError(text, "k_cpu", "cpu-avx512", /*allowUnregistered=*/true),
            "k.mlir:7:10: the CPU backend cannot lower 'foo.bar'");
}

TEST(CpuErrors, ArithOnNonScalarsIsRejected) {
  std::string text = kernelText("    %v = arith.constant dense<1.0> : vector<4xf32>\n");
  EXPECT_EQ(emitError(text),
            "k.mlir:7:10: the CPU backend lowers arith ops on scalars only, got a result of type vector<4xf32>");
}

TEST(CpuErrors, MissingGridFunction) {
  std::string text = "module {\n"
                     "  func.func @k(%X: !argus.tensor<?xf32>) attributes {argus.kernel, argus.grid = @nowhere} {\n"
                     "    return\n"
                     "  }\n"
                     "}\n";
  EXPECT_EQ(emitError(text), "k.mlir:2:3: grid function @nowhere of kernel 'k' not found in the module");
}

TEST(CpuErrors, NotAKernel) {
  std::string text = "module {\n  func.func @k() {\n    return\n  }\n}\n";
  EXPECT_EQ(emitError(text), "k.mlir:2:3: expected a kernel (func.func with the argus.kernel attribute), got @k");
}

TEST(CpuErrors, SymbolMustBeACIdentifier) {
  EXPECT_EQ(emitError(kernelText(""), "3-bad name"),
            "k.mlir:6:3: expected the kernel symbol to be a C identifier, got '3-bad name'");
}

TEST(CpuErrors, UnknownTarget) {
  EXPECT_EQ(emitError(kernelText(""), "k_cpu", "cpu-sse2"),
            "k.mlir:6:3: unknown CPU target 'cpu-sse2' (expected cpu-avx512 or cpu-avx2)");
}

TEST(CpuErrors, NullKernel) {
  auto cpp = emitCpuKernel(nullptr, "k", CpuTarget{});
  ASSERT_FALSE(cpp);
  EXPECT_EQ(llvm::toString(cpp.takeError()), "emitCpuKernel: expected a kernel function, got null");
}

} // namespace
