//===- Compiler.cpp - parallel, cached invocation of the C++ compiler -----===//
#include "argus/Emit/Compiler.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace argus::emit {

std::string cxxCompiler() {
  const char *cxx = std::getenv("CXX");
  return cxx && *cxx ? cxx : "g++";
}

std::string contentHash(const std::string &text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

int runCommand(const std::vector<std::string> &argv, std::string &output) {
  // Everything the child needs is prepared before fork(): other threads may
  // hold allocator locks, so the child only calls async-signal-safe functions.
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  static const char kExecFailed[] = "argus-gen: cannot run the compiler\n";
  int pipefd[2];
  // O_CLOEXEC: concurrent jobs' children must not inherit this pipe, or its
  // reader would wait for their compilers too.
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    output = "pipe2() failed";
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    output = "fork() failed";
    return -1;
  }
  if (pid == 0) {
    dup2(pipefd[1], 1); // dup2 clears O_CLOEXEC on the copies
    dup2(pipefd[1], 2);
    execvp(args[0], args.data());
    ssize_t ignored = write(2, kExecFailed, sizeof kExecFailed - 1);
    (void)ignored;
    _exit(127);
  }
  close(pipefd[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0)
    output.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

const std::string &compilerIdentity(const std::string &compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::string> identities; // never erased: references stay valid
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = identities.try_emplace(compiler);
  if (inserted)
    runCommand({compiler, "--version"}, it->second);
  return it->second;
}

const std::string &compilerIdentity() {
  static const std::string &id = compilerIdentity(cxxCompiler());
  return id;
}

namespace {

/// The headers of an -I directory (names and contents, sorted by name): a
/// source's objects depend on them, so they are part of its cache key.
/// Only the Argus include directories are passed with -I; system headers
/// change with the compiler, whose identity is in the key too.
std::string headersOf(const std::string &dir) {
  std::vector<fs::path> headers;
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
    const std::string ext = e.path().extension().string();
    // .hip and .cuh: device sources that a generated unit may include.
    if (e.is_regular_file(ec) && (ext == ".h" || ext == ".hpp" || ext == ".inc" || ext == ".cuh" || ext == ".hip"))
      headers.push_back(e.path());
  }
  std::sort(headers.begin(), headers.end());
  std::string all;
  for (const fs::path &h : headers)
    all += h.filename().string() + "\n" + readFile(h.string()) + "\n";
  return all;
}

} // namespace

std::string compileFlagsDigest(const std::vector<std::string> &flags) {
  std::string all;
  for (const std::string &f : flags)
    all += f.rfind("-I", 0) == 0 ? headersOf(f.substr(2)) : f + "\n";
  return contentHash(all);
}

namespace {

/// Compiles `jobs`; per job "" or the failure with the compiler output. With
/// `stopOnError`, jobs not started when one fails are left "" and undone.
std::vector<std::string> compileJobs(const std::vector<CompileJob> &jobs, int parallel, const std::string &cacheDir,
                                     CompileStats &stats, const std::function<void(const std::string &)> &progress,
                                     bool stopOnError) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::vector<std::string> errors(jobs.size());
  bool failed = false;
  // Digest of the headers of every -I directory, read once per build.
  std::map<std::string, std::string> headerDigest;
  for (const CompileJob &job : jobs)
    for (const std::string &f : job.flags)
      if (f.rfind("-I", 0) == 0 && !headerDigest.count(f))
        headerDigest[f] = contentHash(headersOf(f.substr(2)));
  auto worker = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (failed && stopOnError)
          return;
      }
      const CompileJob &job = jobs[i];
      const std::string compiler = job.compiler.empty() ? cxxCompiler() : job.compiler;
      std::string key;
      fs::path cached;
      if (!cacheDir.empty()) {
        std::string identity = readFile(job.sourcePath) + "\n" + compilerIdentity(compiler);
        for (const std::string &f : job.flags) {
          identity += "\n" + f;
          if (auto it = headerDigest.find(f); it != headerDigest.end())
            identity += " " + it->second;
        }
        key = contentHash(identity);
        cached = fs::path(cacheDir) / (key + ".o");
        std::error_code ec;
        if (fs::exists(cached, ec)) {
          fs::copy_file(cached, job.objectPath, fs::copy_options::overwrite_existing, ec);
          if (!ec) {
            std::lock_guard<std::mutex> lock(mutex);
            stats.fromCache++;
            if (progress) progress(job.sourcePath);
            continue;
          }
        }
      }
      std::vector<std::string> argv{compiler};
      argv.insert(argv.end(), job.flags.begin(), job.flags.end());
      argv.insert(argv.end(), {"-c", job.sourcePath, "-o", job.objectPath});
      std::string output;
      int status = runCommand(argv, output);
      std::lock_guard<std::mutex> lock(mutex);
      if (status != 0) {
        errors[i] = "compiling " + job.sourcePath + " failed (exit " + std::to_string(status) + "):\n" + output;
        failed = true;
        if (stopOnError)
          return;
        continue;
      }
      stats.compiled++;
      if (!cacheDir.empty()) {
        std::error_code ec;
        fs::create_directories(cacheDir, ec);
        fs::path tmp = cached;
        tmp += ".tmp" + std::to_string(getpid()) + "." + std::to_string(i);
        fs::copy_file(job.objectPath, tmp, fs::copy_options::overwrite_existing, ec);
        if (!ec)
          fs::rename(tmp, cached, ec); // atomic: concurrent builds never see half an object
      }
      if (progress) progress(job.sourcePath);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, parallel); ++t)
    threads.emplace_back(worker);
  for (std::thread &t : threads)
    t.join();
  return errors;
}

} // namespace

std::string compileAll(const std::vector<CompileJob> &jobs, int parallel, const std::string &cacheDir,
                       CompileStats &stats, const std::function<void(const std::string &)> &progress) {
  for (std::string &error : compileJobs(jobs, parallel, cacheDir, stats, progress, true))
    if (!error.empty())
      return error;
  return "";
}

std::vector<std::string> compileEach(const std::vector<CompileJob> &jobs, int parallel, const std::string &cacheDir,
                                     CompileStats &stats, const std::function<void(const std::string &)> &progress) {
  return compileJobs(jobs, parallel, cacheDir, stats, progress, false);
}

} // namespace argus::emit
