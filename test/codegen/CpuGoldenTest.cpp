//===- CpuGoldenTest.cpp - what the CPU backend emits ---------------------===//
//
// FileCheck-style checks on the C++ text: the OpenMP loop over program
// instances, the mma micro-kernel call, in-place accumulation (no tile copies
// in the GEMM), tags erased, DSL names and locations in the output.
//
//===----------------------------------------------------------------------===//
#include "CodegenTestSupport.h"

#include <gtest/gtest.h>

#include <regex>

using namespace argus::codegen;
using namespace argus::codegen::testing;

namespace {

/// Number of (non-overlapping) occurrences of `needle`.
size_t count(const std::string &hay, const std::string &needle) {
  size_t n = 0;
  for (size_t pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + needle.size()))
    ++n;
  return n;
}

/// Checks that `patterns` occur in `text` in this order (CHECK lines).
void expectInOrder(const std::string &text, const std::vector<std::string> &patterns) {
  size_t pos = 0;
  for (const std::string &p : patterns) {
    size_t at = text.find(p, pos);
    ASSERT_NE(at, std::string::npos) << "expected, after offset " << pos << ":\n  " << p << "\nin:\n" << text;
    pos = at + p.size();
  }
}

/// The text of the innermost `for (...) {` ... `}` block that starts at the first line containing `header`.
std::string loopBody(const std::string &text, const std::string &header) {
  size_t start = text.find(header);
  if (start == std::string::npos)
    return "";
  size_t open = text.find('{', start);
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '{')
      ++depth;
    else if (text[i] == '}' && --depth == 0)
      return text.substr(open, i - open + 1);
  }
  return "";
}

TEST(CpuGolden, GemmTnHasTheOmpLoopOverProgramInstances) {
  std::string cpp = emitFromFile("test/dialect/inputs/gemm_tn.mlir", "gemm_tn", "gemm_tn_cpu");
  ASSERT_FALSE(cpp.empty());
  EXPECT_EQ(count(cpp, "#include"), 1u) << cpp;
  EXPECT_NE(cpp.find("#include \"argus_cpu_kernel.h\""), std::string::npos);
  expectInOrder(cpp, {
                         "static void gemm_tn_cpu_instance(const argus_cpu_arg *args",
                         "extern \"C\" __attribute__((visibility(\"default\"))) void gemm_tn_cpu(const argus_cpu_arg *args, int num_threads) {",
                         // the grid function, inlined: ceildiv(M, 16), ceildiv(N, 16), 1
                         "ak::ceildivsi(",
                         "const int64_t grid0 = ",
                         "const int64_t grid2 = ",
                         "if (grid0 == 1 && grid1 == 1 && grid2 == 1) {",
                         "gemm_tn_cpu_instance(args, 0, 0, 0, 1, 1, 1);",
                         "#pragma omp parallel for collapse(3) schedule(static) "
                         "num_threads(ak::thread_count(num_threads))",
                         "for (int64_t pid0 = 0; pid0 < grid0; ++pid0)",
                         "gemm_tn_cpu_instance(args, pid0, pid1, pid2, grid0, grid1, grid2);",
                     });
}

