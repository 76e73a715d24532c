//===- DialectRoundTripTest.cpp - print(parse(x)) is a fixed point --------===//
#include "DialectTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace argus;

namespace {

std::string readInput(const std::string &name) {
  std::ifstream in(std::string(ARGUS_DIALECT_INPUTS) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void expectRoundTrip(const std::string &text) {
  mlir::MLIRContext ctx(test::registry());
  std::string diags;
  auto first = test::parse(ctx, text, diags);
  ASSERT_TRUE(first) << diags;
  std::string printed = test::print(*first);
  auto second = test::parse(ctx, printed, diags);
  ASSERT_TRUE(second) << "printed form does not parse back:\n" << printed << "\n" << diags;
  EXPECT_EQ(printed, test::print(*second));
  // The generic form must round-trip too.
  std::string generic;
  llvm::raw_string_ostream os(generic);
  (*first)->print(os, mlir::OpPrintingFlags().printGenericOpForm());
  auto third = test::parse(ctx, generic, diags);
  ASSERT_TRUE(third) << diags;
  EXPECT_EQ(printed, test::print(*third));
}

TEST(DialectRoundTrip, GemmKernelFile) { expectRoundTrip(readInput("gemm_tn.mlir")); }

TEST(DialectRoundTrip, EveryOpAndType) { expectRoundTrip(readInput("all_ops.mlir")); }

TEST(DialectRoundTrip, UnmaskedAccessesAndSlotViews) {
  std::string text = readInput("unmasked_and_views.mlir");
  expectRoundTrip(text);
  mlir::MLIRContext ctx(test::registry());
  std::string diags;
  auto m = test::parse(ctx, text, diags);
  ASSERT_TRUE(m) << diags;
  std::string printed = test::print(*m);
  for (const char *expected :
       {"argus.copy async unmasked %", "argus.copy unmasked %", "argus.load unmasked %",
        "argus.store unmasked %", "view(#argus.swizzle<2, 3, 3>) :",
        "view(#argus.layout<(16, 64):(64, 1)>) {note = \"kept\"} :",
        "view(#argus.layout<((2, 8), 64):((8, 1), 16)>) :"})
    EXPECT_NE(printed.find(expected), std::string::npos) << "expected '" << expected << "' in:\n" << printed;
  int unmasked = 0, views = 0;
  (*m)->walk([&](mlir::Operation *op) {
    if (auto l = llvm::dyn_cast<LoadOp>(op)) unmasked += l.getUnmasked();
    if (auto s = llvm::dyn_cast<StoreOp>(op)) unmasked += s.getUnmasked();
    if (auto c = llvm::dyn_cast<CopyOp>(op)) unmasked += c.getUnmasked();
    if (auto l = llvm::dyn_cast<BufferLoadOp>(op)) views += bool(l.getViewAttr());
    if (auto s = llvm::dyn_cast<BufferStoreOp>(op)) views += bool(s.getViewAttr());
  });
  EXPECT_EQ(unmasked, 4) << "one store of the file is masked";
  EXPECT_EQ(views, 3);
}

TEST(DialectRoundTrip, TypesPrintTheirShape) {
  mlir::MLIRContext ctx(test::registry());
  ctx.loadAllAvailableDialects();
  auto f32 = mlir::Float32Type::get(&ctx);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << GlobalTensorType::get(&ctx, {mlir::ShapedType::kDynamic, 4096}, f32) << " "
     << TileType::get(&ctx, {64, 16}, f32) << " "
     << BufferType::get(&ctx, {2, 64, 64}, f32, MemorySpace::shared, SwizzleAttr::get(&ctx, 3, 3, 3));
  EXPECT_EQ(s, "!argus.tensor<?x4096xf32> !argus.tile<64x16xf32> !argus.buffer<2x64x64xf32, shared, #argus.swizzle<3, 3, 3>>");
}

} // namespace
