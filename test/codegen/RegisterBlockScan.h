//===- RegisterBlockScan.h - vector products whose accumulators live in memory -===//
//
// A register block whose accumulators GCC keeps in memory stores them at
// every step of k and runs at a third of the product rate; no comparison
// against a reference notices. This reads compiled code instead: in every
// innermost loop (a backward jump with no other loop inside) that holds at
// least 4 vector products (vfmadd*, vdpbf16ps), it counts the stack slots
// that vector registers are stored to. 8 such slots mark the loop, or 4 if
// they are one for every 4 products or more: a block that keeps its
// accumulators in memory stores each to a slot of its own once a step (16
// slots against 16 or 64 products in the blocks this found). Fewer slots
// against many products are operands GCC loaded early and spilled: 4 slots
// against 32 products in the 1 x 16 x 64 panel product, which it unrolled
// whole; one slot stored 4 times against 16 products in DeepSeek-V2-Lite's
// one-row GEMM tiles.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_TEST_REGISTER_BLOCK_SCAN_H
#define ARGUS_TEST_REGISTER_BLOCK_SCAN_H

#include <istream>
#include <string>
#include <vector>

namespace argus::testing {

struct SpillingLoop {
  std::string function; // demangled
  int stores = 0;       // stack slots that vector registers are stored to in the loop
  int products = 0;     // vector products in the loop
};

struct RegisterBlockScan {
  int loopsWithProducts = 0; // innermost loops with at least 4 products
  std::vector<SpillingLoop> spilling;
};

/// Scans a listing of `objdump -d --no-show-raw-insn -C`.
RegisterBlockScan scanDisassembly(std::istream &listing);

/// Disassembles `binary` (an object or shared library) with objdump and
/// scans it; on failure returns false with `error` set.
bool scanBinary(const std::string &binary, RegisterBlockScan &scan, std::string &error);

/// "function: N vector stores to the stack, M products in one loop".
std::string describe(const SpillingLoop &loop);

} // namespace argus::testing

#endif // ARGUS_TEST_REGISTER_BLOCK_SCAN_H