TEST(CpuGolden, GemmTnAccumulatesInPlaceAcrossTheKLoop) {
  std::string cpp = emitFromFile("test/dialect/inputs/gemm_tn.mlir", "gemm_tn", "gemm_tn_cpu");
  ASSERT_FALSE(cpp.empty());
  // The accumulator is filled once, before the loop, and the mma writes into it.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(cpp, m, std::regex(R"(ak::fill<16 \* 16>\((\w+), \w+\);)"))) << cpp;
  std::string acc = m[1];
  std::string body = loopBody(cpp, "for (int64_t ");
  ASSERT_FALSE(body.empty()) << cpp;
  // Both operands are read only by the mma: read in place when in bounds,
  // through a scratch copy otherwise, in an arena slot of its own (off the stack).
  EXPECT_EQ(count(body, "= ak::load_ref<ak::f32, 16, 32>("), 2u) << body;
  EXPECT_EQ(count(body, "const ak::arena_scratch<float, 512, 0> "), 1u) << body;
  EXPECT_EQ(count(body, "const ak::arena_scratch<float, 512, 1> "), 1u) << body;
  EXPECT_EQ(count(body, "ak::load<"), 0u) << body;
  EXPECT_NE(body.find("ak::mma<ak::f32, 16, 16, 32>(" + acc + ", "), std::string::npos) << body;
  // Nothing is copied: not in the loop, not in the epilogue (alpha*acc,
  // beta*C + ..., + bias all reuse the accumulator's array).
  EXPECT_EQ(count(cpp, "ak::copy<"), 0u) << cpp;
  EXPECT_EQ(count(cpp, "alignas(64) float"), 3u) << "acc, C tile, bias tile\n" << cpp;
  EXPECT_NE(cpp.find("ak::store<ak::f32, 16, 16>(" + acc + ", C, "), std::string::npos) << cpp;
  // alpha * acc written over acc itself, then the bias broadcast along rows.
  EXPECT_NE(cpp.find(acc + "[ix] = alpha * " + acc + "[ix];"), std::string::npos) << cpp;
  EXPECT_TRUE(std::regex_search(cpp, std::regex(acc + R"(\[ix0 \* 16 \+ ix1\] = )" + acc +
                                                R"(\[ix0 \* 16 \+ ix1\] \+ \w+\[ix1\];)")))
      << cpp;
}

TEST(CpuGolden, TagsLeaveNoCode) {
  std::string cpp = emitFromFile("test/dialect/inputs/gemm_tn.mlir", "gemm_tn", "gemm_tn_cpu");
  ASSERT_FALSE(cpp.empty());
  // No code line (comments stripped) mentions tags, assertions or their yields.
  std::string code = std::regex_replace(cpp, std::regex("//[^\n]*"), "");
  for (const char *word : {"tag", "assert", "yield", "ka", "kb"})
    EXPECT_FALSE(std::regex_search(code, std::regex(std::string("\\b") + word)))
        << word << " in\n" << code;
}

TEST(CpuGolden, CommentsCarryTheDslLocation) {
  std::string cpp = emitFromFile("test/dialect/inputs/gemm_tn.mlir", "gemm_tn", "gemm_tn_cpu");
  // %next = argus.mma ... sits on line 51, column 15 of gemm_tn.mlir.
  EXPECT_TRUE(std::regex_search(cpp, std::regex(R"(ak::mma<[^\n]*// gemm_tn\.mlir:51:15)"))) << cpp;
}

TEST(CpuGolden, Bf16GemmUsesDslNamesBufferViewsAndDpbf16Kernel) {
  std::string cpp = emitFromFile("test/codegen/inputs/gemm_bf16.mlir", "gemm_bf16", "gemm_bf16_cpu");
  ASSERT_FALSE(cpp.empty());
  expectInOrder(cpp, {
                         "const int64_t row = ",
                         "alignas(64) uint16_t sa[2 * 32 * 128];  // gemm_bf16.argus:12:5: shared buffer; its layout "
                         "#argus.swizzle<3, 3, 3> is a GPU bank-conflict detail",
                         "alignas(64) float acc[32 * 64];",
                         "ak::fill<32 * 64>(acc, cst);",
                         "pipeline_stages = 2",
                         "const int64_t koff = ",
                         "ak::load<ak::bf16, 32, 128>(sa + (stage) * 4096, A, {row, koff}, /*padding=*/0.0);",
                         "// wait(0)",
                         "const uint16_t *a = sa + (stage) * 4096;  // gemm_bf16.argus:21:9: view of the buffer slot: no copy",
                         "const uint16_t *b = sb + (stage) * 8192;",
                         "ak::mma<ak::bf16, 32, 64, 128>(acc, a, b);",
                         "ak::store<ak::bf16, 32, 64>(",
                     });
  EXPECT_EQ(count(cpp, "ak::copy<"), 0u) << cpp;
  EXPECT_NE(cpp.find("ak::cast<ak::bf16, ak::f32>(acc[ix])"), std::string::npos) << cpp;
}

