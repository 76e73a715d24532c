//===- Compiler.h - run the system C++ compiler, in parallel, cached --------===//
//
// Generated sources are compiled by the system compiler (g++ by default,
// $CXX otherwise). Objects are cached by a hash of source text, flags and
// compiler identity, so rebuilding an unchanged library recompiles nothing.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_COMPILER_H
#define ARGUS_EMIT_COMPILER_H

#include <functional>
#include <string>
#include <vector>

namespace argus::emit {

struct CompileJob {
  std::string sourcePath;          // file to compile
  std::string objectPath;          // where the object must end up
  std::vector<std::string> flags;  // compiler flags (no -c / -o)
  std::string compiler;            // empty: cxxCompiler() (nvcc for CUDA sources)
};

struct CompileStats {
  int compiled = 0;
  int fromCache = 0;
};

/// The C++ compiler to use: $CXX when set, else "g++".
std::string cxxCompiler();

/// The compiler's `--version` output: part of every cache key, so a compiler
/// upgrade invalidates cached objects. Without an argument, cxxCompiler()'s.
const std::string &compilerIdentity();
const std::string &compilerIdentity(const std::string &compiler);

/// Runs `command` (argv) and captures its combined output; returns the exit status.
int runCommand(const std::vector<std::string> &argv, std::string &output);

/// Compiles every job with up to `parallel` compilers at once. With a
/// non-empty `cacheDir`, objects are reused by content hash. Returns an
/// empty string on success, else the first failure with the compiler output.
std::string compileAll(const std::vector<CompileJob> &jobs, int parallel, const std::string &cacheDir,
                       CompileStats &stats, const std::function<void(const std::string &)> &progress = {});

/// Like compileAll, but every job runs whatever the others do: per job ""
/// or its failure with the compiler output (a sweep's candidates).
std::vector<std::string> compileEach(const std::vector<CompileJob> &jobs, int parallel, const std::string &cacheDir,
                                     CompileStats &stats, const std::function<void(const std::string &)> &progress = {});

/// A digest of what `flags` compile into an object besides the source: the
/// flags other than -I and the headers of every -I directory (contents, not
/// paths, so a moved checkout digests the same). The object cache keys on
/// the same headers.
std::string compileFlagsDigest(const std::vector<std::string> &flags);

/// 64-bit FNV-1a of `text`, as 16 hex digits (stable across runs and hosts).
std::string contentHash(const std::string &text);

} // namespace argus::emit

#endif // ARGUS_EMIT_COMPILER_H
