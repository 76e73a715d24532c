//===- argus_config.cpp - environment, ISA and table checks, done once ----===//
//
// The snapshot is published through an atomic pointer: readers pay one
// acquire load per call. Snapshots are immutable and never freed, so a
// reader racing with reloadConfig() (tests only) still sees a valid object.
//
//===----------------------------------------------------------------------===//
#include "argus_config.h"

#include "argus_bucketing.h"
#include "argus_checks.h"
#include "argus_env.h"
#include "argus_error.h"
#include "argus_isa.h"
#include "argus_registry.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace argus_rt {
namespace {

std::atomic<const Config *> current{nullptr};
std::mutex snapshotsMutex;
std::vector<const Config *> &snapshots() { // keeps every snapshot alive
  static std::vector<const Config *> *all = new std::vector<const Config *>();
  return *all;
}

void setError(Config &c, argus_status status, const std::string &message) {
  if (c.status != ARGUS_OK) return; // keep the first problem
  c.status = status;
  c.message = message;
}

void readStrict(Config &c) {
  std::string problem = readSwitch("ARGUS_STRICT", &c.strict);
  if (!problem.empty()) setError(c, ARGUS_ERROR_INVALID_ARGUMENT, problem);
}

void readNumThreads(Config &c) {
  const char *raw = std::getenv("ARGUS_NUM_THREADS");
  if (!raw || !*raw) return;
  errno = 0;
  char *end = nullptr;
  long value = std::strtol(raw, &end, 10);
  while (end && (*end == ' ' || *end == '\t')) ++end;
  if (errno != 0 || end == raw || *end != '\0' || value < 0 || value > INT_MAX) {
    setError(c, ARGUS_ERROR_INVALID_ARGUMENT,
             std::string("environment variable ARGUS_NUM_THREADS must be a non-negative "
                         "integer (0 = OpenMP default), got '") +
                 raw + "'");
    return;
  }
  c.numThreads = static_cast<int>(value);
}

Config compute() {
  Config c;
  readStrict(c);
  readNumThreads(c);
  std::string isa = checkIsa(argus_generated_isa, std::getenv("ARGUS_FAKE_MISSING_ISA"));
  if (!isa.empty()) setError(c, ARGUS_ERROR_UNSUPPORTED, isa);
  std::string registry = checkGemmTables(argus_gemm_groups, argus_gemm_group_count,
                                         argus_gemm_fallbacks, argus_gemm_fallback_count);
  if (registry.empty()) registry = checkMoeTables(argus_moe_kernels, argus_moe_kernel_count);
  if (!registry.empty())
    setError(c, ARGUS_ERROR_INTERNAL, "the generated kernel tables are inconsistent: " + registry);
  return c;
}

const Config *publish(bool replace) {
  std::lock_guard<std::mutex> lock(snapshotsMutex);
  const Config *existing = current.load(std::memory_order_acquire);
  if (existing && !replace) return existing; // another thread won the race
  const Config *fresh = new Config(compute());
  snapshots().push_back(fresh);
  current.store(fresh, std::memory_order_release);
  return fresh;
}

std::string dtypeList(argus_dtype a, argus_dtype b, argus_dtype c) {
  return std::string(dtypeName(a)) + " x " + dtypeName(b) + " -> " + dtypeName(c);
}

} // namespace

const Config &config() {
  const Config *c = current.load(std::memory_order_acquire);
  return c ? *c : *publish(/*replace=*/false);
}

void reloadConfig() { publish(/*replace=*/true); }

argus_status ready(const char *function) {
  const Config &c = config();
  if (c.status == ARGUS_OK) return ARGUS_OK;
  return fail(c.status, "%s: %s", function, c.message.c_str());
}

namespace {

/// Bucket bounds valid, a kernel and a name for every bucket.
std::string checkBuckets(const std::string &where, int32_t numBuckets, const int64_t *bounds,
                         const argus_cpu_kernel_fn *kernels, const char *const *names) {
  if (!argus_bucket_bounds_valid(bounds, numBuckets)) {
    std::string got = "num_buckets=" + std::to_string(numBuckets);
    if (bounds && numBuckets > 0) {
      got += ", bounds {";
      for (int32_t b = 0; b < numBuckets && b < 16; ++b)
        got += (b ? ", " : "") + std::to_string(bounds[b]);
      got += numBuckets > 16 ? ", ...}" : "}";
    }
    return where + ": expected at least one bucket bound, all >= 1 and strictly ascending; got " + got;
  }
  if (!kernels || !names) return where + ": NULL kernel or name array";
  for (int32_t b = 0; b < numBuckets; ++b)
    if (!kernels[b] || !names[b]) return where + ": NULL kernel or name for bucket " + std::to_string(b);
  return "";
}

} // namespace

std::string checkGemmTables(const argus_gemm_group *groups, int32_t groupCount,
                            const argus_gemm_fallback *fallbacks, int32_t fallbackCount) {
  if (groupCount < 0) return "argus_gemm_group_count is " + std::to_string(groupCount);
  if (fallbackCount < 0) return "argus_gemm_fallback_count is " + std::to_string(fallbackCount);
  if ((groupCount > 0 && !groups) || (fallbackCount > 0 && !fallbacks))
    return "a GEMM table with a non-zero count is NULL";
  for (int32_t g = 0; g < groupCount; ++g) {
    const argus_gemm_group &group = groups[g];
    std::string where = "GEMM group " + std::to_string(g) + " (n=" + std::to_string(group.n) +
                        ", k=" + std::to_string(group.k) +
                        ", " + dtypeList(group.a_type, group.b_type, group.c_type) + ")";
    if (group.n < 1 || group.k < 1) return where + ": n and k must be >= 1";
    if (std::string e = checkBuckets(where, group.num_buckets, group.bucket_bounds, group.kernels,
                                     group.kernel_names);
        !e.empty())
      return e;
  }
  for (int32_t f = 0; f < fallbackCount; ++f) {
    const argus_gemm_fallback &fb = fallbacks[f];
    std::string where = "GEMM fallback " + std::to_string(f) + " (" + dtypeList(fb.a_type, fb.b_type, fb.c_type) + ")";
    if (std::string e = checkBuckets(where, fb.num_buckets, fb.bucket_bounds, fb.kernels, fb.kernel_names);
        !e.empty())
      return e;
  }
  return "";
}

std::string checkMoeTables(const argus_moe_kernel *entries, int32_t count) {
  if (count < 0) return "argus_moe_kernel_count is " + std::to_string(count);
  if (count > 0 && !entries) return "the MoE table has a non-zero count and is NULL";
  for (int32_t i = 0; i < count; ++i) {
    const argus_moe_kernel &e = entries[i];
    const std::string where = "MoE entry " + std::to_string(i) + " (" + (e.name ? e.name : "unnamed") + ")";
    if (e.num_tiers < 1 || !e.tiers) return where + ": expected at least one tier";
    for (int32_t t = 0; t < e.num_tiers; ++t) {
      if (!e.tiers[t].gate_up || !e.tiers[t].down) return where + ": NULL kernel in tier " + std::to_string(t);
      if (e.tiers[t].block_rows < 1) return where + ": tier " + std::to_string(t) + " has no rows per block";
      if (t > 0 && e.tiers[t].max_rows <= e.tiers[t - 1].max_rows)
        return where + ": tier row limits must be strictly ascending";
    }
    if (e.tiers[e.num_tiers - 1].max_rows != INT64_MAX)
      return where + ": the last tier must take any number of rows (max_rows INT64_MAX)";
  }
  return "";
}

} // namespace argus_rt
