// A client of a generated hip library (argus-gen build --target hip-gfx942 | hip-gfx90a), through
// its C ABI only, on a machine without an AMD GPU. It dlopens the library, as a serving engine
// might, and runs one scenario per process (the library reads its environment once):
//
//   no-runtime  LIB N K            no libamdhip64: planning still answers, argus_gemm reports
//                                  ARGUS_ERROR_DEVICE, bad arguments are caught before the device
//   fake        LIB N K FAKE_HIP   the fake runtime (fake_amdhip64.cpp) as the GPU: catalog and
//                                  generic GEMMs (bf16 and f16), beta, bias, k = 0, prefill and paged decode
//                                  attention and MoE, all against float64, on the caller's stream
//   wrong-arch  LIB N K FAKE_HIP   the fake device is another processor: a clear ARGUS_ERROR_DEVICE
//   no-device   LIB N K FAKE_HIP   the runtime sees no device
//   left-out    LIB N K            a library of test/hip/inputs/wide-heads.yaml (heads of 256), without
//                                  ROCm: its prefill kernels were left out (too much LDS), so prefill is
//                                  ARGUS_ERROR_UNSUPPORTED saying so, while its decode kernel is there
//
// (N, K) is one of the library's catalog GEMMs.
#include "argus_kernels.h"
#include "decode_problem.h"
#include "gemm_problem.h"
#include "moe_problem.h"
#include "prefill_problem.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const std::string &what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  failures += ok ? 0 : 1;
}

struct Library {
  decltype(&argus_gemm) gemm;
  decltype(&argus_gemm_kernel_name) kernelName;
  decltype(&argus_last_error) lastError;
  decltype(&argus_manifest_json) manifest;
  decltype(&argus_attention_prefill) attentionPrefill;
  decltype(&argus_attention_decode) attentionDecode;
  decltype(&argus_moe_workspace_size) moeWorkspaceSize;
  decltype(&argus_moe) moe;
};

template <typename F>
F symbol(void *handle, const char *name) {
  F f = reinterpret_cast<F>(dlsym(handle, name));
  if (!f) {
    std::fprintf(stderr, "%s is not exported: %s\n", name, dlerror());
    std::exit(2);
  }
  return f;
}

argus_gemm_args gemmArgs(int64_t m, int64_t n, int64_t k, const void *a, const void *b, void *c, int64_t lda,
                         int64_t ldb, int64_t ldc) {
  argus_gemm_args g;
  std::memset(&g, 0, sizeof g);
  g.struct_size = sizeof g;
  g.m = m, g.n = n, g.k = k;
  g.a_type = g.b_type = g.c_type = ARGUS_DTYPE_BF16;
  g.a = a, g.b = b, g.c = c;
  g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  g.alpha = 1.0f;
  return g;
}

bool contains(const char *text, const char *part) { return text && std::strstr(text, part); }

argus_attention_decode_args decodeArgs(const argus::gpu::test::DecodeProblem &p, argus::gpu::test::DecodeData &d) {
  argus_attention_decode_args a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.batch = p.batch();
  a.num_heads = p.heads;
  a.num_kv_heads = p.kvHeads;
  a.head_dim = p.headDim;
  a.v_head_dim = p.valueDim;
  a.page_size = p.pageSize;
  a.max_pages_per_seq = p.maxPagesPerSeq();
  a.dtype = p.f16 ? ARGUS_DTYPE_F16 : ARGUS_DTYPE_BF16;
  a.q = d.q.data();
  a.k_cache = d.kCache.data();
  a.v_cache = d.vCache.data();
  a.block_table = d.blockTable.data();
  a.seqlens_kv = d.seqlens.data();
  a.o = d.o.data();
  a.scale = p.scale;
  return a;
}

// The tiny catalog's attention: 4 query heads on 2 KV heads of 64.
const argus::gpu::test::DecodeProblem kTinyDecode{4, 2, 64, 64, 16, {0, 5, 100}, 0.0f};

