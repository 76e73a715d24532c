//===- generated_kernels.h - kernels argus-gen emitted from DSL templates ---===//
//
// The GPU backend's output, compiled for the host with ARGUS_HIP_EMULATE or
// ARGUS_CUDA_EMULATE: each generated unit is included by a small case file
// (generated_gemm_case.cpp.in, configured per template instance by
// argus_emit_generated) that adapts a test problem to the kernel's parameter
// struct, launches it on the target's emulator and registers itself here.
// Each test binary serves one target and links its emulateLaunch.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_EMULATION_GENERATED_KERNELS_H
#define ARGUS_TEST_EMULATION_GENERATED_KERNELS_H

#include "gemm_problem.h"
#include "decode_problem.h"
#include "prefill_problem.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace argus::gpu::test {

/// Runs `body` on every thread of a grid of CTAs / workgroups on the test
/// binary's emulator (hip_emulate_launch.cpp, cuda_emulate_launch.cpp).
void emulateLaunch(const int64_t (&grid)[3], int threads, int sharedBytes, const std::function<void()> &body);

/// Runs `body` on every thread of the launch a generated `*_launch` function returned.
template <class LaunchShape, class Body>
void emulate(const LaunchShape &shape, const Body &body) {
  if (shape.error)
    throw std::runtime_error(std::string("the launch refused its arguments: ") + shape.error);
  emulateLaunch(shape.grid, shape.threads, shape.sharedBytes, body);
}

/// One GEMM kernel generated from a GEMM template (gemm_tn_cdna.argus).
struct GeneratedGemm {
  std::string symbol;
  int bm, bn;
  bool f16; // f16 operands and C (else bf16)
  bool fp8; // gfx942's fp8 operands, bf16 C
  /// Runs the kernel on the emulator over `data` (C updated in place).
  std::function<void(const GemmProblem &, GemmData &)> run;
};

/// A SwiGLU expert's first half, H = silu(X·Wgᵀ) * (X·Wuᵀ), in bf16 with row pitches.
struct GateUpProblem {
  int m, n, k;
  int64_t ldx, ldw, ldh;
};
struct GateUpData {
  std::vector<uint16_t> x, wg, wu, h; // h: (m + 1) x ldh, a guard row after the last
};

/// One kernel generated from a MoE gate/up template.
struct GeneratedGateUp {
  std::string symbol;
  std::function<void(const GateUpProblem &, GateUpData &)> run;
};

/// One kernel generated from a prefill attention template (attention_prefill_cdna.argus)
/// for a GQA group and head dims; one launch serves a varlen batch.
struct GeneratedPrefill {
  std::string symbol;
  int group, headDim, valueDim;
  bool f16; // f16 q, k, v and o (else bf16)
  /// Runs the kernel on the emulator over the batch of `data` (O written).
  std::function<void(const PrefillProblem &, PrefillData &)> run;
};

/// One kernel generated from a paged decode template (attention_decode_cdna.argus)
/// for a GQA group, head dims and page size; one launch serves the batch.
struct GeneratedDecode {
  std::string symbol;
  int group, headDim, valueDim, pageSize;
  bool f16; // f16 q, caches and o (else bf16)
  /// Runs the kernel on the emulator (O written).
  std::function<void(const DecodeProblem &, DecodeData &)> run;
};

/// Every generated kernel of one kind: each case file registers its own at static initialisation.
template <class Kernel>
std::vector<Kernel> &generated() {
  static std::vector<Kernel> kernels;
  return kernels;
}

template <class Kernel>
bool registerGenerated(Kernel kernel) {
  generated<Kernel>().push_back(std::move(kernel));
  return true;
}

} // namespace argus::gpu::test

#endif // ARGUS_TEST_EMULATION_GENERATED_KERNELS_H
