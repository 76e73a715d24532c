//===- GemmMeasure.cpp - check and time compiled GEMM candidates ----------===//
#include "argus/Tuning/GemmMeasure.h"

#include "argus/Reference/HostTensor.h"
#include "argus/Reference/References.h"
#include "argus_tensor_view.h"

#include <algorithm>
#include <dlfcn.h>
#include <map>
#include <random>
#include <sstream>

namespace argus::tuning {

namespace {

/// The inputs of one GEMM shape, at the largest m of its probes, and the
/// float64 reference of every row checked so far (rows do not depend on m).
class GemmBench {
public:
  GemmBench(int64_t maxM, int64_t n, int64_t k, ref::ElementType a, ref::ElementType c, uint64_t seed)
      : n_(n), k_(k), a_(a, {maxM, k}), b_(a, {n, k}), c_(c, {maxM, n}), bias_(c, {n}) {
    std::mt19937_64 rng(seed);
    a_.fillRandom(rng);
    b_.fillRandom(rng);
    bias_.fillRandom(rng);
  }

  /// Runs `fn` at m rows once, checks it, then times it.
  Measurement measure(argus_cpu_kernel_fn fn, int64_t m, int threads, std::mt19937_64 &rng) {
    Measurement r;
    std::vector<argus_cpu_arg> args(7);
    argus_rt::setMatrixArg(args[0], a_.view().data, m, k_, k_);
    argus_rt::setMatrixArg(args[1], b_.view().data, n_, k_, k_);
    argus_rt::setMatrixArg(args[2], c_.view().data, m, n_, n_);
    argus_cpu_tensor bias = bias_.view();
    args[3].tensor = bias;
    argus_rt::setScalarArg(args[4], 1.0, 1);  // alpha
    argus_rt::setScalarArg(args[5], 0.0, 0);  // beta: C is written, not read
    argus_rt::setScalarArg(args[6], 1.0, 1);  // has_bias
    c_.poison();
    fn(args.data(), threads);
    if (!check(m, rng, r))
      return r;
    r.seconds = medianCallSeconds([&] { fn(args.data(), threads); });
    return r;
  }

private:
  /// Every element of the first m rows written; sampled rows match.
  bool check(int64_t m, std::mt19937_64 &rng, Measurement &r) {
    int64_t unwritten = 0;
    for (int64_t i = 0; i < m * n_; ++i)
      unwritten += c_.isPoisoned(i);
    if (unwritten) {
      r.detail = std::to_string(unwritten) + " of " + std::to_string(m * n_) + " output elements never written";
      return false;
    }
    std::vector<int64_t> rows = {0, m / 2, m - 1, std::uniform_int_distribution<int64_t>(0, m - 1)(rng)};
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    computeReferenceRows(rows);
    ref::HostTensor got(c_.type(), {int64_t(rows.size()), n_});
    std::vector<double> expected;
    for (size_t s = 0; s < rows.size(); ++s)
      for (int64_t j = 0; j < n_; ++j) {
        got.set(int64_t(s) * n_ + j, c_.get(rows[s] * n_ + j));
        expected.push_back(reference_[rows[s]][j]);
      }
    double tolerance = ref::toleranceFor(c_.type(), k_);
    ref::Mismatch mismatch = ref::compare(got, expected, tolerance);
    r.maxError = mismatch.maxError;
    r.correct = mismatch.index < 0;
    if (!r.correct) {
      int64_t row = rows[mismatch.index / n_], col = mismatch.index % n_;
      std::ostringstream os;
      os << "C[" << row << ", " << col << "] at m = " << m << ": expected " << mismatch.expected << ", got "
         << mismatch.actual << " (" << mismatch.mismatches << " of " << rows.size() * n_
         << " checked elements beyond tolerance " << tolerance << ")";
      r.detail = os.str();
    }
    return r.correct;
  }

  /// One pass over b for every row not yet computed: C = A·Bᵀ + bias.
  void computeReferenceRows(const std::vector<int64_t> &rows) {
    std::vector<int64_t> missing;
    for (int64_t row : rows)
      if (!reference_.count(row)) missing.push_back(row);
    if (missing.empty()) return;
    std::vector<std::vector<double>> a(missing.size(), std::vector<double>(k_));
    for (size_t s = 0; s < missing.size(); ++s)
      for (int64_t kk = 0; kk < k_; ++kk) a[s][kk] = a_.get(missing[s] * k_ + kk);
    std::vector<std::vector<double>> out(missing.size(), std::vector<double>(n_));
    std::vector<double> b(k_);
    for (int64_t j = 0; j < n_; ++j) {
      for (int64_t kk = 0; kk < k_; ++kk) b[kk] = b_.get(j * k_ + kk);
      for (size_t s = 0; s < missing.size(); ++s) {
        double sum = 0;
        for (int64_t kk = 0; kk < k_; ++kk) sum += a[s][kk] * b[kk];
        out[s][j] = sum + bias_.get(j);
      }
    }
    for (size_t s = 0; s < missing.size(); ++s) reference_[missing[s]] = std::move(out[s]);
  }

  int64_t n_, k_;
  ref::HostTensor a_, b_, c_, bias_;
  std::map<int64_t, std::vector<double>> reference_;
};

} // namespace

std::string measureGemms(int64_t n, int64_t k, const emit::GemmTypes &types, const std::vector<GemmProbe> &probes,
                         const MeasureOptions &opt,
                         const std::function<void(size_t, const Measurement &)> &onResult) {
  ref::ElementType a, c;
  if (!ref::parseElementType(types.a, a) || !ref::parseElementType(types.c, c))
    return "cannot host GEMM operands of types " + types.a + " -> " + types.c;
  auto body = [&](size_t first, const std::function<void(size_t)> &begin,
                  const std::function<void(size_t, const Measurement &)> &result) {
    int64_t maxM = 1;
    for (size_t i = first; i < probes.size(); ++i) maxM = std::max(maxM, probes[i].m);
    GemmBench bench(maxM, n, k, a, c, opt.seed);
    std::mt19937_64 rng(opt.seed ^ 0x9e3779b97f4a7c15ull);
    for (size_t i = first; i < probes.size(); ++i) {
      begin(i);
      Measurement r;
      void *handle = dlopen(probes[i].library.c_str(), RTLD_NOW | RTLD_LOCAL);
      auto fn = handle ? reinterpret_cast<argus_cpu_kernel_fn>(dlsym(handle, probes[i].symbol.c_str())) : nullptr;
      if (!fn)
        r.detail = std::string("cannot load the candidate: ") + dlerror();
      else
        r = bench.measure(fn, probes[i].m, opt.threads, rng);
      result(i, r);
    }
  };
  return runProbesIsolated(probes.size(), body, opt.timeoutSeconds,
                           [&](size_t i) { return "at m = " + std::to_string(probes[i].m); }, onResult);
}

} // namespace argus::tuning
