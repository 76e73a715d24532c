//===- emulated_kernels.cpp - kernel symbols to emulated launches ---------===//
#include "emulated_kernels.h"

#include "argus_hip_emulator.h"
#include "argus_hip_moe_kernel.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace argus::hip::test {
namespace {

// The hand-written kernel: symbol, work-items, body over the launch's arguments.
struct OtherKernel {
  const char *symbol;
  int threads;
  std::function<void(void **arguments)> body;
};

template <class Params>
const Params &first(void **arguments) {
  return *static_cast<const Params *>(arguments[0]);
}

const OtherKernel kOthers[] = {
    {"argus_hip_moe_align", kMoeAlignThreads, [](void **a) { moeAlign(first<MoeParams>(a)); }},
};

const OtherKernel *other(const char *symbol) {
  for (const OtherKernel &k : kOthers)
    if (std::strcmp(k.symbol, symbol) == 0)
      return &k;
  return nullptr;
}

std::vector<GeneratedEntry> &generatedEntries() {
  static std::vector<GeneratedEntry> entries;
  return entries;
}

const GeneratedEntry *generatedEntry(const char *symbol) {
  for (const GeneratedEntry &k : generatedEntries())
    if (std::strcmp(k.symbol, symbol) == 0)
      return &k;
  return nullptr;
}

} // namespace

bool registerEmulatedEntry(const GeneratedEntry &entry) {
  generatedEntries().push_back(entry);
  return true;
}

bool isEmulatedKernel(const char *symbol) { return other(symbol) || generatedEntry(symbol); }

int kernelThreads(const char *symbol, void **arguments) {
  if (const OtherKernel *k = other(symbol))
    return k->threads;
  const GeneratedEntry *g = generatedEntry(symbol);
  return g && arguments ? g->threads(arguments) : 0;
}

bool emulateKernel(const char *symbol, int gridX, int gridY, int gridZ, void **arguments) {
  if (const OtherKernel *k = other(symbol)) {
    emu::Launch grid;
    grid.gridX = gridX;
    grid.gridY = gridY;
    grid.gridZ = gridZ;
    grid.threads = k->threads;
    emu::run(grid, [&] { k->body(arguments); });
    return true;
  }
  const GeneratedEntry *g = generatedEntry(symbol);
  if (!g)
    return false;
  g->run(gridX, gridY, gridZ, arguments);
  return true;
}

} // namespace argus::hip::test
