//===- gemm_validate_test.cpp - every argus_gemm argument error -----------===//
//
// One case per check of argus_gemm_validate.h: the status, and a message
// that starts with the function and names the offending field (with the
// value where there is one). A rejected call must not run a kernel or touch
// C. argus_gemm_kernel_name must reject the same arguments.
//
//===----------------------------------------------------------------------===//
#include "argus_gemm_validate.h"
#include "fake_library.h"
#include "runtime_testing.h"

#include <climits>
#include <cstddef>
#include <functional>
#include <string>

namespace {

using rt_test::contains;
using rt_test::GemmProblem;

struct ValidationCase {
  const char *name;
  std::function<void(argus_gemm_args &)> breakIt;
  argus_status status;
  std::vector<std::string> mustMention;
};

class GemmValidation : public ::testing::TestWithParam<ValidationCase> {};

TEST_P(GemmValidation, RejectsWithAPreciseMessage) {
  const ValidationCase &vc = GetParam();
  GemmProblem p(6, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 1.0f, false);
  ASSERT_EQ(argus_gemm(&p.args, nullptr), ARGUS_OK) << argus_last_error();
  p.c = p.cBefore;
  argus_gemm_args broken = p.args;
  vc.breakIt(broken);
  int64_t calls = fake::lastCall().calls;
  EXPECT_EQ(argus_gemm(&broken, nullptr), vc.status);
  std::string message = argus_last_error();
  EXPECT_EQ(message.rfind("argus_gemm: ", 0), 0u) << message;
  for (const std::string &word : vc.mustMention)
    EXPECT_TRUE(contains(message, word)) << "'" << message << "' does not mention '" << word << "'";
  EXPECT_EQ(fake::lastCall().calls, calls) << "a kernel ran on invalid arguments";
  EXPECT_EQ(p.c, p.cBefore) << "C was modified by a rejected call";

  EXPECT_EQ(argus_gemm_kernel_name(&broken), nullptr);
  EXPECT_TRUE(contains(argus_last_error(), "argus_gemm_kernel_name: ")) << argus_last_error();
}

const argus_status kInvalid = ARGUS_ERROR_INVALID_ARGUMENT;

INSTANTIATE_TEST_SUITE_P(
    AllChecks, GemmValidation,
    ::testing::Values(
        ValidationCase{"struct_size_zero", [](argus_gemm_args &g) { g.struct_size = 0; }, kInvalid,
                       {"struct_size (0)"}},
        ValidationCase{"struct_size_short", /* shorter than the struct before b_packed was added */
                       [](argus_gemm_args &g) { g.struct_size = offsetof(argus_gemm_args, b_packed) - 1; },
                       kInvalid, {"struct_size (" + std::to_string(offsetof(argus_gemm_args, b_packed) - 1)}},
        ValidationCase{"m_negative", [](argus_gemm_args &g) { g.m = -1; }, kInvalid, {"m (-1)"}},
        ValidationCase{"n_negative", [](argus_gemm_args &g) { g.n = -64; }, kInvalid, {"n (-64)"}},
        ValidationCase{"k_negative", [](argus_gemm_args &g) { g.k = -2; }, kInvalid, {"k (-2)"}},
        ValidationCase{"mk_overflow",
                       [](argus_gemm_args &g) {
                         g.m = INT64_MAX / 2, g.k = 3, g.lda = 3, g.ldb = 3, g.n = 1, g.ldc = 1;
                       },
                       kInvalid, {"m*k", "overflows"}},
        ValidationCase{"nk_overflow",
                       [](argus_gemm_args &g) {
                         g.m = 1, g.n = INT64_MAX / 2, g.k = 4, g.lda = 4, g.ldb = 4;
                         g.ldc = g.n;
                       },
                       kInvalid, {"n*k", "overflows"}},
        ValidationCase{"mn_overflow",
                       [](argus_gemm_args &g) {
                         g.m = INT64_MAX / 3, g.n = 5, g.k = 1, g.lda = 1, g.ldb = 1, g.ldc = 5;
                       },
                       kInvalid, {"m*n", "overflows"}},
        ValidationCase{"a_extent_overflow",
                       [](argus_gemm_args &g) { g.m = 4, g.lda = INT64_MAX / 2; }, kInvalid,
                       {"extent of A"}},
        ValidationCase{"c_extent_overflow",
                       [](argus_gemm_args &g) { g.ldc = INT64_MAX / 4; }, kInvalid,
                       {"extent of C"}},
        ValidationCase{"lda_small", [](argus_gemm_args &g) { g.lda = 31; }, kInvalid,
                       {"lda (31) must be >= k (32)"}},
        ValidationCase{"ldb_small", [](argus_gemm_args &g) { g.ldb = 0; }, kInvalid,
                       {"ldb (0) must be >= k (32)"}},
        ValidationCase{"ldc_small", [](argus_gemm_args &g) { g.ldc = 63; }, kInvalid,
                       {"ldc (63) must be >= n (64)"}},
        ValidationCase{"ld_negative_with_k0",
                       [](argus_gemm_args &g) { g.k = 0, g.lda = -1; }, kInvalid, {"lda (-1)"}},
        ValidationCase{"a_null", [](argus_gemm_args &g) { g.a = nullptr; }, kInvalid,
                       {"a is NULL", "192 elements"}},
        ValidationCase{"b_null", [](argus_gemm_args &g) { g.b = nullptr; }, kInvalid,
                       {"b is NULL"}},
        ValidationCase{"c_null", [](argus_gemm_args &g) { g.c = nullptr; }, kInvalid,
                       {"c is NULL"}},
        ValidationCase{"a_type_not_enum",
                       [](argus_gemm_args &g) { g.a_type = static_cast<argus_dtype>(9); },
                       kInvalid, {"a_type (9)"}},
        ValidationCase{"c_type_not_enum",
                       [](argus_gemm_args &g) { g.c_type = static_cast<argus_dtype>(-1); },
                       kInvalid, {"c_type (-1)"}},
        ValidationCase{"mixed_dtypes",
                       [](argus_gemm_args &g) { g.b_type = ARGUS_DTYPE_BF16; },
                       ARGUS_ERROR_UNSUPPORTED, {"a_type=f32", "b_type=bf16", "c_type=f32"}},
        ValidationCase{"f32_to_bf16",
                       [](argus_gemm_args &g) { g.c_type = ARGUS_DTYPE_BF16; },
                       ARGUS_ERROR_UNSUPPORTED, {"c_type=bf16"}},
        ValidationCase{"fp8",
                       [](argus_gemm_args &g) {
                         g.a_type = g.b_type = ARGUS_DTYPE_FP8_E4M3;
                       },
                       ARGUS_ERROR_UNSUPPORTED, {"fp8_e4m3"}}),
    [](const ::testing::TestParamInfo<ValidationCase> &info) { return info.param.name; });

TEST(GemmValidationNull, NullArgs) {
  EXPECT_EQ(argus_gemm(nullptr, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(argus_last_error(), "argus_gemm: args is NULL");
  EXPECT_EQ(argus_gemm_kernel_name(nullptr), nullptr);
  EXPECT_STREQ(argus_last_error(), "argus_gemm_kernel_name: args is NULL");
}

TEST(GemmValidationNull, NullPointersAllowedForEmptyOperands) {
  // k == 0: A and B are empty, only C is touched.
  GemmProblem p(3, 5, 0, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 2.0f, false);
  p.args.a = nullptr, p.args.b = nullptr;
  EXPECT_EQ(argus_gemm(&p.args, nullptr), ARGUS_OK) << argus_last_error();
  p.expectCorrect();
}

TEST(GemmValidationNull, PackedWeightsReplaceBAndLdb) {
  GemmProblem p(3, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 0.0f, false);
  argus_gemm_args g = p.args;
  int packedStandIn = 0; /* validateGemm does not read it: opening it is the target's step */
  g.b = nullptr, g.ldb = 0, g.b_packed = &packedStandIn;
  EXPECT_EQ(argus_rt::validateGemm(&g, "argus_gemm"), ARGUS_OK) << argus_last_error();
  // A struct that ends before b_packed has none: b and ldb are checked again.
  g.struct_size = offsetof(argus_gemm_args, b_packed);
  EXPECT_EQ(argus_rt::validateGemm(&g, "argus_gemm"), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(argus_last_error()).find("ldb (0) must be >= k (32)"), std::string::npos) << argus_last_error();
  // This stand-in library's kernels are AVX2 ones: packing is refused with the reason.
  argus_weights_desc w{sizeof(argus_weights_desc), 1, 64, 32, ARGUS_DTYPE_F32, p.args.b, 32, 0};
  EXPECT_EQ(argus_packed_weights_size(&w), 0u);
  EXPECT_EQ(argus_pack_weights(&w, nullptr, 0, nullptr), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(argus_last_error()).find("not built for AVX-512"), std::string::npos) << argus_last_error();
}

TEST(GemmValidationNull, NonFiniteAlphaBetaAreAllowed) {
  GemmProblem p(3, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, INFINITY, NAN, false);
  EXPECT_EQ(argus_gemm(&p.args, nullptr), ARGUS_OK) << argus_last_error();
}

TEST(GemmValidationNull, SupportedDtypeTable) {
  using argus_rt::gemmDtypesSupported;
  const argus_dtype all[] = {ARGUS_DTYPE_F32, ARGUS_DTYPE_F16, ARGUS_DTYPE_BF16,
                             ARGUS_DTYPE_FP8_E4M3};
  int supported = 0;
  for (argus_dtype a : all)
    for (argus_dtype b : all)
      for (argus_dtype c : all) supported += gemmDtypesSupported(a, b, c);
  EXPECT_EQ(supported, 5);
  EXPECT_TRUE(gemmDtypesSupported(ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32));
  EXPECT_TRUE(gemmDtypesSupported(ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16));
  EXPECT_TRUE(gemmDtypesSupported(ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, ARGUS_DTYPE_F32));
  EXPECT_TRUE(gemmDtypesSupported(ARGUS_DTYPE_F16, ARGUS_DTYPE_F16, ARGUS_DTYPE_F16));
  EXPECT_TRUE(gemmDtypesSupported(ARGUS_DTYPE_F16, ARGUS_DTYPE_F16, ARGUS_DTYPE_F32));
}

} // namespace
