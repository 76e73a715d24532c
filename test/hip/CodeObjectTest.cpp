// What clang made of the CDNA kernels, read from the code object argus-gen put in a hip library
// ($ARGUS_CODE_OBJECT, its processor $ARGUS_CODE_OBJECT_ARCH): every GEMM kernel of
// kGemmShapes, bf16 and f16 where the shape has it (generated from gemm_tn_cdna.argus), is there, issues MFMAs, uses no
// scratch and spills nothing, takes exactly the LDS its shape declares and fits one workgroup per
// compute unit; the catalog's generated prefill and decode kernels and the generated MoE pipeline are there
// too, with no scratch. Plus the checker itself, on resource figures that must be refused and on files that are not
// code objects.
#include "argus/Emit/CodeObject.h"

#include "argus_hip_schedule.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace argus::emit;

namespace {

std::string environment(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

TEST(CodeObject, EveryGemmKernelIsThereWithMfmaAndNoScratch) {
  const std::string path = environment("ARGUS_CODE_OBJECT");
  if (path.empty())
    GTEST_SKIP() << "ARGUS_CODE_OBJECT names no code object (ctest sets it)";
  auto inspected = inspectCodeObject(path, llvmTool("llvm-objdump"));
  ASSERT_TRUE(std::holds_alternative<CodeObjectInfo>(inspected)) << std::get<std::string>(inspected);
  const CodeObjectInfo &info = std::get<CodeObjectInfo>(inspected);
  EXPECT_EQ(info.arch, environment("ARGUS_CODE_OBJECT_ARCH")) << info.target;
  for (const argus::hip::GemmShape &shape : argus::hip::kGemmShapes)
    for (bool f16 : {false, true}) {
      char symbol[48];
      argus::hip::gemmKernelSymbol(shape, f16, symbol);
      const KernelResources *k = nullptr;
      for (const KernelResources &r : info.kernels)
        if (r.name == symbol)
          k = &r;
      if (f16 && !shape.inF16) {
        EXPECT_EQ(k, nullptr) << symbol << " is in " << path << ", though its shape is bf16 only";
        continue;
      }
      ASSERT_NE(k, nullptr) << symbol << " is not in " << path;
      // A 64-deep k step issues eight 32x32x8 MFMAs per 32x32 block of the wave's quadrant.
      EXPECT_GE(k->mfmaInstructions, 8 * shape.blocksM() * shape.blocksN()) << symbol;
      EXPECT_GT(k->instructions, k->mfmaInstructions) << symbol << ": the listing's instructions, all counted";
      // The element type's own 32x32x8 MFMA and no other (gfx942 spells it v_mfma_f32_32x32x8_bf16,
      // gfx90a v_mfma_f32_32x32x8bf16_1k; f16 likewise without the b).
      ASSERT_EQ(k->mfmaOpcodes.size(), 1u) << symbol;
      const std::string &opcode = k->mfmaOpcodes[0];
      EXPECT_EQ(opcode.rfind("v_mfma_f32_32x32x8", 0), 0u) << symbol << ": " << opcode;
      EXPECT_EQ(opcode.find("bf16") != std::string::npos, !f16) << symbol << ": " << opcode;
      EXPECT_NE(opcode.find("f16"), std::string::npos) << symbol << ": " << opcode;
      EXPECT_EQ(k->scratchBytes, 0) << symbol;
      EXPECT_EQ(k->vgprSpills + k->sgprSpills, 0) << symbol;
      EXPECT_EQ(k->ldsBytes, shape.ldsBytes()) << symbol;
      EXPECT_EQ(k->workgroupSize, shape.threads()) << symbol;
      EXPECT_EQ(k->wavefrontSize, 64) << symbol;
      EXPECT_GE(k->vgprs, shape.accumulatorRegisters()) << symbol << ": where do the accumulators live?";
      EXPECT_EQ(resourceProblems(*k), "") << symbol;
    }
}

TEST(CodeObject, AttentionAndMoeKernelsAreThereWithNoScratch) {
  const std::string path = environment("ARGUS_CODE_OBJECT");
  if (path.empty())
    GTEST_SKIP() << "ARGUS_CODE_OBJECT names no code object (ctest sets it)";
  auto inspected = inspectCodeObject(path, llvmTool("llvm-objdump"));
  ASSERT_TRUE(std::holds_alternative<CodeObjectInfo>(inspected)) << std::get<std::string>(inspected);
  // Symbol, work-items, MFMAs expected (the expert GEMMs' two waves run MFMAs; the one-wave
  // routing kernels none: route, the align steps, gather and combine).
  const struct {
    const char *name;
    int threads;
    bool mfma;
  } expected[] = {
      {"argus_hip_decode_g2_d64_64_p16", 4 * 64, true}, // generated for the tiny catalog's attention
      {"argus_hip_decode_f16_g2_d64_64_p16", 4 * 64, true},
      {"argus_hip_prefill_g2_d64_64", 4 * 64, true}, // likewise
      {"argus_hip_prefill_f16_g2_d64_64", 4 * 64, true},
      {"argus_hip_moe_route", 64, false},
      {"argus_hip_moe_align_offsets", 64, false},
      {"argus_hip_moe_align_rows", 64, false},
      {"argus_hip_moe_align_choice_row", 64, false},
      {"argus_hip_moe_gather", 64, false},
      {"argus_hip_moe_gate_up", 2 * 64, true},
      {"argus_hip_moe_down", 2 * 64, true},
      {"argus_hip_moe_combine", 64, false},
  };
  for (const auto &e : expected) {
    const KernelResources *k = nullptr;
    for (const KernelResources &r : std::get<CodeObjectInfo>(inspected).kernels)
      if (r.name == e.name)
        k = &r;
    ASSERT_NE(k, nullptr) << e.name << " is not in " << path;
    EXPECT_EQ(k->workgroupSize, e.threads) << e.name;
    EXPECT_EQ(k->mfmaInstructions > 0, e.mfma) << e.name << ": " << k->mfmaInstructions << " MFMAs";
    EXPECT_EQ(k->scratchBytes, 0) << e.name;
    EXPECT_EQ(resourceProblems(*k), "") << e.name;
  }
}

// The HIP backend's kernels ($ARGUS_GENERATED_CODE_OBJECT: every instance test/hip/CMakeLists.txt
// emits; the GEMM ones, argus_hip_gemm[_f16]_<BM>x<BN>_w<WM>x<WN>, are a library's): each wave's
// GEMM quadrant issues one 32x32x8 MFMA per 32x32 block and 8 k of a 64-deep step, the MoE expert
// kernels 16x16x16 ones (their 16-row tiles), and nothing spills VGPRs or goes to scratch.
TEST(CodeObject, GeneratedKernelsHaveMfmaAndNoScratch) {
  const std::string path = environment("ARGUS_GENERATED_CODE_OBJECT");
  if (path.empty())
    GTEST_SKIP() << "ARGUS_GENERATED_CODE_OBJECT names no code object (ctest sets it)";
  auto inspected = inspectCodeObject(path, llvmTool("llvm-objdump"));
  ASSERT_TRUE(std::holds_alternative<CodeObjectInfo>(inspected)) << std::get<std::string>(inspected);
  const CodeObjectInfo &info = std::get<CodeObjectInfo>(inspected);
  EXPECT_EQ(info.arch, environment("ARGUS_CODE_OBJECT_ARCH")) << info.target;
  ASSERT_EQ(info.kernels.size(), size_t(std::atoi(environment("ARGUS_GENERATED_KERNELS").c_str())))
      << "one kernel per template instance";
  // No kernel spills VGPRs or takes scratch: not the attention ones either, which need about 512
  // registers (VGPRs and AGPRs) at head_dim 192. Their loads and stores check bounds only at a
  // tile that crosses the tensor's edge (a uniform branch), so no lane masks pile up in SGPRs;
  // an SGPR spill, if any, parks a value in a VGPR lane now and then (resourceProblems).
  for (const KernelResources &k : info.kernels) {
    EXPECT_EQ(k.scratchBytes, 0) << k.name;
    EXPECT_EQ(k.vgprSpills, 0) << k.name;
    EXPECT_LE(k.laneMoves * kMaxLaneMoveShare, k.instructions) << k.name;
    EXPECT_EQ(resourceProblems(k), "") << k.name;
    if (k.name.rfind("argus_hip_decode_", 0) == 0) {
      // Every product is padded onto 16x16x16: the scores (group rows of 16) and P·V.
      ASSERT_EQ(k.mfmaOpcodes.size(), 1u) << k.name;
      EXPECT_EQ(k.mfmaOpcodes[0].rfind("v_mfma_f32_16x16x16", 0), 0u) << k.name << ": " << k.mfmaOpcodes[0];
      EXPECT_GE(k.mfmaInstructions, 8) << k.name;
      EXPECT_EQ(k.workgroupSize, 4 * 64) << k.name;
      continue;
    }
    if (k.name == "argus_hip_moe_gate_up" || k.name == "argus_hip_moe_down") {
      // Four 16 x 32 products of a 64-deep step: 2 blocks x 4 k-steps each.
      EXPECT_GE(k.mfmaInstructions, 4 * 2 * 4) << k.name;
      ASSERT_EQ(k.mfmaOpcodes.size(), 1u) << k.name;
      EXPECT_EQ(k.mfmaOpcodes[0].rfind("v_mfma_f32_16x16x16", 0), 0u) << k.name << ": " << k.mfmaOpcodes[0];
      EXPECT_EQ(k.workgroupSize, 128) << k.name;
      continue;
    }
    if (k.name.rfind("argus_hip_moe_", 0) == 0) {
      // The routing kernels (route, the align steps, gather, combine): one wave ranking a token's
      // experts, counting and placing choices, or moving rows; no products.
      EXPECT_EQ(k.mfmaInstructions, 0) << k.name;
      EXPECT_EQ(k.workgroupSize, 64) << k.name;
      continue;
    }
    int group = 0, d = 0, dv = 0;
    if (std::sscanf(k.name.c_str(), "argus_hip_prefill_g%d_d%d_%d", &group, &d, &dv) == 3 ||
        std::sscanf(k.name.c_str(), "argus_hip_prefill_f16_g%d_d%d_%d", &group, &d, &dv) == 3) {
      // Per block of 64 keys: S = Q·Kᵀ on 16x16x16 (four 32 x 16 products, d / 16 k-steps each)
      // and P·V on 32x32x8 (four 32 x dv products of 16 k).
      ASSERT_EQ(k.mfmaOpcodes.size(), 2u) << k.name;
      EXPECT_EQ(k.mfmaOpcodes[0].rfind("v_mfma_f32_16x16x16", 0), 0u) << k.name << ": " << k.mfmaOpcodes[0];
      EXPECT_EQ(k.mfmaOpcodes[1].rfind("v_mfma_f32_32x32x8", 0), 0u) << k.name << ": " << k.mfmaOpcodes[1];
      EXPECT_GE(k.mfmaInstructions, 4 * 2 * (d / 16) + 4 * (dv / 32) * 2) << k.name;
      EXPECT_EQ(k.workgroupSize, 4 * 64) << k.name;
      continue;
    }
    int bm = 0, bn = 0, wm = 0, wn = 0;
    const bool f16 = k.name.rfind("argus_hip_gemm_f16_", 0) == 0, fp8 = k.name.rfind("argus_hip_gemm_fp8_", 0) == 0;
    const bool async = k.name.rfind("argus_hip_gemm_async_", 0) == 0; // bf16, staged with copy_async
    const char *pattern = f16     ? "argus_hip_gemm_f16_%dx%d_w%dx%d"
                          : fp8   ? "argus_hip_gemm_fp8_%dx%d_w%dx%d"
                          : async ? "argus_hip_gemm_async_%dx%d_w%dx%d"
                                  : "argus_hip_gemm_%dx%d_w%dx%d";
    ASSERT_EQ(std::sscanf(k.name.c_str(), pattern, &bm, &bn, &wm, &wn), 4) << k.name;
    // Every 32 x 32 block of a wave's quadrant takes a K step in 64 / 8 MFMAs (fp8: 128 / 16).
    const int blocks = (bm / wm / 32) * (bn / wn / 32);
    EXPECT_GE(k.mfmaInstructions, blocks * 8) << k.name;
    ASSERT_EQ(k.mfmaOpcodes.size(), 1u) << k.name;
    if (fp8) {
      EXPECT_EQ(info.arch, "gfx942") << k.name;
      EXPECT_EQ(k.mfmaOpcodes[0], "v_mfma_f32_32x32x16_fp8_fp8") << k.name;
      EXPECT_EQ(k.workgroupSize, wm * wn * 64) << k.name;
      continue;
    }
    EXPECT_EQ(k.mfmaOpcodes[0].rfind("v_mfma_f32_32x32x8", 0), 0u) << k.name << ": " << k.mfmaOpcodes[0];
    EXPECT_EQ(k.mfmaOpcodes[0].find("bf16") != std::string::npos, !f16) << k.name << ": " << k.mfmaOpcodes[0];
    EXPECT_EQ(k.workgroupSize, wm * wn * 64) << k.name;
  }
}

TEST(CodeObject, ResourceProblemsNameWhatBreaksTheBudget) {
  KernelResources k;
  k.name = "kernel";
  k.vgprs = 128;
  k.workgroupSize = 256;
  k.wavefrontSize = 64;
  EXPECT_EQ(resourceProblems(k), "");
  KernelResources scratch = k;
  scratch.scratchBytes = 16;
  EXPECT_NE(resourceProblems(scratch).find("16 bytes of scratch"), std::string::npos);
  KernelResources spills = k;
  spills.vgprSpills = 3;
  EXPECT_NE(resourceProblems(spills).find("3 VGPR and 0 SGPR spills"), std::string::npos);
  // SGPR spills into VGPR lanes: a few lane moves pass, one in every kMaxLaneMoveShare
  // instructions or more does not.
  KernelResources lanes = k;
  lanes.sgprSpills = 2;
  lanes.instructions = 2000;
  lanes.laneMoves = 4;
  EXPECT_EQ(resourceProblems(lanes), "");
  lanes.laneMoves = 2000 / kMaxLaneMoveShare + 1;
  EXPECT_NE(resourceProblems(lanes).find("2 SGPR spills (21 lane moves in 2000 instructions)"), std::string::npos)
      << resourceProblems(lanes);
  KernelResources crowded = k;  // 1024 work-items: four waves per SIMD, 128 registers each at most
  crowded.workgroupSize = 1024;
  crowded.vgprs = 136;
  crowded.agprs = 16;
  EXPECT_NE(resourceProblems(crowded).find("136 registers (16 of them AGPRs) do not fit 4 waves per SIMD"),
            std::string::npos);
  KernelResources wide = k;  // one wave per SIMD may take all 512, AGPRs included
  wide.vgprs = 292;
  wide.agprs = 36;
  EXPECT_EQ(resourceProblems(wide), "");
  wide.agprs = 260;
  EXPECT_NE(resourceProblems(wide).find("do not fit"), std::string::npos);
  KernelResources lds = k;
  lds.ldsBytes = 65537;
  EXPECT_NE(resourceProblems(lds).find("65537 bytes of LDS"), std::string::npos);
}

TEST(CodeObject, OtherFilesAreRefusedWithTheirName) {
  const std::string text = ::testing::TempDir() + "/not_a_code_object.co";
  std::ofstream(text) << "hello";
  auto inspected = inspectCodeObject(text, llvmTool("llvm-objdump"));
  ASSERT_TRUE(std::holds_alternative<std::string>(inspected));
  EXPECT_NE(std::get<std::string>(inspected).find(text), std::string::npos) << std::get<std::string>(inspected);
  auto missing = inspectCodeObject("/nonexistent/x.co", llvmTool("llvm-objdump"));
  ASSERT_TRUE(std::holds_alternative<std::string>(missing));
  EXPECT_NE(std::get<std::string>(missing).find("cannot read code object"), std::string::npos);
}

} // namespace
