//===- emulated_kernels.cpp - kernel symbols to emulated launches ---------===//
#include "emulated_kernels.h"

#include <cstring>
#include <vector>

namespace argus::hip::test {
namespace {

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

bool isEmulatedKernel(const char *symbol) { return generatedEntry(symbol); }

int kernelThreads(const char *symbol, void **arguments) {
  const GeneratedEntry *g = generatedEntry(symbol);
  return g && arguments ? g->threads(arguments) : 0;
}

bool emulateKernel(const char *symbol, int gridX, int gridY, int gridZ, void **arguments) {
  const GeneratedEntry *g = generatedEntry(symbol);
  if (!g)
    return false;
  g->run(gridX, gridY, gridZ, arguments);
  return true;
}

} // namespace argus::hip::test