argus_moe_args moeArgs(const argus::gpu::test::MoeProblem &p, argus::gpu::test::MoeData &d) {
  argus_moe_args a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.num_tokens = p.tokens;
  a.hidden = p.hidden;
  a.intermediate = p.intermediate;
  a.num_experts = p.experts;
  a.top_k = p.topK;
  a.dtype = ARGUS_DTYPE_BF16;
  a.x = d.x.data();
  a.router_logits = d.logits.data();
  a.w_gate_up = d.wGateUp.data();
  a.w_down = d.wDown.data();
  a.out = d.out.data();
  a.renormalize = p.renormalize;
  return a;
}

argus_attention_prefill_args prefillArgs(const argus::gpu::test::PrefillProblem &p,
                                         argus::gpu::test::PrefillData &d) {
  argus_attention_prefill_args a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.batch = p.batch();
  a.num_heads = p.heads;
  a.num_kv_heads = p.kvHeads;
  a.head_dim = p.headDim;
  a.v_head_dim = p.valueDim;
  a.max_seqlen_q = p.maxSeqQ();
  for (const auto &s : p.seqlens)
    a.max_seqlen_kv = std::max<int64_t>(a.max_seqlen_kv, s.second);
  a.dtype = p.f16 ? ARGUS_DTYPE_F16 : ARGUS_DTYPE_BF16;
  a.q = d.q.data();
  a.k = d.k.data();
  a.v = d.v.data();
  a.o = d.o.data();
  a.cu_seqlens_q = d.cuSeqlensQ.data();
  a.cu_seqlens_kv = d.cuSeqlensKv.data();
  a.causal = p.causal;
  a.scale = p.scale;
  return a;
}

// The tiny catalog's prefill: 4 query heads on 2 KV heads of 64, a causal varlen batch.
const argus::gpu::test::PrefillProblem kTinyPrefill{4, 2, 64, 64, true, {{70, 70}, {3, 40}}, 0.0f};

// A Mixtral-shaped MoE, small: top 2 of 8 experts, sizes off the tiles.
const argus::gpu::test::MoeProblem kSmallMoe{37, 128, 96, 8, 2, true};

// What the fake device runs the MoE pipeline on: experts that get no token, one that gets every
// token, tied logits, 8 to 256 experts, top-1 to top-8, renormalised or not, intermediate and
// hidden sizes that are not multiples of the tiles.
const argus::gpu::test::MoeProblem kMoeProblems[] = {
    kSmallMoe,
    {1, 64, 40, 8, 2, false},            // one token: most experts empty, most blocks past the routing's
    {70, 72, 64, 8, 2, true, 3},         // every token to expert 3
    {5, 64, 32, 128, 8, true},           // Qwen-like: top 8 of many experts
    {24, 64, 32, 16, 4, false, -1, true}, // tied logits go to the lower expert
    {9, 64, 64, 256, 1, false},          // the most experts, top 1
};

