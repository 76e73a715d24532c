//===- moe_problem.h - an argus_moe problem and its float64 check ----------===//
//
// Fresh random bf16 activations and expert weights, random f32 router
// logits (optionally biased so that one expert wins every token, or whole
// numbers so that ties are common), the output
// poisoned with NaN and followed by a guard run, and a comparison with the
// float64 reference (argus::ref::moeF64). The kernels round the SwiGLU
// activations to bf16 before the down projection, an error of 2^-9 per
// activation that sums like a random walk over the intermediate size; each
// element must be within 2^-8 |ref| + 2^-6 rms(its row of ref).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_EMULATION_MOE_PROBLEM_H
#define ARGUS_TEST_EMULATION_MOE_PROBLEM_H

#include "gpu/argus_gpu_moe_params.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace argus::gpu::test {

struct MoeProblem {
  int tokens, hidden, intermediate, experts, topK;
  bool renormalize;
  int favourite = -1;  // an expert every token routes to, or -1
  bool tiedLogits = false;  // whole-number logits: many ties, which go to the lower expert

  std::string describe() const;
};

struct MoeData {
  std::vector<uint16_t> x, wGateUp, wDown, out;  // out: tokens x hidden, then the guard
  std::vector<float> logits;

  MoeData(const MoeProblem &p, std::mt19937 &rng);
};

/// The GPU pipeline's workspace for `p`, poisoned (NaN everywhere), and its
/// argument over `data`.
struct MoeWorkspace {
  std::vector<uint64_t> bytes;
  MoeParams params;

  MoeWorkspace(const MoeProblem &p, MoeData &data);
};

/// The first few problems with `data.out` ("" when all is within tolerance).
std::string compareWithFloat64(const MoeProblem &p, const MoeData &data);

} // namespace argus::gpu::test

#endif // ARGUS_TEST_EMULATION_MOE_PROBLEM_H
