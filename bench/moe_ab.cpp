//===- moe_ab.cpp - one MoE layer through two Argus libraries, alternating -===//
//
// An A/B probe (AbProbe.h) for argus_moe: Qwen3-30B-A3B's experts (hidden
// 2048, 128 experts of width 768, top-8) or Mixtral-8x7B's (hidden 4096, 8
// of width 14336, top-2), TOKENS tokens, bf16 or f32, the experts' weights
// plain or packed once by each library (argus_pack_weights: packed bytes are
// a library's own). Router logits carry a per-expert bias, so experts get
// uneven token counts. It reports each library's median GFLOP/s and the
// median of the per-iteration ratios B / A; both outputs must agree within
// 1e-2 of the largest.
//
//   argus_moe_ab LIB_A LIB_B TOKENS [ITERATIONS=21] [bf16|f32] [plain|packed|plain-packed] [qwen3|mixtral]
//
// plain-packed: A with plain weights, B with packed ones (LIB_A may be LIB_B).
//
// Threads: ARGUS_NUM_THREADS, read by both libraries.
//
//===----------------------------------------------------------------------===//

#include "argus_kernels.h"
#include "argus_numerics.h"

#include "AbProbe.h"
#include "PageAligned.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>

namespace {

/// The entry points of one library.
struct Library {
  decltype(&argus_moe) moe;
  decltype(&argus_moe_workspace_size) workspaceSize;
};

Library open(const char *path) {
  using argus::bench::loadAbSymbol;
  return {loadAbSymbol<decltype(&argus_moe)>("argus_moe_ab", path, "argus_moe"),
          loadAbSymbol<decltype(&argus_moe_workspace_size)>("argus_moe_ab", path, "argus_moe_workspace_size")};
}

using Buffer = std::unique_ptr<void, void (*)(void *)>;

Buffer aligned(size_t bytes) { return Buffer(std::aligned_alloc(64, (bytes + 63) / 64 * 64), std::free); }

} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: argus_moe_ab LIB_A LIB_B TOKENS [ITERATIONS=21] [bf16|f32] [plain|packed|plain-packed] "
                 "[qwen3|mixtral]\n");
    return 2;
  }
  const int64_t tokens = std::atoll(argv[3]);
  const int iterations = argc > 4 ? std::max(1, std::atoi(argv[4])) : 21;
  const std::string type = argc > 5 ? argv[5] : "bf16", form = argc > 6 ? argv[6] : "plain",
                    model = argc > 7 ? argv[7] : "qwen3";
  if ((type != "bf16" && type != "f32") || (form != "plain" && form != "packed" && form != "plain-packed") ||
      (model != "qwen3" && model != "mixtral") || tokens < 1) {
    std::fprintf(stderr, "argus_moe_ab: TOKENS > 0, bf16|f32, plain|packed|plain-packed, qwen3|mixtral\n");
    return 2;
  }
  const bool f32 = type == "f32", qwen3 = model == "qwen3";
  const int64_t H = qwen3 ? 2048 : 4096, I = qwen3 ? 768 : 14336, E = qwen3 ? 128 : 8, topK = qwen3 ? 8 : 2;
  const argus_dtype dtype = f32 ? ARGUS_DTYPE_F32 : ARGUS_DTYPE_BF16;
  const Library lib[2] = {open(argv[1]), open(argv[2])};

  // bf16 values; f32 operands hold the same values widened. Weights scaled
  // so that the layer's outputs stay near 1.
  std::mt19937 rng(1);
  auto operand = [&](size_t count, float scale) {
    const argus::bench::PageAlignedVector<uint16_t> v = argus::bench::randomBf16(count, rng);
    argus::bench::PageAlignedVector<uint16_t> out16;
    argus::bench::PageAlignedVector<float> out32;
    if (f32) {
      out32.resize(count);
      for (size_t i = 0; i < count; ++i) out32[i] = scale * argus_num::bf16_to_f32(v[i]);
    } else {
      out16.resize(count);
      for (size_t i = 0; i < count; ++i) out16[i] = argus_num::f32_to_bf16(scale * argus_num::bf16_to_f32(v[i]));
    }
    return std::make_pair(std::move(out16), std::move(out32));
  };
  auto pointer = [&](const auto &pair) {
    return f32 ? static_cast<const void *>(pair.second.data()) : static_cast<const void *>(pair.first.data());
  };
  const auto x = operand(size_t(tokens * H), 1.0f);
  const auto gateUp = operand(size_t(E * 2 * I * H), 1.0f / float(H) * 8);
  const auto down = operand(size_t(E * H * I), 1.0f / float(I) * 8);
  std::vector<float> logits(static_cast<size_t>(tokens * E)), bias(static_cast<size_t>(E));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float &b : bias) b = 0.5f * normal(rng);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = normal(rng) + bias[i % size_t(E)];

  Buffer packedGateUp[2] = {Buffer(nullptr, std::free), Buffer(nullptr, std::free)};
  Buffer packedDown[2] = {Buffer(nullptr, std::free), Buffer(nullptr, std::free)};
  Buffer workspace[2] = {Buffer(nullptr, std::free), Buffer(nullptr, std::free)};
  std::vector<char> out[2];
  argus_moe_args args[2];
  for (int which = 0; which < 2; ++which) {
    argus_moe_args &a = args[which];
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.num_tokens = tokens, a.hidden = H, a.intermediate = I, a.num_experts = E, a.top_k = topK, a.dtype = dtype;
    a.x = pointer(x), a.router_logits = logits.data(), a.w_gate_up = pointer(gateUp), a.w_down = pointer(down);
    a.renormalize = 1;
    if (form == "packed" || (form == "plain-packed" && which == 1)) {
      const argus_weights_desc gu{sizeof gu, 2 * E, I, H, dtype, a.w_gate_up, H, I * H};
      const argus_weights_desc dn{sizeof dn, E, H, I, dtype, a.w_down, I, H * I};
      packedGateUp[which] = argus::bench::packWithLibrary("argus_moe_ab", argv[1 + which], gu);
      packedDown[which] = argus::bench::packWithLibrary("argus_moe_ab", argv[1 + which], dn);
      a.w_gate_up_packed = packedGateUp[which].get(), a.w_down_packed = packedDown[which].get();
    }
    out[which].resize(size_t(tokens * H) * (f32 ? 4 : 2));
    a.out = out[which].data();
    a.workspace_size = lib[which].workspaceSize(&a);
    workspace[which] = aligned(a.workspace_size);
    a.workspace = workspace[which].get();
  }

  auto run = [&](int which) {
    if (lib[which].moe(&args[which], nullptr) != ARGUS_OK) {
      std::fprintf(stderr, "argus_moe_ab: library %c failed\n", which ? 'B' : 'A');
      std::exit(1);
    }
  };

  run(0), run(1);
  const double diff = argus::bench::checkAgreement("argus_moe_ab", size_t(tokens * H), 1e-2, [&](int which, size_t i) {
    if (f32) return double(reinterpret_cast<const float *>(out[which].data())[i]);
    return double(argus_num::bf16_to_f32(reinterpret_cast<const uint16_t *>(out[which].data())[i]));
  });

  const argus::bench::AbTimes times = argus::bench::alternate(iterations, run);
  using argus::bench::medianOf;
  const double gflop = 2.0 * double(tokens) * double(topK) * 3.0 * double(H) * double(I) / 1e9;
  std::printf("moe %s %s %s tokens=%lld: A %.1f GFLOP/s, B %.1f GFLOP/s, median B/A %.3f (%d iterations, max |A - B| %g)\n",
              model.c_str(), type.c_str(), form.c_str(), static_cast<long long>(tokens),
              gflop / medianOf(times.seconds[0]), gflop / medianOf(times.seconds[1]), medianOf(times.ratio),
              iterations, diff);
  return 0;
}
