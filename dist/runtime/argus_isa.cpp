//===- argus_isa.cpp - cpuid / xgetbv feature detection ------------------===//
//
// Detection reads cpuid directly rather than __builtin_cpu_supports, which
// takes only string literals, does not know every feature on older
// compilers, and says nothing about AMX permission. Bits are from the Intel
// SDM, vol. 2A, "CPUID - CPU Identification" (leaf 1, leaf 7 sub-leaves 0
// and 1) and vol. 1, 13.3 (XCR0 state components).
//
//===----------------------------------------------------------------------===//
#include "argus_isa.h"

#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#define ARGUS_X86 1
#endif

namespace argus_rt {
namespace {

#ifdef ARGUS_X86
enum class Reg { Eax, Ebx, Ecx, Edx };

/// Which OS-managed register state a feature needs (XCR0 bits).
enum class State { None, Avx, Avx512, Amx };

struct FeatureBit {
  const char *name;
  unsigned leaf, subleaf;
  Reg reg;
  unsigned bit;
  State state;
};

constexpr FeatureBit kFeatures[] = {
    {"sse2", 1, 0, Reg::Edx, 26, State::None},
    {"sse3", 1, 0, Reg::Ecx, 0, State::None},
    {"ssse3", 1, 0, Reg::Ecx, 9, State::None},
    {"sse4.1", 1, 0, Reg::Ecx, 19, State::None},
    {"sse4.2", 1, 0, Reg::Ecx, 20, State::None},
    {"popcnt", 1, 0, Reg::Ecx, 23, State::None},
    {"avx", 1, 0, Reg::Ecx, 28, State::Avx},
    {"fma", 1, 0, Reg::Ecx, 12, State::Avx},
    {"f16c", 1, 0, Reg::Ecx, 29, State::Avx},
    {"bmi", 7, 0, Reg::Ebx, 3, State::None},
    {"avx2", 7, 0, Reg::Ebx, 5, State::Avx},
    {"bmi2", 7, 0, Reg::Ebx, 8, State::None},
    {"avx512f", 7, 0, Reg::Ebx, 16, State::Avx512},
    {"avx512dq", 7, 0, Reg::Ebx, 17, State::Avx512},
    {"avx512cd", 7, 0, Reg::Ebx, 28, State::Avx512},
    {"avx512bw", 7, 0, Reg::Ebx, 30, State::Avx512},
    {"avx512vl", 7, 0, Reg::Ebx, 31, State::Avx512},
    {"avx512vbmi", 7, 0, Reg::Ecx, 1, State::Avx512},
    {"avx512vnni", 7, 0, Reg::Ecx, 11, State::Avx512},
    {"amx-bf16", 7, 0, Reg::Edx, 22, State::Amx},
    {"avx512fp16", 7, 0, Reg::Edx, 23, State::Avx512},
    {"amx-tile", 7, 0, Reg::Edx, 24, State::Amx},
    {"amx-int8", 7, 0, Reg::Edx, 25, State::Amx},
    {"avxvnni", 7, 1, Reg::Eax, 4, State::Avx},
    {"avx512bf16", 7, 1, Reg::Eax, 5, State::Avx512},
};

bool cpuidBit(unsigned leaf, unsigned subleaf, Reg reg, unsigned bit) {
  unsigned r[4] = {0, 0, 0, 0};
  if (__get_cpuid_max(0, nullptr) < leaf) return false;
  if (!__get_cpuid_count(leaf, subleaf, &r[0], &r[1], &r[2], &r[3])) return false;
  return (r[static_cast<int>(reg)] >> bit) & 1u;
}

uint64_t readXcr0() {
  if (!cpuidBit(1, 0, Reg::Ecx, 27)) return 0; // OSXSAVE: xgetbv is usable
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

/// Linux >= 5.16 hands out the AMX tile state only on request; kernels
/// using AMX without it die with SIGILL although cpuid and XCR0 say yes.
bool amxPermitted() {
#if defined(__linux__) && defined(SYS_arch_prctl)
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return true;
#endif
}

bool osSupports(State state) {
  uint64_t xcr0 = readXcr0();
  switch (state) {
  case State::None:
    return true;
  case State::Avx:
    return (xcr0 & 0x6) == 0x6; // SSE + AVX (ymm upper halves)
  case State::Avx512:
    return (xcr0 & 0xe6) == 0xe6; // + opmask, zmm0-15 upper, zmm16-31
  case State::Amx:
    return (xcr0 & 0x60000) == 0x60000 && amxPermitted(); // XTILECFG + XTILEDATA
  }
  return false;
}
#endif // ARGUS_X86

std::vector<std::string> splitList(const char *list) {
  std::vector<std::string> items;
  if (!list) return items;
  std::string current;
  auto flush = [&] {
    size_t b = current.find_first_not_of(" \t");
    size_t e = current.find_last_not_of(" \t");
    if (b != std::string::npos) items.push_back(current.substr(b, e - b + 1));
    current.clear();
  };
  for (const char *p = list; *p; ++p) {
    if (*p == ',')
      flush();
    else
      current.push_back(*p);
  }
  flush();
  return items;
}

} // namespace

int cpuHasFeature(const std::string &name) {
#ifdef ARGUS_X86
  for (const FeatureBit &f : kFeatures) {
    if (name != f.name) continue;
    if (!cpuidBit(f.leaf, f.subleaf, f.reg, f.bit)) return 0;
    return osSupports(f.state) ? 1 : 0;
  }
#else
  (void)name;
#endif
  return -1;
}

std::string checkIsa(const char *required, const char *fakeMissing) {
  std::vector<std::string> fake = splitList(fakeMissing);
  std::string missing, unknown;
  for (const std::string &feature : splitList(required)) {
    bool faked = false;
    for (const std::string &f : fake) faked = faked || f == feature;
    int has = faked ? 0 : cpuHasFeature(feature);
    std::string &into = has < 0 ? unknown : missing;
    if (has == 1) continue;
    if (!into.empty()) into += ",";
    into += feature;
    if (faked) into += " (ARGUS_FAKE_MISSING_ISA)";
  }
  if (!unknown.empty())
    return "this library was built for '" + std::string(required) +
           "' but the runtime does not know how to detect " + unknown +
           " on this CPU architecture";
  if (!missing.empty())
    return "this library was built for '" + std::string(required) + "' but the CPU lacks " +
           missing;
  return "";
}

} // namespace argus_rt