TEST(CpuGolden, SoftmaxBroadcastsAndReducesAlongRows) {
  std::string cpp = emitFromFile("test/codegen/inputs/softmax.mlir", "softmax", "softmax_cpu");
  ASSERT_FALSE(cpp.empty());
  // Row pipelines (EmitRowFusion.cpp): the max, then x - max, exp and the
  // sum in one pass over each row (exp(.) kept in a register for the sum),
  // then the division: three passes where one loop per op made six.
  expectInOrder(cpp, {
                         "ak::load<ak::f32, 4, 64>(",
                         "/*padding=*/-std::numeric_limits<double>::infinity());",
                         "ak::row_results<ak::row_max<ak::f32xN>, 4> red_rows{",
                         "for (int64_t r = 0; r < 4; ++r) {",
                         "ak::row_max<VL> red;",
                         "for (int64_t c = 0; c < 64; c += VL::lanes) {",
                         "red.add(VL::load(",
                         "red_rows.put(r, red);",
                         "ak::row_results<ak::row_sum<ak::f32xN>, 4> red_1_rows{",
                         "for (int64_t r = 0; r < 4; ++r) {",
                         "ak::row_sum<VL> red_1;",
                         "= VL::sub(VL::load(",
                         "= ak::exp_lanes<VL>(",
                         "VL::store(",
                         "red_1.add(",
                         "red_1_rows.put(r, red_1);",
                         "for (int64_t r = 0; r < 4; ++r) {",
                         "= VL::div(VL::load(",
                     });
  EXPECT_EQ(count(cpp, "ak::reduce_"), 0u) << cpp;
  EXPECT_EQ(count(cpp, "ak::exp_tile"), 0u) << cpp;
  // exp(.) and the quotient overwrite x's array: x and the two row vectors are the arrays.
  EXPECT_EQ(count(cpp, "alignas(64) float"), 3u) << cpp;
}

TEST(CpuGolden, Bf16CastsOfExpSkipTheDenormalCheck) {
  // exp's results are 0 or normal: their bf16 stores take vcvtneps2bf16
  // directly; a quotient of them may be denormal and keeps the check.
  std::string numerators = emitFromFile("test/codegen/inputs/softmax.mlir", "numerators_bf16", "numerators_cpu");
  ASSERT_FALSE(numerators.empty());
  expectInOrder(numerators, {"= ak::exp_lanes<VL>(", "VL::store_bf16_normal(", "red_1.add("});
  std::string softmax = emitFromFile("test/codegen/inputs/softmax.mlir", "softmax_bf16", "softmax_bf16_cpu");
  ASSERT_FALSE(softmax.empty());
  EXPECT_EQ(count(softmax, "store_bf16_normal("), 0u) << softmax;
}

TEST(CpuGolden, AvxTargetsDifferOnlyInFlags) {
  std::string a = emitFromFile("test/codegen/inputs/edges.mlir", "edges", "edges_cpu", {"cpu-avx512"});
  std::string b = emitFromFile("test/codegen/inputs/edges.mlir", "edges", "edges_cpu", {"cpu-avx2"});
  ASSERT_FALSE(a.empty());
  EXPECT_NE(a.find("(target cpu-avx512)"), std::string::npos);
  EXPECT_NE(b.find("(target cpu-avx2)"), std::string::npos);
  auto has = [](const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  auto f512 = cpuCompileFlags({"cpu-avx512"}), f2 = cpuCompileFlags({"cpu-avx2"});
  for (const char *f : {"-O3", "-std=c++17", "-fPIC", "-fopenmp"}) {
    EXPECT_TRUE(has(f512, f)) << f;
    EXPECT_TRUE(has(f2, f)) << f;
  }
  EXPECT_TRUE(has(f512, "-mavx512bf16"));
  EXPECT_TRUE(has(f512, "-mavx512f"));
  EXPECT_FALSE(has(f2, "-mavx512f"));
  EXPECT_TRUE(has(f2, "-mavx2"));
}

} // namespace

