//===- register_scan_main.cpp - scan a built library's register blocks ----===//
//
//   argus-register-scan LIBRARY_OR_OBJECT...
//
// Lists every innermost loop of vector products that stores vector
// registers to the stack (RegisterBlockScan.h) and exits 1 if there is one,
// or if a binary holds no loop of products at all (then the scan itself
// would be blind).
//
//===----------------------------------------------------------------------===//

#include "RegisterBlockScan.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LIBRARY_OR_OBJECT...\n", argv[0]);
    return 2;
  }
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    argus::testing::RegisterBlockScan scan;
    std::string error;
    if (!argus::testing::scanBinary(argv[i], scan, error)) {
      std::fprintf(stderr, "%s: %s\n", argv[i], error.c_str());
      status = 1;
      continue;
    }
    for (const argus::testing::SpillingLoop &loop : scan.spilling)
      std::printf("%s: %s\n", argv[i], argus::testing::describe(loop).c_str());
    std::printf("%s: %d innermost loops of vector products, %zu keep accumulators in memory\n", argv[i],
                scan.loopsWithProducts, scan.spilling.size());
    if (scan.loopsWithProducts == 0 || !scan.spilling.empty())
      status = 1;
  }
  return status;
}
