/*===- gemm_client.c - a C99 engine's view of an Argus kernel library -----===*
 *
 * What a serving engine written in C does with libargus_kernels.so: include
 * argus_kernels.h and nothing else from Argus, link the library, call it.
 * The library under test is chosen at build time; the shapes come from the
 * command line, so the same client checks the test library of this folder
 * and, later, a real generated library.
 *
 *   gemm_client [--seed N] [--verbose] [--packed yes|no] SHAPE...
 *   SHAPE = MxNxK:AB[:C][@EXPECT[/PACKED]]
 *     AB, C   f32 | bf16 | f16 (C defaults to AB)
 *     EXPECT  the kernel name argus_gemm_kernel_name must report, or
 *             UNSUPPORTED when argus_gemm must refuse the shape (ARGUS_STRICT)
 *     PACKED  the name for calls with pre-packed weights, where it differs
 *             (plain f32 weights may run transposed on another kernel)
 *   e.g. gemm_client 5x64x32:f32 9x96x48:bf16:f32@bf16f32_n96_k48_m32 3x7x5:bf16
 *
 * For each shape, three calls (beta = 0 with C poisoned with NaN; beta != 0
 * with a bias and padded leading dimensions; a negative alpha with bias),
 * each compared element-wise with a double-precision reference, and the
 * padding between n and ldc checked untouched. Then the error contract:
 * NULL pointers, negative sizes, too-small leading dimensions and a wrong
 * struct_size each return ARGUS_ERROR_INVALID_ARGUMENT with a non-empty
 * argus_last_error().
 *
 * --packed yes: the library packs f32 and bf16 weights (argus_pack_weights):
 * each such shape runs twice more with b_packed (b itself poisoned), and
 * packed weights of another shape, misaligned or not packed at all are
 * refused; f16 weights must be refused with UNSUPPORTED. --packed no: the
 * library must refuse every dtype with UNSUPPORTED (targets that compute
 * from plain weights). Without the option packing is not exercised.
 *
 * Prints one line per check and a PASS/FAIL summary;
 * exits 0 when everything passed, 1 otherwise, 2 on bad usage.
 *
 * It must compile with gcc -std=c99 -Wall -Werror: no C11, no extensions.
 * Inputs are generated directly as bf16/f16 bit patterns, so no rounding
 * routine is needed on the client side (decoding is exact).
 *
 *===----------------------------------------------------------------------===*/
#include "argus_kernels.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_failures = 0;
static int g_packed = -1; /* --packed: 1 yes, 0 no, -1 not checked */
static int g_checks = 0;
static int g_verbose = 0;
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

static void check(int ok, const char *what, const char *detail) {
  ++g_checks;
  if (!ok) ++g_failures;
  if (!ok || g_verbose) printf("%s  %s%s%s\n", ok ? "ok  " : "FAIL", what, detail ? ": " : "",
                               detail ? detail : "");
}

/* ---- numbers ----------------------------------------------------------- */

static uint64_t next_random(void) { /* xorshift64* */
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return g_rng * 0x2545f4914f6cdd1dull;
}

