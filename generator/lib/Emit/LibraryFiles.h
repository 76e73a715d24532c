//===- LibraryFiles.h - the files every generated library ships -*- C++ -*-===//
//
// Shared by the builders of every target (LibraryBuilder.cpp for the CPU,
// CudaLibraryBuilder.cpp for CUDA): the runtime source list, the installed
// library with its SONAME links and header, pkg-config and CMake files.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_LIBRARYFILES_H
#define ARGUS_EMIT_LIBRARYFILES_H

#include "argus/Catalog/Catalog.h"
#include "argus/Emit/Compiler.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace argus::emit {

/// The manifest fields every library has: library, version, ABI and
/// generator versions, model, dtype, target and catalog (file and hash).
nlohmann::json manifestHeader(const catalog::Catalog &cat, const std::string &target);

/// `s` as a C string literal (quotes, escapes, newlines split across lines).
std::string cString(const std::string &s);

/// One m bucket of a GPU library's catalog GEMM: its upper bound, the
/// kernel name argus_gemm_kernel_name reports and the kernel's parameters.
struct GpuBucket {
  int64_t bound;
  std::string kernelName;
  nlohmann::json config;
};

/// The manifest entry of a GPU library's catalog GEMM (ops, n, k, bf16
/// types, and per bucket m_min, m_max (null for the last), kernel, config).
nlohmann::json gpuGemmGroupJson(const std::vector<std::string> &ops, int64_t n, int64_t k,
                                const std::vector<GpuBucket> &buckets);

/// "qkv_o" for ops {"qkv", "o"}: the catalog ops a kernel name carries.
std::string joinedOps(const std::vector<std::string> &ops);

/// C++ definitions of `<prefix>_bounds` (int64_t) and `<prefix>_names`
/// (const char *const) for the buckets of one group of a generated table.
std::string gpuBucketArrays(const std::string &prefix, const std::vector<GpuBucket> &buckets);

/// Creates OUT/src, OUT/obj and OUT/lib; "" or what failed.
std::string createBuildDirs(const std::filesystem::path &out);

/// The sources listed in `listFile` (one path per line relative to
/// `runtimeDir`; '#' comments and blank lines skipped); empty with `error`
/// set when the list cannot be read.
std::vector<std::string> runtimeSources(const std::filesystem::path &listFile, const std::filesystem::path &runtimeDir,
                                        std::string &error);

/// Moves the freshly linked `linked` to OUT/lib/libargus_kernels.so.X.Y.Z,
/// (re)creates the SONAME and development links and copies the public
/// header to OUT/include; "" or what failed.
std::string installLibrary(const std::filesystem::path &linked, const std::filesystem::path &home,
                           const std::filesystem::path &out);

/// Links the objects of `jobs` with `linker` (the command and its flags:
/// shared, SONAME, version script; this appends the output and the objects),
/// installs the library (installLibrary) and writes the package files
/// (writePackageFiles); "" or what failed. `libraryPath` gets
/// OUT/lib/libargus_kernels.so.X.Y.Z.
std::string linkLibrary(std::vector<std::string> linker, const std::vector<CompileJob> &jobs,
                        const std::filesystem::path &home, const std::filesystem::path &out, const catalog::Catalog &cat,
                        const std::string &target, const std::string &manifest, std::string &libraryPath);

/// pkg-config and CMake package files from dist/templates, relocatable, and
/// share/argus_kernels/manifest.json; "" or what failed.
std::string writePackageFiles(const std::filesystem::path &home, const std::filesystem::path &out,
                              const catalog::Catalog &cat, const std::string &target, const std::string &manifest);

} // namespace argus::emit

#endif // ARGUS_EMIT_LIBRARYFILES_H
