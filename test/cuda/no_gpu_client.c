/* A C99 client of a cuda-sm90a library on a machine WITHOUT a GPU: the library loads, describes
 * itself, plans (argus_gemm_kernel_name), rejects what its kernels cannot take with the right
 * status before asking for a device, and reports the missing GPU as ARGUS_ERROR_DEVICE.
 * Usage: no_gpu_client VERSION N K, where (N, K) is one of the library's catalog GEMMs. */
#include "argus_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void expect(int ok, const char *what) {
  if (!ok) {
    ++failures;
    printf("FAIL: %s (last error: %s)\n", what, argus_last_error() ? argus_last_error() : "none");
  } else {
    printf("ok: %s\n", what);
  }
}

static argus_attention_decode_args decode(int64_t batch, int64_t heads, int64_t kvHeads) {
  static char fake[64] __attribute__((aligned(16))); /* never dereferenced on the host */
  static int32_t table[4], lengths[4];
  argus_attention_decode_args d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.batch = batch, d.num_heads = heads, d.num_kv_heads = kvHeads, d.head_dim = 128, d.page_size = 16;
  d.max_pages_per_seq = 4;
  d.dtype = ARGUS_DTYPE_BF16;
  d.q = fake, d.k_cache = fake, d.v_cache = fake, d.o = fake;
  d.block_table = table, d.seqlens_kv = lengths;
  return d;
}

static argus_attention_prefill_args prefill(int64_t batch, int64_t headDim, int64_t valueDim) {
  static char fake[64] __attribute__((aligned(16))); /* never dereferenced on the host */
  static int32_t offsets[4];
  argus_attention_prefill_args p;
  memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  p.batch = batch, p.num_heads = 32, p.num_kv_heads = 8, p.head_dim = headDim, p.v_head_dim = valueDim;
  p.max_seqlen_q = p.max_seqlen_kv = 100;
  p.dtype = ARGUS_DTYPE_BF16;
  p.q = fake, p.k = fake, p.v = fake, p.o = fake;
  p.cu_seqlens_q = offsets, p.cu_seqlens_kv = offsets;
  p.causal = 1;
  return p;
}

static argus_moe_args moe(int64_t tokens, int64_t experts) {
  static char fake[64] __attribute__((aligned(16))); /* never dereferenced on the host */
  static float logits[4];
  argus_moe_args m;
  memset(&m, 0, sizeof m);
  m.struct_size = sizeof m;
  m.num_tokens = tokens, m.hidden = 4096, m.intermediate = 14336, m.num_experts = experts, m.top_k = 2;
  m.renormalize = 1;
  m.dtype = ARGUS_DTYPE_BF16;
  m.x = fake, m.router_logits = logits, m.w_gate_up = fake, m.w_down = fake, m.out = fake;
  m.workspace = fake; /* the size check reads the size only */
  m.workspace_size = argus_moe_workspace_size(&m);
  return m;
}

static argus_gemm_args gemm(int64_t m, int64_t n, int64_t k) {
  static char fake[64] __attribute__((aligned(16))); /* never dereferenced on the host */
  argus_gemm_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.m = m, a.n = n, a.k = k;
  a.a_type = a.b_type = a.c_type = ARGUS_DTYPE_BF16;
  a.a = fake, a.lda = k, a.b = fake, a.ldb = k, a.c = fake, a.ldc = n;
  a.alpha = 1.0f, a.beta = 0.0f;
  return a;
}

static int catalogKernel(const char *name) { return name && strstr(name, "argus_sm90_generic_") != name; }