// Argument checks and planning: no device is asked.
void withoutDevice(const Library &lib, int64_t n, int64_t k) {
  alignas(16) static uint16_t buffer[64];
  argus_gemm_args g = gemmArgs(4, n, k, buffer, buffer, buffer, k, k, n);
  expect(contains(lib.manifest(), "\"code_object\""), "the manifest records the code object's kernels");
  expect(contains(lib.manifest(), "\"generated_kernels\"") && contains(lib.manifest(), "gemm_tn_cdna.argus"),
         "the manifest records which template each GEMM kernel was generated from");
  expect(contains(lib.manifest(), "\"parameters\": {") && contains(lib.manifest(), "\"BK\": 64,"),
         "the manifest records each generated kernel's parameters, the template's defaults (BK) included");
  const char *name = lib.kernelName(&g);
  expect(name && std::strstr(name, "argus_hip_gemm_") == name && contains(name, "_m4"),
         std::string("a decode shape of a catalog GEMM plans its bucket's kernel: ") + (name ? name : "(null)"));
  argus_gemm_args other = gemmArgs(300, 200, 72, buffer, buffer, buffer, 72, 72, 200);
  name = lib.kernelName(&other);
  expect(name && std::strncmp(name, "argus_hip_gemm_", 15) == 0,
         std::string("a shape outside the catalog plans a generic kernel: ") + (name ? name : "(null)"));
  expect(lib.gemm(nullptr, nullptr) == ARGUS_ERROR_INVALID_ARGUMENT, "NULL args are invalid");
  argus_gemm_args f32 = g;
  f32.a_type = f32.b_type = f32.c_type = ARGUS_DTYPE_F32;
  expect(lib.gemm(&f32, nullptr) == ARGUS_ERROR_UNSUPPORTED && contains(lib.lastError(), "bf16"),
         "f32 is unsupported, and the message says what is");
  // Any pitch and any element-aligned address is read (runs that are not 16-byte aligned element by
  // element), but not elements that straddle two.
  argus_gemm_args misaligned = gemmArgs(4, n, k, reinterpret_cast<char *>(buffer) + 1, buffer, buffer, k, k, n);
  expect(lib.gemm(&misaligned, nullptr) == ARGUS_ERROR_UNSUPPORTED && contains(lib.lastError(), "2-byte"),
         "an A whose elements straddle two is unsupported, and the message says why");
  argus_gemm_args empty = gemmArgs(0, n, k, buffer, buffer, buffer, k, k, n);
  expect(lib.gemm(&empty, nullptr) == ARGUS_OK, "an empty problem needs no device");
  std::mt19937 rng(7);
  argus::gpu::test::PrefillData prefillData(kTinyPrefill, rng);
  argus_attention_prefill_args prefill = prefillArgs(kTinyPrefill, prefillData);
  prefill.head_dim = prefill.v_head_dim = 96;
  expect(lib.attentionPrefill(&prefill, nullptr) == ARGUS_ERROR_UNSUPPORTED && contains(lib.lastError(), "head_dim 96"),
         "prefill: a head_dim the kernel does not take is unsupported, with the reason");
  prefill.head_dim = prefill.v_head_dim = kTinyPrefill.headDim;
  const argus_status sp = lib.attentionPrefill(&prefill, nullptr);
  expect(sp == ARGUS_ERROR_DEVICE && contains(lib.lastError(), "no HIP runtime"),
         std::string("prefill without ROCm is ARGUS_ERROR_DEVICE: ") + lib.lastError());
  argus::gpu::test::DecodeData data(kTinyDecode, rng);
  argus_attention_decode_args decode = decodeArgs(kTinyDecode, data);
  expect(lib.attentionDecode(nullptr, nullptr) == ARGUS_ERROR_INVALID_ARGUMENT, "decode: NULL args are invalid");
  decode.dtype = ARGUS_DTYPE_F32;
  expect(lib.attentionDecode(&decode, nullptr) == ARGUS_ERROR_UNSUPPORTED && contains(lib.lastError(), "bf16"),
         "decode: f32 is unsupported, and the message says what is");
  decode.dtype = ARGUS_DTYPE_BF16;
  decode.num_heads = 18;  // 9 per KV head
  expect(lib.attentionDecode(&decode, nullptr) == ARGUS_ERROR_UNSUPPORTED && contains(lib.lastError(), "9 query heads"),
         "decode: a GQA group beyond the kernel's is unsupported, with the reason");
  decode.num_heads = kTinyDecode.heads;
  decode.page_size = 32;
  expect(lib.attentionDecode(&decode, nullptr) == ARGUS_ERROR_UNSUPPORTED &&
             contains(lib.lastError(), "page_size 32") && contains(lib.lastError(), "page_size 16"),
         std::string("decode: a page size the catalog did not name is unsupported, naming the catalog's: ") +
             lib.lastError());
  decode.page_size = kTinyDecode.pageSize;
  decode.batch = 0;
  expect(lib.attentionDecode(&decode, nullptr) == ARGUS_OK, "decode: an empty batch needs no device");
  decode.batch = kTinyDecode.batch();
  const argus_status s = lib.attentionDecode(&decode, nullptr);
  expect(s == ARGUS_ERROR_DEVICE && contains(lib.lastError(), "no HIP runtime"),
         std::string("decode without ROCm is ARGUS_ERROR_DEVICE: ") + lib.lastError());

  argus::gpu::test::MoeData moeData(kSmallMoe, rng);
  argus_moe_args moe = moeArgs(kSmallMoe, moeData);
  const size_t bytes = lib.moeWorkspaceSize(&moe);
  expect(bytes > 0, "MoE: the workspace size answers without a device: " + std::to_string(bytes) + " bytes");
  std::vector<uint64_t> workspace(bytes / 8 + 1);
  moe.workspace = workspace.data();
  moe.workspace_size = bytes - 1;
  expect(lib.moe(&moe, nullptr) == ARGUS_ERROR_INVALID_ARGUMENT && contains(lib.lastError(), "workspace_size"),
         "MoE: a workspace one byte short is invalid, and the message says so");
  moe.workspace_size = bytes;
  moe.dtype = ARGUS_DTYPE_F16;
  expect(lib.moe(&moe, nullptr) == ARGUS_ERROR_UNSUPPORTED && contains(lib.lastError(), "bf16"),
         "MoE: f16 is unsupported, and the message says what is");
  moe.dtype = ARGUS_DTYPE_BF16;
  const argus_status m = lib.moe(&moe, nullptr);
  expect(m == ARGUS_ERROR_DEVICE && contains(lib.lastError(), "no HIP runtime"),
         std::string("MoE without ROCm is ARGUS_ERROR_DEVICE: ") + lib.lastError());
}

