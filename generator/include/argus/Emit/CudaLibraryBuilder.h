//===- CudaLibraryBuilder.h - the cuda-sm90a library ------------*- C++ -*-===//
//
// argus-gen build --target cuda-sm90a: the catalog's GEMMs on Hopper kernels
// (dist/runtime/cuda), through the same C ABI. Attention and MoE entry points
// answer ARGUS_ERROR_UNSUPPORTED until their Hopper kernels exist.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_CUDALIBRARYBUILDER_H
#define ARGUS_EMIT_CUDALIBRARYBUILDER_H

#include "argus/Catalog/Catalog.h"
#include "argus/Emit/LibraryBuilder.h"

#include <string>
#include <variant>

namespace argus::emit {

bool isCudaTarget(const std::string &target);

/// The nvcc to use: $ARGUS_NVCC, else $CUDACXX, else /usr/local/cuda/bin/nvcc
/// when present, else "nvcc" from the PATH.
std::string nvccCompiler();

/// Builds the library of the bf16 catalog `cat` (loaded from
/// options.catalogPath) for options.target, cuda-sm90a; the tile choosers of
/// `options` are not used (configurations by rule). buildLibrary calls it.
std::variant<BuildReport, std::string> buildCudaLibrary(const BuildOptions &options, const catalog::Catalog &cat);

} // namespace argus::emit

#endif // ARGUS_EMIT_CUDALIBRARYBUILDER_H