int main(int argc, char **argv) {
  if (argc != 4) {
    printf("usage: %s VERSION N K\n", argv[0]);
    return 2;
  }
  const int64_t n = atoll(argv[2]), k = atoll(argv[3]);
  expect(argus_abi_version() == ARGUS_ABI_VERSION, "ABI version");
  expect(strcmp(argus_version(), argv[1]) == 0, "library version");
  expect(strstr(argus_manifest_json(), "cuda-sm90a") != NULL, "manifest names the target");

  argus_gemm_args a = gemm(16, n, k);
  expect(catalogKernel(argus_gemm_kernel_name(&a)), "a decode shape of a catalog GEMM plans a catalog kernel");
  a = gemm(3000, n, k);
  expect(catalogKernel(argus_gemm_kernel_name(&a)), "a prefill shape of a catalog GEMM plans a catalog kernel");
  a = gemm(2048, 1288, 8200);
  const char *name = argus_gemm_kernel_name(&a);
  expect(name && strstr(name, "argus_sm90_generic_") == name, "another shape plans a generic kernel");
  a = gemm(1, 1288, 8200);
  name = argus_gemm_kernel_name(&a);
  expect(name && strcmp(name, "argus_sm90_generic_r8_w8_u2_k4") == 0,
         "one row of A plans the few-rows kernel, its 81 row groups split 4 ways along k");
  a = gemm(13, 1288, 8200);
  name = argus_gemm_kernel_name(&a);
  expect(name && strcmp(name, "argus_sm90_generic_r16_w8_u2_k4") == 0, "13 rows: two blocks of tokens");
  a = gemm(16, 200000, 4096);
  name = argus_gemm_kernel_name(&a);
  expect(name && strcmp(name, "argus_sm90_generic_p_64x128_s6") == 0, "16 rows of a wide product: the tile kernel");

  expect(argus_gemm(NULL, NULL) == ARGUS_ERROR_INVALID_ARGUMENT, "NULL args are invalid");
  a = gemm(16, n, k);
  a.a_type = a.b_type = a.c_type = ARGUS_DTYPE_F32;
  expect(argus_gemm(&a, NULL) == ARGUS_ERROR_UNSUPPORTED, "f32 is unsupported on cuda-sm90a");
  /* What the Hopper kernels cannot take runs on the generated fallback kernels of an argus-gen library;
     the runtime test's hand-written tables have none, and say so. */
  const int generated = strstr(argus_manifest_json(), "\"generated_kernels\"") != NULL;
  a = gemm(16, n, k);
  a.lda = k + 4; /* rows 2k + 8 bytes apart: not a TMA pitch */
  name = argus_gemm_kernel_name(&a);
  if (generated) {
    expect(name && strcmp(name, "argus_cuda_gemm_32x64_w1x2") == 0,
           "a leading dimension TMA cannot stride plans the generated decode tile");
    a = gemm(300, n, k);
    a.a_type = a.b_type = a.c_type = ARGUS_DTYPE_F16;
    name = argus_gemm_kernel_name(&a);
    expect(name && strcmp(name, "argus_cuda_gemm_f16_64x128_w2x2") == 0, "f16 plans the generated f16 kernels");
    a.k = 0;
    name = argus_gemm_kernel_name(&a);
    expect(name && strcmp(name, "argus_cuda_gemm_f16_64x128_w2x2") == 0, "f16 with k = 0 too (it takes no k step)");
    a = gemm(16, n, k);
    a.a = (const char *)a.a + 2; /* 2-byte aligned, not 16 */
    expect(argus_gemm(&a, NULL) == ARGUS_ERROR_DEVICE, "a generated kernel's call reaches the device check");
  } else {
    expect(argus_gemm(&a, NULL) == ARGUS_ERROR_INTERNAL && strstr(argus_last_error(), "no generated"),
           "a library without generated kernels says so for a call only they could take");
  }
  a = gemm(16, n, k);
  a.a = (const char *)a.a + 1;
  expect(argus_gemm(&a, NULL) == ARGUS_ERROR_UNSUPPORTED && strstr(argus_last_error(), "2-byte"),
         "elements that straddle two are unsupported, and the message says why");
  a = gemm(0, n, k);
  expect(argus_gemm(&a, NULL) == ARGUS_OK, "an empty problem needs no device");
  /* Pre-packed weights are a CPU-target feature: refused with the reason, before any device call. */
  argus_weights_desc w;
  memset(&w, 0, sizeof w);
  w.struct_size = sizeof w, w.batch = 1, w.n = n, w.k = k, w.dtype = ARGUS_DTYPE_BF16, w.w = a.b, w.ldw = k;
  expect(argus_packed_weights_size(&w) == 0 && argus_pack_weights(&w, NULL, 0, NULL) == ARGUS_ERROR_UNSUPPORTED &&
             strstr(argus_last_error(), "cuda-sm90a"),
         "argus_pack_weights is unsupported on cuda-sm90a, and the message names the target");
  a = gemm(16, n, k);
  a.b_packed = a.b;
  expect(argus_gemm(&a, NULL) == ARGUS_ERROR_UNSUPPORTED && strstr(argus_last_error(), "b_packed"),
         "argus_gemm refuses b_packed on cuda-sm90a");

  a = gemm(16, n, k);
  expect(argus_gemm(&a, NULL) == ARGUS_ERROR_DEVICE && strstr(argus_last_error(), "CUDA") &&
             strstr(argus_last_error(), "argus_gemm"),
         "without a GPU, argus_gemm reports ARGUS_ERROR_DEVICE with the CUDA reason");
  printf("  (%s)\n", argus_last_error());

  argus_attention_prefill_args p = prefill(0, 128, 128);
  expect(argus_attention_prefill(&p, NULL) == ARGUS_OK, "an empty prefill batch needs no device");
  p = prefill(2, 96, 96);
  expect(argus_attention_prefill(&p, NULL) == ARGUS_ERROR_UNSUPPORTED && strstr(argus_last_error(), "head_dim 96"),
         "a head_dim the prefill kernels are not compiled for is unsupported, and named");
  p = prefill(2, 192, 128);
  expect(argus_attention_prefill(&p, NULL) == ARGUS_ERROR_DEVICE && strstr(argus_last_error(), "argus_attention_prefill"),
         "without a GPU, argus_attention_prefill reports ARGUS_ERROR_DEVICE");
  p = prefill(2, 128, 128);
  p.total_q = p.total_kv = 150; /* the TMA kernel's path */
  expect(argus_attention_prefill(&p, NULL) == ARGUS_ERROR_DEVICE, "with row counts too, no GPU is ARGUS_ERROR_DEVICE");
  p.total_kv = -1;
  expect(argus_attention_prefill(&p, NULL) == ARGUS_ERROR_INVALID_ARGUMENT && strstr(argus_last_error(), "total_kv"),
         "a negative row count is invalid, and named");

  argus_attention_decode_args d = decode(0, 32, 8);
  expect(argus_attention_decode(&d, NULL) == ARGUS_OK, "an empty decode batch needs no device");
  d = decode(2, 32, 8);
  d.dtype = ARGUS_DTYPE_F32;
  expect(argus_attention_decode(&d, NULL) == ARGUS_ERROR_UNSUPPORTED, "f32 decode is unsupported on cuda-sm90a");
  d = decode(2, 64, 4);
  expect(argus_attention_decode(&d, NULL) == ARGUS_ERROR_UNSUPPORTED && strstr(argus_last_error(), "16 query heads"),
         "16 query heads per KV head are more than the kernel serves, and it says so");
  d = decode(2, 32, 8);
  d.v_cache = (const char *)d.v_cache + 2;
  expect(argus_attention_decode(&d, NULL) == ARGUS_ERROR_UNSUPPORTED && strstr(argus_last_error(), "v_cache"),
         "a v_cache the kernel cannot read 8 bytes at a time is unsupported");
  d = decode(2, 32, 8);
  expect(argus_attention_decode(&d, NULL) == ARGUS_ERROR_DEVICE && strstr(argus_last_error(), "argus_attention_decode"),
         "without a GPU, argus_attention_decode reports ARGUS_ERROR_DEVICE");
  printf("  (%s)\n", argus_last_error());

  argus_moe_args m = moe(512, 8);
  expect(m.workspace_size > (size_t)512 * 2 * 4096 * 4, "the MoE workspace holds at least the routed f32 rows");
  m = moe(0, 8);
  expect(argus_moe(&m, NULL) == ARGUS_OK, "MoE of no token needs no device");
  m = moe(16, 300);
  expect(argus_moe(&m, NULL) == ARGUS_ERROR_UNSUPPORTED && strstr(argus_last_error(), "300 experts"),
         "more experts than the router holds are unsupported, and counted");
  m = moe(16, 8);
  m.workspace_size -= 1;
  expect(argus_moe(&m, NULL) == ARGUS_ERROR_INVALID_ARGUMENT, "a workspace one byte short is invalid");
  m = moe(16, 8);
  m.w_down_packed = m.w_down;
  expect(argus_moe(&m, NULL) == ARGUS_ERROR_UNSUPPORTED && strstr(argus_last_error(), "packed"),
         "argus_moe refuses packed weights on cuda-sm90a");
  m = moe(16, 8);
  expect(argus_moe(&m, NULL) == ARGUS_ERROR_DEVICE && strstr(argus_last_error(), "argus_moe"),
         "without a GPU, argus_moe reports ARGUS_ERROR_DEVICE");
  printf("  (%s)\n", argus_last_error());
  printf("%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
