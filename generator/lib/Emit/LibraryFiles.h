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