argus_status runOne(const Library &lib, const argus::gpu::test::GemmProblem &p, argus::gpu::test::GemmData &d,
                    void *stream) {
  argus_gemm_args g = gemmArgs(p.m, p.n, p.k, d.a.data(), d.b.data(), d.c.data(), p.lda(), p.ldb(), p.ldc());
  if (p.f16)
    g.a_type = g.b_type = g.c_type = ARGUS_DTYPE_F16;
  g.alpha = p.alpha;
  g.beta = p.beta;
  g.bias = d.biasOrNull(p);
  return lib.gemm(&g, stream);
}

void onFakeDevice(const Library &lib, void *fake, int64_t n, int64_t k) {
  auto launches = symbol<int (*)()>(fake, "fake_hip_launches");
  auto lastStream = symbol<void *(*)()>(fake, "fake_hip_last_stream");
  auto lastKernel = symbol<const char *(*)()>(fake, "fake_hip_last_kernel");
  std::mt19937 rng(2026);
  void *const stream = reinterpret_cast<void *>(0x5eed);
  const argus::gpu::test::GemmProblem problems[] = {
      {3, int(n), int(k), 1.0f, 0.0f, false},         // catalog decode bucket
      {77, int(n), int(k), 0.5f, -1.0f, true},        // catalog, beta and bias
      {130, 45, 200, 1.0f, 0.0f, true},               // generic kernel, ragged everything
      {9, 70, 0, 1.0f, 0.5f, true},                   // k = 0: C = beta C + bias
      {40, int(n), int(k), 1.0f, 0.25f, true, true},  // f16: a catalog (n, k), the generic f16 kernel
      {3, 50, 0, 1.0f, -1.0f, true, true},            // f16, k = 0
  };
  for (const auto &p : problems) {
    argus::gpu::test::GemmData d(p, rng);
    const int before = launches();
    const argus_status s = runOne(lib, p, d, stream);
    expect(s == ARGUS_OK, p.describe() + ": argus_gemm returns ARGUS_OK" +
                              (s == ARGUS_OK ? "" : std::string(" (") + lib.lastError() + ")"));
    expect(launches() == before + 1 && lastStream() == stream,
           p.describe() + ": one launch, on the caller's stream (" + lastKernel() + ")");
    const std::string problems = argus::gpu::test::compareWithFloat64(p, d);
    expect(problems.empty(), p.describe() + ": every element matches float64" + (problems.empty() ? "" : "\n" + problems));
  }
  for (bool f16 : {false, true}) {  // attention in bf16, then in f16 (its own kernels)
    argus::gpu::test::DecodeProblem decodeProblem = kTinyDecode;
    decodeProblem.f16 = f16;
    argus::gpu::test::DecodeData data(decodeProblem, rng);
    argus_attention_decode_args decode = decodeArgs(decodeProblem, data);
    const int before = launches();
    const argus_status s = lib.attentionDecode(&decode, stream);
    expect(s == ARGUS_OK && launches() == before + 1 && lastStream() == stream &&
               contains(lastKernel(), "argus_hip_decode_") && contains(lastKernel(), "_f16") == f16,
           "decode " + decodeProblem.describe() + ": one launch on the caller's stream (" + lastKernel() + ")");
    // The generated kernel rounds the softmax weights to the element type before P·V.
    const std::string decodeProblems =
        argus::gpu::test::compareWithFloat64(decodeProblem, data, argus::gpu::test::DecodeWeights::Bf16);
    expect(decodeProblems.empty(), "decode " + decodeProblem.describe() + ": every element matches float64" +
                                       (decodeProblems.empty() ? "" : "\n" + decodeProblems));

    argus::gpu::test::PrefillProblem prefillProblem = kTinyPrefill;
    prefillProblem.f16 = f16;
    argus::gpu::test::PrefillData prefillData(prefillProblem, rng);
    argus_attention_prefill_args prefill = prefillArgs(prefillProblem, prefillData);
    const int beforePrefill = launches();
    const argus_status sp = lib.attentionPrefill(&prefill, stream);
    expect(sp == ARGUS_OK && launches() == beforePrefill + 1 && lastStream() == stream &&
               contains(lastKernel(), "_f16") == f16,
           "prefill " + prefillProblem.describe() + ": one launch on the caller's stream (" + lastKernel() + ")");
    const std::string prefillProblems = argus::gpu::test::compareWithFloat64(prefillProblem, prefillData);
    expect(prefillProblems.empty(), "prefill " + prefillProblem.describe() + ": every element matches float64" +
                                        (prefillProblems.empty() ? "" : "\n" + prefillProblems));
  }

  for (const argus::gpu::test::MoeProblem &p : kMoeProblems) {
    argus::gpu::test::MoeData moeData(p, rng);
    argus_moe_args moe = moeArgs(p, moeData);
    std::vector<uint64_t> workspace(lib.moeWorkspaceSize(&moe) / 8 + 1);
    // NaN as bf16 or f32 wherever a kernel reads what none wrote; as i32, an index far out of range.
    std::fill(workspace.begin(), workspace.end(), uint64_t(0x7fc07fc07fc07fc0));
    moe.workspace = workspace.data();
    moe.workspace_size = workspace.size() * 8;
    const int beforeMoe = launches();
    const argus_status m = lib.moe(&moe, stream);
    expect(m == ARGUS_OK && launches() == beforeMoe + 8 && lastStream() == stream,
           "MoE " + p.describe() + ": eight launches on the caller's stream, the last " + lastKernel() +
               (m == ARGUS_OK ? "" : std::string(" (") + lib.lastError() + ")"));
    const std::string moeProblems = argus::gpu::test::compareWithFloat64(p, moeData);
    expect(moeProblems.empty(), "MoE " + p.describe() + ": every element matches float64" +
                                    (moeProblems.empty() ? "" : "\n" + moeProblems));
  }
}

