//===- argus_isa.h - does this CPU have the ISA the library was built for --===//
//
// A library generated for `cpu-avx512` executes vdpbf16ps; on a CPU without
// AVX512_BF16 that is SIGILL inside the serving engine. The generated tables
// record the features the kernels were compiled for (argus_generated_isa,
// e.g. "avx512f,avx512bw,avx512vl,avx512bf16"), and the runtime checks them
// with cpuid before the first kernel runs, turning the crash into
// ARGUS_ERROR_UNSUPPORTED with the missing feature named.
//
// Feature names are GCC's -m names (the generator passes them as -m<name>):
//   sse2 sse3 ssse3 sse4.1 sse4.2 popcnt avx avx2 fma f16c bmi bmi2
//   avx512f avx512dq avx512cd avx512bw avx512vl avx512vnni avx512bf16
//   avx512fp16 avx512vbmi avxvnni amx-tile amx-bf16 amx-int8
// AVX and AVX-512 features also require the OS to save the registers
// (XCR0), AMX the tile state; a feature the CPU has but the OS does not
// enable counts as missing.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_ISA_H
#define ARGUS_RUNTIME_ISA_H

#include <string>

namespace argus_rt {

/// Whether the running CPU (and OS) supports the feature `name`.
/// @returns 1 supported, 0 missing, -1 unknown feature name.
int cpuHasFeature(const std::string &name);

/// Checks a comma-separated feature list (spaces around names ignored,
/// empty list = nothing required). `fakeMissing` (from ARGUS_FAKE_MISSING_ISA,
/// may be null) is a comma-separated list of features to treat as absent, so
/// tests can exercise the failure path on any machine.
/// @returns "" when every feature is present, else the message, e.g.
///   "this library was built for avx512f,avx512bf16 but the CPU lacks avx512bf16"
std::string checkIsa(const char *required, const char *fakeMissing);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_ISA_H