namespace {

TEST(CpuGolden, RankOneBroadcastReadsTheSizeOneOperandAtZero) {
  std::string cpp = emitFromFile("test/codegen/inputs/broadcast_rank1.mlir", "bc", "bc_cpu");
  ASSERT_FALSE(cpp.empty());
  // The [1]-shaped max is indexed with 0 inside the loop over the 64 elements.
  std::regex readsAtZero(R"(\w+\[ix0\] = \w+\[ix0\] - \w+\[0\])");
  EXPECT_TRUE(std::regex_search(cpp, readsAtZero)) << cpp;
}

TEST(CpuGolden, PrefetchOfATileAndOfAWholeSlice) {
  std::string cpp = emitFromFile("test/codegen/inputs/prefetch.mlir", "pf", "pf_cpu");
  ASSERT_FALSE(cpp.empty());
  // A static tile into L1; a `?` size spans its whole dimension (-1), into L2.
  EXPECT_NE(cpp.find("ak::prefetch<ak::f32, 1>(arg0, {c1, c0}, {1, 16});"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("ak::prefetch<ak::f32, 2>(arg0, {c1, c0}, {1, -1});"), std::string::npos) << cpp;
}

TEST(CpuGolden, ProductsStartingFromConstantZerosFillTheirOwnTiles) {
  std::string cpp = emitFromFile("test/codegen/inputs/zeros_mma_loop.mlir", "zmma", "zmma_cpu");
  ASSERT_FALSE(cpp.empty());
  // %z only starts products: no tile of its own, each product fills its own in the loop.
  EXPECT_NE(cpp.find("// each product it starts fills its own"), std::string::npos) << cpp;
  const std::string body = loopBody(cpp, " < c4; ");  // the loop over key blocks
  ASSERT_FALSE(body.empty()) << cpp;
  EXPECT_TRUE(std::regex_search(body, std::regex(R"(ak::fill<64>\((\w+), cst\);[^\n]*\n\s*ak::mma<ak::f32, 8, 8, 16>\(\1, )")))
      << body;
  // %kept is also stored itself: it keeps its tile, and its product copies it.
  EXPECT_EQ(count(cpp, "ak::fill<8 * 8>("), 1u) << cpp;
  EXPECT_EQ(count(body, "ak::copy<64>("), 1u) << body;
  EXPECT_EQ(count(body, "ak::fill<64>("), 2u) << body;
}

TEST(CpuGolden, ProductFromZerosTimesAScalarIsOneScaledProduct) {
  std::string cpp = emitFromFile("test/codegen/inputs/scaled_mma.mlir", "smma", "smma_cpu");
  ASSERT_FALSE(cpp.empty());
  // s = mma(q, k, zeros) * scale: no fill, no pass of its own for the multiply.
  EXPECT_EQ(count(cpp, "ak::mma_scaled<ak::f32, 64, 40, 48>("), 1u) << cpp;
  EXPECT_TRUE(std::regex_search(cpp, std::regex(R"(ak::mma_scaled<ak::f32, 64, 40, 48>\(\w+, \w+, \w+, scale\);)")))
      << cpp;
  // t is also stored: it is filled, multiplied and scaled on its own.
  EXPECT_EQ(count(cpp, "ak::mma<ak::f32, 64, 40, 48>("), 1u) << cpp;
  EXPECT_EQ(count(cpp, "ak::fill<2560>("), 1u) << cpp;
  EXPECT_EQ(count(cpp, "* scale"), 1u) << cpp;
}

TEST(CpuGolden, ProductsOnTilesOtherInstancesReadKeepTheirPanels) {
  std::string cpp = emitFromFile("test/codegen/inputs/kept_panels.mlir", "kp", "kp_cpu");
  ASSERT_FALSE(cpp.empty());
  // %k's product (line 36) and its f32 twin (45): their tiles move with the loop and axis 0 alone, their
  // tensors are never stored; not %w's (39) or %o's (42).
  EXPECT_EQ(count(cpp, "ak::pack_reuse{}"), 2u) << cpp;
  EXPECT_TRUE(std::regex_search(
      cpp, std::regex(R"(ak::mma<ak::bf16, 32, 32, 64>\(\w+, \w+, \w+, ak::pack_reuse\{\}\);  // kept_panels.mlir:36:)")))
      << cpp;
  for (const char *line : {"39", "42"})
    EXPECT_TRUE(std::regex_search(
        cpp, std::regex(std::string(R"(ak::mma<ak::bf16, 32, 32, 64>\(\w+, \w+, \w+\);  // kept_panels.mlir:)") + line)))
        << line << cpp;
  EXPECT_TRUE(std::regex_search(
      cpp, std::regex(R"(ak::mma<ak::f32, 32, 32, 64>\(\w+, \w+, \w+, ak::pack_reuse\{\}\);  // kept_panels.mlir:45:)")))
      << cpp;
  // The entry numbers the launch once, and every instance enters it first.
  EXPECT_EQ(count(cpp, "const uint64_t launch = ak::next_pack_launch();"), 1u) << cpp;
  EXPECT_EQ(count(cpp, "ak::enter_pack_launch(launch), kp_cpu_instance(args, "), 2u) << cpp;
  // A kernel without such a product neither numbers nor enters launches.
  std::string gemm = emitFromFile("test/dialect/inputs/gemm_tn.mlir", "gemm_tn", "gemm_tn_cpu");
  EXPECT_EQ(count(gemm, "pack_launch"), 0u) << gemm;
}

TEST(CpuGolden, PrefetchBeforeAProductOfItsShapeGoesToThatProduct) {
  std::string cpp = emitFromFile("test/codegen/inputs/prefetch_mma.mlir", "pfmma", "pfmma_cpu");
  ASSERT_FALSE(cpp.empty());
  // The keys' next page goes to q k^T, the values' to p v (v read in place,
  // K x N): each the latest prefetch of its shape before the product.
  EXPECT_NE(cpp.find("ak::tile_shadow<2> next_tile = ak::prefetch_shadow<ak::bf16, 2>(K, {c16, c0}, {16, 128});"),
            std::string::npos)
      << cpp;
  EXPECT_NE(cpp.find("ak::tile_shadow<2> next_tile_1 = ak::prefetch_shadow<ak::bf16, 2>(V, {c16, c0}, {16, 128});"),
            std::string::npos)
      << cpp;
  EXPECT_TRUE(std::regex_search(cpp, std::regex(R"(ak::mma<ak::bf16, 4, 16, 128>\(\w+, \w+, \w+, next_tile\);)"))) << cpp;
  // p v also scales the output's rows first, in its epilogue: no pass of the multiply of its own.
  EXPECT_TRUE(std::regex_search(
      cpp, std::regex(R"(ak::mma_kn<ak::bf16, 4, 128, 16>\((\w+), \w+, \w+, next_tile_1, ak::row_scale\{\w+\}\);)")))
      << cpp;
  EXPECT_EQ(cpp.find("] * "), std::string::npos) << cpp; // no elementwise multiply of its own
  // Half a page: no product reads a tile of that shape.
  EXPECT_NE(cpp.find("ak::prefetch<ak::bf16, 2>(V, {c16, c0}, {8, 128});"), std::string::npos) << cpp;
}

} // namespace