// wide-heads.yaml's attention (2 query heads on 1 KV head of 256): the build left its prefill kernels out.
void leftOutPrefill(const Library &lib) {
  expect(contains(lib.manifest(), "\"left_out_kernels\"") &&
             contains(lib.manifest(), "argus_hip_prefill_g2_d256_256") && contains(lib.manifest(), "bytes of LDS"),
         "the manifest names the prefill kernel the build left out, and why");
  std::mt19937 rng(9);
  const argus::gpu::test::PrefillProblem wide{2, 1, 256, 256, true, {{20, 20}, {3, 9}}, 0.0f};
  argus::gpu::test::PrefillData prefillData(wide, rng);
  argus_attention_prefill_args prefill = prefillArgs(wide, prefillData);
  const argus_status sp = lib.attentionPrefill(&prefill, nullptr);
  expect(sp == ARGUS_ERROR_UNSUPPORTED && contains(lib.lastError(), "head_dim 256/256") &&
             contains(lib.lastError(), "left_out_kernels"),
         std::string("prefill of a left-out configuration is unsupported, pointing at the manifest: ") +
             lib.lastError());
  const argus::gpu::test::DecodeProblem wideDecode{2, 1, 256, 256, 16, {5, 40}, 0.0f};
  argus::gpu::test::DecodeData decodeData(wideDecode, rng);
  argus_attention_decode_args decode = decodeArgs(wideDecode, decodeData);
  const argus_status sd = lib.attentionDecode(&decode, nullptr);
  expect(sd == ARGUS_ERROR_DEVICE && contains(lib.lastError(), "no HIP runtime"),
         std::string("decode at head_dim 256 has its kernel (without ROCm: ARGUS_ERROR_DEVICE): ") +
             lib.lastError());
}

} // namespace

