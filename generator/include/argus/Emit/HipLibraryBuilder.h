//===- HipLibraryBuilder.h - the hip-gfx942 / hip-gfx90a library -*- C++ -*-===//
//
// argus-gen build --target hip-gfx942 (MI300X) or hip-gfx90a (MI250): the
// catalog's GEMMs on the CDNA MFMA kernels (dist/runtime/hip), bucketed as
// for the CPU, and attention (prefill, paged decode) and MoE for any shape
// their kernels take, through the same C ABI. clang-22 builds the code object
// with no ROCm install; the library embeds it and loads it through a
// dlopen'd HIP runtime at run time.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_HIPLIBRARYBUILDER_H
#define ARGUS_EMIT_HIPLIBRARYBUILDER_H

#include "argus/Catalog/Catalog.h"
#include "argus/Emit/LibraryBuilder.h"

#include <string>
#include <variant>

namespace argus::emit {

/// "gfx942" for hip-gfx942, "gfx90a" for hip-gfx90a, "" for any other target.
std::string hipArch(const std::string &target);

/// Builds the library of the bf16 catalog `cat` for options.target (a hip
/// target); tiles by rule (chooseGemmShape), since no AMD GPU is here to
/// time them. The manifest records every kernel's registers, LDS, scratch
/// and MFMA count from the code object; a GEMM that breaks the resource
/// budget (resourceProblems) fails the build, an attention kernel that does
/// is left out. buildLibrary calls it.
std::variant<BuildReport, std::string> buildHipLibrary(const BuildOptions &options, const catalog::Catalog &cat);

} // namespace argus::emit

#endif // ARGUS_EMIT_HIPLIBRARYBUILDER_H
