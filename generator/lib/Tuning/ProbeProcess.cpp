//===- ProbeProcess.cpp - measure candidates in a disposable process ------===//
#include "argus/Tuning/ProbeProcess.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace argus::tuning {

namespace {

// The child reports on a pipe, one line per event:
//   begin I            probe I starts (so a crash can be blamed on it)
//   result I C E S D   correct (0/1), max error, seconds, detail to the end of the line
//   error MESSAGE      the measurement cannot go on at all
void writeAll(int fd, const std::string &text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) _exit(3);
    done += size_t(n);
  }
}

[[noreturn]] void runChild(int fd, size_t first, const ProbeBody &body) {
  try {
    body(
        first, [&](size_t i) { writeAll(fd, "begin " + std::to_string(i) + "\n"); },
        [&](size_t i, const Measurement &r) {
          std::string detail = r.detail;
          std::replace(detail.begin(), detail.end(), '\n', ' ');
          char numbers[96];
          std::snprintf(numbers, sizeof numbers, " %d %.17g %.17g ", r.correct ? 1 : 0, r.maxError, r.seconds);
          writeAll(fd, "result " + std::to_string(i) + numbers + detail + "\n");
        });
  } catch (const std::exception &e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    writeAll(fd, "error " + what + "\n");
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

std::string runProbesIsolated(size_t count, const ProbeBody &body, double timeoutSeconds,
                              const std::function<std::string(size_t)> &where,
                              const std::function<void(size_t, const Measurement &)> &onResult) {
  size_t next = 0;
  while (next < count) {
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
      runChild(fds[1], next, body);
    }
    close(fds[1]);
    const size_t startedAt = next;
    long inFlight = -1;
    std::string buffer, childError;
    bool timedOut = false;
    for (;;) {
      pollfd p{fds[0], POLLIN, 0};
      int ready = poll(&p, 1, int(timeoutSeconds * 1000));
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
          Measurement r;
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
      Measurement r;
      std::string at = where(size_t(inFlight));
      if (!at.empty()) at = " " + at;
      r.detail = timedOut ? "the candidate ran longer than " + std::to_string(int(timeoutSeconds)) + " s" + at
                          : "the candidate crashed" + at + " (" + describeExit(status) + ")";
      onResult(size_t(inFlight), r);
      next = size_t(inFlight) + 1;
    } else if (next == startedAt) {
      return "the measuring process ended before its first probe (" + describeExit(status) + ")";
    }
  }
  return "";
}

double medianCallSeconds(const std::function<void()> &call) {
  using Clock = std::chrono::steady_clock;
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

} // namespace argus::tuning
