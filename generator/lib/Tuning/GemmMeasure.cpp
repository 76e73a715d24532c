//===- GemmMeasure.cpp - check and time compiled GEMM candidates ----------===//
#include "argus/Tuning/GemmMeasure.h"

#include "argus/Reference/HostTensor.h"
#include "argus/Reference/References.h"
#include "argus_tensor_view.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <random>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace argus::tuning {

namespace {

using Clock = std::chrono::steady_clock;

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
  GemmMeasurement measure(argus_cpu_kernel_fn fn, int64_t m, int threads, std::mt19937_64 &rng) {
    GemmMeasurement r;
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
    r.seconds = time([&] { fn(args.data(), threads); });
    return r;
  }

private:
  /// Every element of the first m rows written; sampled rows match.
  bool check(int64_t m, std::mt19937_64 &rng, GemmMeasurement &r) {
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

  /// Median seconds per call: samples of enough calls to last ~2 ms each,
  /// 3 to 9 of them within about a second.
  template <class Call> static double time(Call call) {
    auto start = Clock::now();
    call(); // warm: caches, OpenMP pool, AMX state
    double once = std::chrono::duration<double>(Clock::now() - start).count();
    int perSample = int(std::clamp(std::ceil(2e-3 / std::max(once, 1e-9)), 1.0, 1000.0));
    int samples = int(std::clamp(1.0 / std::max(once * perSample, 1e-9), 3.0, 9.0));
    std::vector<double> times;
    for (int s = 0; s < samples; ++s) {
      auto t0 = Clock::now();
      for (int i = 0; i < perSample; ++i) call();
      times.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / perSample);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    return times[times.size() / 2];
  }

  int64_t n_, k_;
  ref::HostTensor a_, b_, c_, bias_;
  std::map<int64_t, std::vector<double>> reference_;
};

// The child reports on a pipe, one line per event:
//   begin I            probe I starts (so a crash can be blamed on it)
//   result I C E S D   correct (0/1), max error, seconds, detail to the end of the line
void writeAll(int fd, const std::string &text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) _exit(3);
    done += size_t(n);
  }
}

[[noreturn]] void runChild(int fd, size_t first, int64_t n, int64_t k, ref::ElementType a, ref::ElementType c,
                           const std::vector<GemmProbe> &probes, const MeasureOptions &opt) {
  try {
    int64_t maxM = 1;
    for (size_t i = first; i < probes.size(); ++i) maxM = std::max(maxM, probes[i].m);
    GemmBench bench(maxM, n, k, a, c, opt.seed);
    std::mt19937_64 rng(opt.seed ^ 0x9e3779b97f4a7c15ull);
    for (size_t i = first; i < probes.size(); ++i) {
      writeAll(fd, "begin " + std::to_string(i) + "\n");
      GemmMeasurement r;
      void *handle = dlopen(probes[i].library.c_str(), RTLD_NOW | RTLD_LOCAL);
      auto fn = handle ? reinterpret_cast<argus_cpu_kernel_fn>(dlsym(handle, probes[i].symbol.c_str())) : nullptr;
      if (!fn)
        r.detail = std::string("cannot load the candidate: ") + dlerror();
      else
        r = bench.measure(fn, probes[i].m, opt.threads, rng);
      std::string detail = r.detail;
      std::replace(detail.begin(), detail.end(), '\n', ' ');
      char numbers[96];
      std::snprintf(numbers, sizeof numbers, " %d %.17g %.17g ", r.correct ? 1 : 0, r.maxError, r.seconds);
      writeAll(fd, "result " + std::to_string(i) + numbers + detail + "\n");
    }
  } catch (const std::exception &e) {
    writeAll(fd, std::string("error ") + e.what() + "\n");
  }
  _exit(0);
}

/// Why a child ended: "" for a clean exit.
std::string describeExit(int status) {
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "";
}

} // namespace

std::string measureGemms(int64_t n, int64_t k, const emit::GemmTypes &types, const std::vector<GemmProbe> &probes,
                         const MeasureOptions &opt,
                         const std::function<void(size_t, const GemmMeasurement &)> &onResult) {
  ref::ElementType a, c;
  if (!ref::parseElementType(types.a, a) || !ref::parseElementType(types.c, c))
    return "cannot host GEMM operands of types " + types.a + " -> " + types.c;
  size_t next = 0;
  while (next < probes.size()) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return "pipe2() failed";
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      return "fork() failed";
    }
    if (pid == 0) {
      close(fds[0]);
      runChild(fds[1], next, n, k, a, c, probes, opt);
    }
    close(fds[1]);
    const size_t startedAt = next;
    long inFlight = -1;
    std::string buffer, childError;
    bool timedOut = false;
    for (;;) {
      pollfd p{fds[0], POLLIN, 0};
      int ready = poll(&p, 1, int(opt.timeoutSeconds * 1000));
      if (ready == 0) {
        timedOut = true;
        kill(pid, SIGKILL);
        break;
      }
      char chunk[4096];
      ssize_t got = ready > 0 ? read(fds[0], chunk, sizeof chunk) : -1;
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      buffer.append(chunk, size_t(got));
      for (size_t eol; (eol = buffer.find('\n')) != std::string::npos; buffer.erase(0, eol + 1)) {
        std::istringstream line(buffer.substr(0, eol));
        std::string word;
        size_t index = 0;
        line >> word;
        if (word == "begin") {
          line >> index;
          inFlight = long(index);
        } else if (word == "result") {
          GemmMeasurement r;
          int correct = 0;
          line >> index >> correct >> r.maxError >> r.seconds;
          r.correct = correct != 0;
          std::getline(line >> std::ws, r.detail);
          onResult(index, r);
          inFlight = -1;
          next = index + 1;
        } else if (word == "error") {
          std::getline(line >> std::ws, childError);
        }
      }
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!childError.empty()) return "measuring candidates failed: " + childError;
    if (inFlight >= 0) { // the probe in flight took the child down: blame it, go on after it
      GemmMeasurement r;
      r.detail = timedOut ? "the candidate ran longer than " + std::to_string(int(opt.timeoutSeconds)) + " s at m = " +
                                std::to_string(probes[size_t(inFlight)].m)
                          : "the candidate crashed at m = " + std::to_string(probes[size_t(inFlight)].m) + " (" +
                                describeExit(status) + ")";
      onResult(size_t(inFlight), r);
      next = size_t(inFlight) + 1;
    } else if (next == startedAt) {
      return "the measuring process ended before its first probe (" + describeExit(status) + ")";
    }
  }
  return "";
}

} // namespace argus::tuning