/* Uniform in [-1, 1), never exactly 0. */
static float random_float(void) {
  double u = (double)(next_random() >> 11) / 9007199254740992.0;
  float f = (float)(2.0 * u - 1.0);
  return f == 0.0f ? 0.375f : f;
}

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static double bf16_value(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static double f16_value(uint16_t h) {
  int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double magnitude;
  if (exponent == 0x1f)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = ldexp((double)mantissa, -24);
  else
    magnitude = ldexp((double)(mantissa | 0x400), exponent - 25);
  return sign ? -magnitude : magnitude;
}

/* A random non-zero f16 of magnitude in [2^-5, 2): exact, no rounding. */
static uint16_t random_f16(void) {
  uint64_t r = next_random();
  uint16_t sign = (uint16_t)((r & 1) << 15);
  uint16_t exponent = (uint16_t)(10 + (r >> 1) % 6);
  uint16_t mantissa = (uint16_t)((r >> 8) & 0x3ff);
  return (uint16_t)(sign | (exponent << 10) | mantissa);
}

static size_t dtype_bytes(argus_dtype t) { return t == ARGUS_DTYPE_F32 ? 4 : 2; }

static double get(const void *base, int64_t i, argus_dtype t) {
  if (t == ARGUS_DTYPE_F32) return ((const float *)base)[i];
  if (t == ARGUS_DTYPE_BF16) return bf16_value(((const uint16_t *)base)[i]);
  return f16_value(((const uint16_t *)base)[i]);
}

static void put_random(void *base, int64_t i, argus_dtype t) {
  if (t == ARGUS_DTYPE_F32)
    ((float *)base)[i] = random_float();
  else if (t == ARGUS_DTYPE_BF16)
    ((uint16_t *)base)[i] = (uint16_t)(float_bits(random_float()) >> 16);
  else
    ((uint16_t *)base)[i] = random_f16();
}

static void put_nan(void *base, int64_t i, argus_dtype t) {
  if (t == ARGUS_DTYPE_F32)
    ((float *)base)[i] = NAN;
  else
    ((uint16_t *)base)[i] = t == ARGUS_DTYPE_BF16 ? 0x7fc0 : 0x7e00;
}

/* ---- command line ------------------------------------------------------ */

typedef struct {
  int64_t m, n, k;
  argus_dtype ab, c;
  char expect[128];        /* "" = anything, "UNSUPPORTED", or a kernel name */
  char expect_packed[128]; /* the same for calls with b_packed */
  const char *text;
} shape;

static int parse_dtype(const char *s, size_t len, argus_dtype *out) {
  if (len == 3 && strncmp(s, "f32", 3) == 0) *out = ARGUS_DTYPE_F32;
  else if (len == 4 && strncmp(s, "bf16", 4) == 0) *out = ARGUS_DTYPE_BF16;
  else if (len == 3 && strncmp(s, "f16", 3) == 0) *out = ARGUS_DTYPE_F16;
  else return 0;
  return 1;
}

static int parse_shape(const char *text, shape *s) {
  long long m, n, k;
  int used = 0;
  memset(s, 0, sizeof *s);
  s->text = text;
  if (sscanf(text, "%lldx%lldx%lld:%n", &m, &n, &k, &used) != 3 || used == 0) return 0;
  s->m = m, s->n = n, s->k = k;
  const char *rest = text + used;
  const char *at = strchr(rest, '@');
  const char *end = at ? at : rest + strlen(rest);
  const char *colon = memchr(rest, ':', (size_t)(end - rest));
  if (!parse_dtype(rest, (size_t)((colon ? colon : end) - rest), &s->ab)) return 0;
  s->c = s->ab;
  if (colon && !parse_dtype(colon + 1, (size_t)(end - colon - 1), &s->c)) return 0;
  if (at) {
    const char *slash = strchr(at + 1, '/');
    const size_t plain = slash ? (size_t)(slash - at - 1) : strlen(at + 1);
    if (plain >= sizeof s->expect || (slash && strlen(slash + 1) >= sizeof s->expect_packed)) return 0;
    memcpy(s->expect, at + 1, plain);
    s->expect[plain] = '\0';
    strcpy(s->expect_packed, slash ? slash + 1 : s->expect);
  }
  return m >= 0 && n >= 0 && k >= 0;
}

/* ---- one GEMM, checked ------------------------------------------------- */

typedef struct {
  float alpha, beta;
  int bias;
  int64_t pad;
  int packed; /* b given to argus_gemm pre-packed (b_packed), b itself poisoned */
} config;

/* ---- pre-packed weights ------------------------------------------------ */

/* A 64-byte aligned block inside a malloc'd one (C99 has no aligned_alloc). */
typedef struct {
  void *raw, *at;
} aligned_block;

static int aligned_alloc64(aligned_block *blk, size_t bytes) {
  blk->raw = malloc(bytes + 64);
  blk->at = blk->raw ? (void *)(((uintptr_t)blk->raw + 63) & ~(uintptr_t)63) : NULL;
  return blk->raw != NULL;
}

/* Packs the n x k weights b (row stride ldb) with argus_pack_weights into
 * *blk; returns the status (UNSUPPORTED where the library has no packed
 * layout for the dtype). */
static argus_status pack_b(aligned_block *blk, const void *b, int64_t n, int64_t k, int64_t ldb, argus_dtype t) {
  argus_weights_desc w;
  memset(&w, 0, sizeof w);
  w.struct_size = sizeof w;
  w.batch = 1, w.n = n, w.k = k, w.dtype = t, w.w = b, w.ldw = ldb;
  size_t bytes = argus_packed_weights_size(&w);
  blk->raw = blk->at = NULL;
  if (bytes == 0) return argus_pack_weights(&w, NULL, 0, NULL); /* for its status and message */
  if (!aligned_alloc64(blk, bytes)) return ARGUS_ERROR_INTERNAL;
  return argus_pack_weights(&w, blk->at, bytes, NULL);
}

static void run_case(const shape *s, const config *cfg) {
  char what[256], detail[512];
  snprintf(what, sizeof what, "%s alpha=%g beta=%g bias=%d pad=%lld%s", s->text, cfg->alpha,
           cfg->beta, cfg->bias, (long long)cfg->pad, cfg->packed ? " packed" : "");
  int64_t lda = s->k + cfg->pad, ldb = s->k + 2 * cfg->pad, ldc = s->n + cfg->pad;
  size_t ab = dtype_bytes(s->ab), cb = dtype_bytes(s->c);
  size_t a_count = (size_t)(s->m * lda), b_count = (size_t)(s->n * ldb),
         c_count = (size_t)(s->m * ldc);
  void *a = malloc(ab * a_count + 1), *b = malloc(ab * b_count + 1);
  void *c = malloc(cb * c_count + 1), *c0 = malloc(cb * c_count + 1);
  void *bias = malloc(cb * (size_t)s->n + 1);
  aligned_block packed = {NULL, NULL};
  void *b_used = b; /* what the reference reads: b, or its copy when b is poisoned */
  if (!a || !b || !c || !c0 || !bias) {
    check(0, what, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < a_count; ++i) put_random(a, (int64_t)i, s->ab);
  for (size_t i = 0; i < b_count; ++i) put_random(b, (int64_t)i, s->ab);
  for (int64_t j = 0; j < s->n; ++j) put_random(bias, j, s->c);
  for (size_t i = 0; i < c_count; ++i) { /* padding keeps a random sentinel */
    int64_t col = (int64_t)i % ldc;
    if (col < s->n && cfg->beta == 0.0f)
      put_nan(c, (int64_t)i, s->c); /* must be overwritten without being read */
    else
      put_random(c, (int64_t)i, s->c);
  }
  memcpy(c0, c, cb * c_count);
  if (cfg->packed && s->n > 0 && s->k > 0) {
    argus_status ps = pack_b(&packed, b, s->n, s->k, ldb, s->ab);
    if (ps != ARGUS_OK) {
      snprintf(detail, sizeof detail, "argus_pack_weights: %s: %s", argus_status_string(ps), argus_last_error());
      check(0, what, detail);
      goto done;
    }
    b_used = malloc(ab * b_count + 1);
    if (!b_used) {
      b_used = b;
      check(0, what, "out of memory");
      goto done;
    }
    memcpy(b_used, b, ab * b_count);
    for (size_t i = 0; i < b_count; ++i) put_nan(b, (int64_t)i, s->ab); /* the kernels must not read b */
  }

  argus_gemm_args g;
  memset(&g, 0, sizeof g);
  g.struct_size = sizeof g;
  g.m = s->m, g.n = s->n, g.k = s->k;
  g.a_type = s->ab, g.b_type = s->ab, g.c_type = s->c;
  g.a = a, g.lda = lda, g.b = b, g.ldb = ldb, g.c = c, g.ldc = ldc;
  g.bias = cfg->bias ? bias : NULL;
  g.alpha = cfg->alpha, g.beta = cfg->beta;
  g.b_packed = packed.at;

  const char *kernel = argus_gemm_kernel_name(&g);
  argus_status status = argus_gemm(&g, NULL);
  if (strcmp(s->expect, "UNSUPPORTED") == 0) {
    snprintf(detail, sizeof detail, "status %s, message '%s'", argus_status_string(status),
             argus_last_error());
    check(status == ARGUS_ERROR_UNSUPPORTED && kernel == NULL && argus_last_error()[0] != '\0',
          what, detail);
    check(memcmp(c, c0, cb * c_count) == 0, what, "C untouched by a refused call");
    goto done;
  }
  if (status != ARGUS_OK) {
    snprintf(detail, sizeof detail, "status %s: %s", argus_status_string(status),
             argus_last_error());
    check(0, what, detail);
    goto done;
  }
  if (s->expect[0]) {
    const char *want = cfg->packed ? s->expect_packed : s->expect;
    snprintf(detail, sizeof detail, "kernel '%s', expected '%s'", kernel ? kernel : "(null)", want);
    check(kernel && strcmp(kernel, want) == 0, what, detail);
  }

  double out_eps = s->c == ARGUS_DTYPE_BF16 ? ldexp(1.0, -8)
                   : s->c == ARGUS_DTYPE_F16 ? ldexp(1.0, -11) : 0.0;
  int64_t bad = 0;
  detail[0] = '\0';
  for (int64_t i = 0; i < s->m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      int64_t at = i * ldc + j;
      if (j >= s->n) { /* padding: bit-identical */
        if (memcmp((char *)c + at * cb, (char *)c0 + at * cb, cb) != 0 && bad++ == 0)
          snprintf(detail, sizeof detail, "padding C[%lld][%lld] was written", (long long)i,
                   (long long)j);
        continue;
      }
      double acc = 0.0, mag = 0.0;
      for (int64_t p = 0; p < s->k; ++p) {
        double prod = get(a, i * lda + p, s->ab) * get(b_used, j * ldb + p, s->ab);
        acc += prod;
        mag += fabs(prod);
      }
      double want = (double)cfg->alpha * acc;
      mag *= fabs((double)cfg->alpha);
      if (cfg->beta != 0.0f) {
        double old = (double)cfg->beta * get(c0, at, s->c);
        want += old;
        mag += fabs(old);
      }
      if (cfg->bias) {
        want += get(bias, j, s->c);
        mag += fabs(get(bias, j, s->c));
      }
      double got = get(c, at, s->c);
      double tol = (double)(s->k + 4) * ldexp(1.0, -24) * mag + out_eps * fabs(want) + 1e-30;
      if (!(fabs(got - want) <= tol) && bad++ == 0)
        snprintf(detail, sizeof detail, "C[%lld][%lld] = %.9g, want %.9g +- %.3g",
                 (long long)i, (long long)j, got, want, tol);
    }
  }
  if (bad) {
    size_t len = strlen(detail);
    snprintf(detail + len, sizeof detail - len, " (%lld bad elements, kernel %s)",
             (long long)bad, kernel ? kernel : "(null)");
  } else {
    snprintf(detail, sizeof detail, "kernel %s", kernel ? kernel : "(null)");
  }
  check(bad == 0, what, detail);
done:
  if (b_used != b) free(b_used);
  free(a), free(b), free(c), free(c0), free(bias), free(packed.raw);
}

/* ---- the error contract ------------------------------------------------ */

static void expect_invalid(const argus_gemm_args *g, const char *what) {
  argus_status status = argus_gemm(g, NULL);
  const char *message = argus_last_error();
  char detail[512];
  snprintf(detail, sizeof detail, "status %s, message '%s'", argus_status_string(status),
           message ? message : "(null)");
  check(status == ARGUS_ERROR_INVALID_ARGUMENT && message && message[0] != '\0', what, detail);
}

static void error_checks(void) {
  float a[4 * 5], b[3 * 5], c[4 * 3];
  int i;
  for (i = 0; i < 20; ++i) a[i] = random_float();
  for (i = 0; i < 15; ++i) b[i] = random_float();
  for (i = 0; i < 12; ++i) c[i] = NAN;
  argus_gemm_args good;
  memset(&good, 0, sizeof good);
  good.struct_size = sizeof good;
  good.m = 4, good.n = 3, good.k = 5;
  good.a_type = good.b_type = good.c_type = ARGUS_DTYPE_F32;
  good.a = a, good.lda = 5, good.b = b, good.ldb = 5, good.c = c, good.ldc = 3;
  good.alpha = 1.0f, good.beta = 0.0f;
  /* Under ARGUS_STRICT this shape may be refused (not in the catalog);
   * argument checks come first either way. */
  const char *strict = getenv("ARGUS_STRICT");
  int strict_on = strict && strict[0] && strcmp(strict, "0") != 0;
  argus_status status = argus_gemm(&good, NULL);
  check(status == ARGUS_OK || (strict_on && status == ARGUS_ERROR_UNSUPPORTED),
        "error checks: the unbroken call is accepted", argus_last_error());

  argus_gemm_args g;
  expect_invalid(NULL, "NULL args");
  g = good, g.a = NULL;
  expect_invalid(&g, "NULL a");
  g = good, g.b = NULL;
  expect_invalid(&g, "NULL b");
  g = good, g.c = NULL;
  expect_invalid(&g, "NULL c");
  g = good, g.m = -1;
  expect_invalid(&g, "negative m");
  g = good, g.n = -3;
  expect_invalid(&g, "negative n");
  g = good, g.k = -5;
  expect_invalid(&g, "negative k");
  g = good, g.lda = 4;
  expect_invalid(&g, "lda < k");
  g = good, g.ldb = 2;
  expect_invalid(&g, "ldb < k");
  g = good, g.ldc = 2;
  expect_invalid(&g, "ldc < n");
  g = good, g.struct_size = 0;
  expect_invalid(&g, "struct_size 0");
  g = good, g.struct_size = offsetof(argus_gemm_args, b_packed) - 1;
  expect_invalid(&g, "struct_size too small");
  g = good, g.struct_size = offsetof(argus_gemm_args, b_packed), g.b_packed = (const void *)1;
  status = argus_gemm(&g, NULL); /* a caller built against the header before b_packed */
  check(status == ARGUS_OK || (strict_on && status == ARGUS_ERROR_UNSUPPORTED),
        "error checks: a struct ending before b_packed is accepted (and b_packed not read)", argus_last_error());
  g = good, g.m = INT64_MAX / 2, g.k = 4, g.lda = 4, g.ldb = 4;
  expect_invalid(&g, "m*k overflows");
  check(argus_gemm_kernel_name(NULL) == NULL && argus_last_error()[0] != '\0',
        "argus_gemm_kernel_name(NULL)", argus_last_error());
}

/* What argus_pack_weights promises, and argus_gemm of packed weights that
 * do not fit the call. */
static void packed_checks(void) {
  float b[3 * 5];
  int i;
  for (i = 0; i < 15; ++i) b[i] = random_float();
  aligned_block blk;
  char detail[512];
  argus_status s = pack_b(&blk, b, 3, 5, 5, ARGUS_DTYPE_F32);
  snprintf(detail, sizeof detail, "status %s, message '%s'", argus_status_string(s), argus_last_error());
  if (!g_packed) {
    check(s == ARGUS_ERROR_UNSUPPORTED && argus_last_error()[0] != '\0', "packing f32 weights is refused here",
          detail);
    free(blk.raw);
    return;
  }
  check(s == ARGUS_OK, "packing f32 weights", detail);
  if (s != ARGUS_OK) {
    free(blk.raw);
    return;
  }
  uint16_t h[4 * 8];
  for (i = 0; i < 32; ++i) h[i] = random_f16();
  aligned_block hb;
  s = pack_b(&hb, h, 4, 8, 8, ARGUS_DTYPE_F16);
  snprintf(detail, sizeof detail, "status %s, message '%s'", argus_status_string(s), argus_last_error());
  check(s == ARGUS_ERROR_UNSUPPORTED && argus_last_error()[0] != '\0', "packing f16 weights is refused", detail);
  free(hb.raw);

  float a[4 * 5], c[4 * 4];
  for (i = 0; i < 20; ++i) a[i] = random_float();
  argus_gemm_args g;
  memset(&g, 0, sizeof g);
  g.struct_size = sizeof g;
  g.m = 4, g.n = 3, g.k = 5;
  g.a_type = g.b_type = g.c_type = ARGUS_DTYPE_F32;
  g.a = a, g.lda = 5, g.c = c, g.ldc = 4, g.alpha = 1.0f;
  g.b_packed = blk.at; /* b NULL, ldb 0: neither is read */
  s = argus_gemm(&g, NULL);
  check(s == ARGUS_OK || s == ARGUS_ERROR_UNSUPPORTED, "argus_gemm with b_packed and b NULL", argus_last_error());
  argus_gemm_args wrong = g;
  wrong.n = 4; /* packed for n = 3 */
  expect_invalid(&wrong, "b_packed packed for another n");
  wrong = g, wrong.k = 4, wrong.lda = 5;
  expect_invalid(&wrong, "b_packed packed for another k");
  wrong = g, wrong.b_packed = (const char *)blk.at + 64;
  expect_invalid(&wrong, "b_packed not written by argus_pack_weights");
  wrong = g, wrong.b_packed = (const char *)blk.at + 4;
  expect_invalid(&wrong, "b_packed misaligned");
  argus_weights_desc w;
  memset(&w, 0, sizeof w);
  w.struct_size = sizeof w, w.batch = 1, w.n = 3, w.k = 5, w.dtype = ARGUS_DTYPE_F32, w.w = b, w.ldw = 4;
  check(argus_packed_weights_size(&w) == 0 && argus_pack_weights(&w, blk.at, 4096, NULL) ==
        ARGUS_ERROR_INVALID_ARGUMENT, "argus_pack_weights: ldw < k is refused", argus_last_error());
  w.ldw = 5;
  check(argus_pack_weights(&w, blk.at, 64, NULL) == ARGUS_ERROR_INVALID_ARGUMENT,
        "argus_pack_weights: packed_size too small is refused", argus_last_error());
  check(argus_pack_weights(NULL, blk.at, 4096, NULL) == ARGUS_ERROR_INVALID_ARGUMENT,
        "argus_pack_weights(NULL) is refused", argus_last_error());
  free(blk.raw);
}

static void info_checks(void) {
  char detail[256];
  snprintf(detail, sizeof detail, "library %u, header %d", (unsigned)argus_abi_version(),
           ARGUS_ABI_VERSION);
  check(argus_abi_version() == ARGUS_ABI_VERSION, "ABI version", detail);
  const char *version = argus_version();
  unsigned x, y, z;
  char tail;
  check(version && sscanf(version, "%u.%u.%u%c", &x, &y, &z, &tail) == 3,
        "argus_version is X.Y.Z", version ? version : "(null)");
  const char *manifest = argus_manifest_json();
  check(manifest && manifest[0] == '{', "argus_manifest_json is a JSON object", NULL);
  check(strcmp(argus_status_string(ARGUS_ERROR_INVALID_ARGUMENT),
               "ARGUS_ERROR_INVALID_ARGUMENT") == 0,
        "argus_status_string", NULL);
  argus_moe_args moe;
  memset(&moe, 0, sizeof moe);
  check(argus_moe_workspace_size(&moe) == 0 || argus_moe_workspace_size(&moe) > 0,
        "argus_moe_workspace_size is callable", NULL);
}

int main(int argc, char **argv) {
  shape shapes[64];
  int count = 0, i;
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--verbose") == 0) {
      g_verbose = 1;
    } else if (strcmp(argv[i], "--packed") == 0 && i + 1 < argc &&
               (strcmp(argv[i + 1], "yes") == 0 || strcmp(argv[i + 1], "no") == 0)) {
      g_packed = strcmp(argv[++i], "yes") == 0;
    } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      g_rng = strtoull(argv[++i], NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
    } else if (count < 64 && parse_shape(argv[i], &shapes[count])) {
      ++count;
    } else {
      fprintf(stderr,
              "gemm_client: expected MxNxK:AB[:C][@KERNEL|@UNSUPPORTED] with AB, C in "
              "f32|bf16|f16 (at most 64 shapes), got '%s'\n",
              argv[i]);
      return 2;
    }
  }
  if (count == 0) {
    fprintf(stderr, "usage: gemm_client [--seed N] [--verbose] [--packed yes|no] MxNxK:AB[:C][@EXPECT]...\n");
    return 2;
  }
  printf("gemm_client: library %s, ABI %u\n", argus_version(), (unsigned)argus_abi_version());
  info_checks();
  for (i = 0; i < count; ++i) {
    const config configs[5] = {{1.0f, 0.0f, 0, 0, 0}, {0.5f, -1.25f, 1, 3, 0}, {-2.0f, 0.0f, 1, 5, 0},
                               {1.0f, 0.0f, 0, 0, 1}, {0.5f, -1.25f, 1, 3, 1}};
    const int packs = g_packed == 1 && shapes[i].ab != ARGUS_DTYPE_F16 && strcmp(shapes[i].expect, "UNSUPPORTED");
    int j;
    for (j = 0; j < (packs ? 5 : 3); ++j) run_case(&shapes[i], &configs[j]);
  }
  error_checks();
  if (g_packed >= 0) packed_checks();
  printf("%s: %d of %d checks passed\n", g_failures ? "FAIL" : "PASS", g_checks - g_failures,
         g_checks);
  return g_failures ? 1 : 0;
}