int main(int argc, char **argv) {
  const bool withoutRuntime =
      argc >= 2 && (std::strcmp(argv[1], "no-runtime") == 0 || std::strcmp(argv[1], "left-out") == 0);
  if (argc < 5 || (!withoutRuntime && argc < 6)) {
    std::fprintf(stderr, "usage: %s no-runtime|left-out|fake|wrong-arch|no-device LIBRARY N K [FAKE_HIP_RUNTIME]\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const int64_t n = std::atoll(argv[3]), k = std::atoll(argv[4]);
  if (withoutRuntime)
    setenv("ARGUS_HIP_RUNTIME", "/nonexistent/libamdhip64.so", 1);
  else
    setenv("ARGUS_HIP_RUNTIME", argv[5], 1);
  void *handle = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[2], dlerror());
    return 2;
  }
  const Library lib{symbol<decltype(&argus_gemm)>(handle, "argus_gemm"),
                    symbol<decltype(&argus_gemm_kernel_name)>(handle, "argus_gemm_kernel_name"),
                    symbol<decltype(&argus_last_error)>(handle, "argus_last_error"),
                    symbol<decltype(&argus_manifest_json)>(handle, "argus_manifest_json"),
                    symbol<decltype(&argus_attention_prefill)>(handle, "argus_attention_prefill"),
                    symbol<decltype(&argus_attention_decode)>(handle, "argus_attention_decode"),
                    symbol<decltype(&argus_moe_workspace_size)>(handle, "argus_moe_workspace_size"),
                    symbol<decltype(&argus_moe)>(handle, "argus_moe")};

  alignas(16) static uint16_t buffer[4096];
  argus_gemm_args small = gemmArgs(2, 8, 8, buffer, buffer + 64, buffer + 128, 8, 8, 8);
  if (mode == "no-runtime") {
    withoutDevice(lib, n, k);
    const argus_status s = lib.gemm(&small, nullptr);
    expect(s == ARGUS_ERROR_DEVICE && contains(lib.lastError(), "no HIP runtime") &&
               contains(lib.lastError(), "/nonexistent/libamdhip64.so"),
           std::string("without ROCm, argus_gemm reports ARGUS_ERROR_DEVICE naming the runtime: ") + lib.lastError());
  } else if (mode == "left-out") {
    leftOutPrefill(lib);
  } else if (mode == "fake") {
    void *fake = dlopen(argv[5], RTLD_NOW | RTLD_LOCAL);
    expect(fake != nullptr, "the fake runtime loads");
    if (fake)
      onFakeDevice(lib, fake, n, k);
  } else if (mode == "wrong-arch") {
    const argus_status s = lib.gemm(&small, nullptr);
    expect(s == ARGUS_ERROR_DEVICE && contains(lib.lastError(), "cannot load") &&
               contains(lib.lastError(), "hipErrorNoBinaryForGpu"),
           std::string("a GPU of another architecture is ARGUS_ERROR_DEVICE with HIP's reason: ") + lib.lastError());
  } else if (mode == "no-device") {
    const argus_status s = lib.gemm(&small, nullptr);
    expect(s == ARGUS_ERROR_DEVICE && contains(lib.lastError(), "no AMD GPU"),
           std::string("no device is ARGUS_ERROR_DEVICE: ") + lib.lastError());
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
