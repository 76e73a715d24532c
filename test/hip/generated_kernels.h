//===- generated_kernels.h - kernels argus-gen emitted from DSL templates ---===//
//
// The HIP backend's output for the CDNA templates, compiled for the host with
// ARGUS_HIP_EMULATE: each generated unit is included by a small case file
// (generated_gemm_case.cpp.in, configured per template instance by CMake) that
// adapts a test problem to the kernel's parameter struct, launches it on the
// wave emulator and registers itself here.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_HIP_GENERATED_KERNELS_H
#define ARGUS_TEST_HIP_GENERATED_KERNELS_H

#include "argus_hip_emulator.h"
#include "gemm_problem.h"
#include "decode_problem.h"
#include "prefill_problem.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace argus::hip::test {

using namespace argus::gpu::test;  // the problems the generated kernels are checked with

/// Runs `body` on every work-item of the launch a generated `*_launch` function returned.
template <class LaunchShape, class Body>
void emulate(const LaunchShape &shape, const Body &body) {
  if (shape.error)
    throw std::runtime_error(std::string("the launch refused its arguments: ") + shape.error);
  emu::Launch launch;
  launch.gridX = int(shape.grid[0]);
  launch.gridY = int(shape.grid[1]);
  launch.gridZ = int(shape.grid[2]);
  launch.threads = shape.threads;
  launch.ldsBytes = shape.sharedBytes;
  emu::run(launch, body);
}

/// One GEMM kernel generated from templates/gemm/gemm_tn_cdna.argus.
struct GeneratedGemm {
  std::string symbol;
  int bm, bn;
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

/// One kernel generated from templates/moe/moe_gate_up_cdna.argus.
struct GeneratedGateUp {
  std::string symbol;
  std::function<void(const GateUpProblem &, GateUpData &)> run;
};

/// One kernel generated from templates/attention/attention_prefill_cdna.argus
/// for a GQA group and head dims; it serves one sequence per launch.
struct GeneratedPrefill {
  std::string symbol;
  int group, headDim, valueDim;
  /// Runs the kernel on the emulator over every sequence of `data` (O written).
  std::function<void(const PrefillProblem &, PrefillData &)> run;
};

/// One kernel generated from templates/attention/attention_decode_cdna.argus
/// for a GQA group, head dims and page size; one launch serves the batch.
struct GeneratedDecode {
  std::string symbol;
  int group, headDim, valueDim, pageSize;
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

} // namespace argus::hip::test

#endif // ARGUS_TEST_HIP_GENERATED_KERNELS_H
