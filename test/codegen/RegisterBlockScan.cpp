//===- RegisterBlockScan.cpp - vector products whose accumulators live in memory -===//

#include "RegisterBlockScan.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace argus::testing {
namespace {

struct Instruction {
  uint64_t address;
  std::string text; // mnemonic and operands, as objdump prints them
};

/// Function name -> its instructions in address order.
std::map<std::string, std::vector<Instruction>> parseFunctions(std::istream &in) {
  std::map<std::string, std::vector<Instruction>> functions;
  std::vector<Instruction> *current = nullptr;
  std::string line;
  while (std::getline(in, line)) {
    const size_t open = line.find(" <"), close = line.rfind(">:");
    if (!line.empty() && line[0] != ' ' && open != std::string::npos && close != std::string::npos) {
      current = &functions[line.substr(open + 2, close - open - 2)];
      continue;
    }
    const size_t colon = line.find(":\t");
    if (!current || colon == std::string::npos)
      continue;
    current->push_back({std::strtoull(line.c_str(), nullptr, 16), line.substr(colon + 2)});
  }
  return functions;
}

struct Loop {
  uint64_t first, last; // the branch target and the backward branch
};

/// Loops of one function: backward jumps within it.
std::vector<Loop> loopsOf(const std::vector<Instruction> &code) {
  std::vector<Loop> loops;
  for (const Instruction &ins : code) {
    if (ins.text.empty() || ins.text[0] != 'j')
      continue;
    const size_t space = ins.text.find_first_of(" \t");
    if (space == std::string::npos)
      continue;
    char *end = nullptr;
    const uint64_t target = std::strtoull(ins.text.c_str() + space, &end, 16);
    if (end != ins.text.c_str() + space && target <= ins.address && target >= code.front().address)
      loops.push_back({target, ins.address});
  }
  return loops;
}

bool isProduct(const std::string &text) {
  return text.rfind("vfmadd", 0) == 0 || text.rfind("vdpbf16ps", 0) == 0;
}

/// The stack slot a vector register is stored to ("-0x230(%rbp)" of
/// "vmovaps %zmm3,-0x230(%rbp)"), or "" for any other instruction.
std::string stackVectorStoreSlot(const std::string &text) {
  if (text.rfind("vmov", 0) != 0)
    return "";
  const size_t reg = text.find("%ymm") != std::string::npos ? text.find("%ymm") : text.find("%zmm");
  const size_t comma = text.find(',');
  if (reg == std::string::npos || comma == std::string::npos || reg > comma)
    return "";
  const std::string slot = text.substr(comma + 1);
  return slot.find("(%rsp)") != std::string::npos || slot.find("(%rbp)") != std::string::npos ? slot : "";
}

bool contains(const Loop &outer, const Loop &inner) {
  return inner.first >= outer.first && inner.last <= outer.last &&
         (inner.first != outer.first || inner.last != outer.last);
}

} // namespace

RegisterBlockScan scanDisassembly(std::istream &listing) {
  RegisterBlockScan scan;
  for (const auto &[name, code] : parseFunctions(listing)) {
    const std::vector<Loop> loops = loopsOf(code);
    for (const Loop &loop : loops) {
      if (std::any_of(loops.begin(), loops.end(), [&](const Loop &other) { return contains(loop, other); }))
        continue; // not innermost
      auto at = std::lower_bound(code.begin(), code.end(), loop.first,
                                 [](const Instruction &ins, uint64_t address) { return ins.address < address; });
      int products = 0;
      std::set<std::string> slots;
      for (; at != code.end() && at->address <= loop.last; ++at) {
        products += isProduct(at->text);
        if (std::string slot = stackVectorStoreSlot(at->text); !slot.empty())
          slots.insert(slot);
      }
      if (products < 4)
        continue;
      ++scan.loopsWithProducts;
      const int stores = int(slots.size());
      if (stores >= 8 || (stores >= 4 && 4 * stores >= products))
        scan.spilling.push_back({name, stores, products});
    }
  }
  return scan;
}

bool scanBinary(const std::string &binary, RegisterBlockScan &scan, std::string &error) {
  const std::string command = "objdump -d --no-show-raw-insn -C '" + binary + "' 2>/dev/null";
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe) {
    error = "cannot run objdump";
    return false;
  }
  std::stringstream listing;
  char buffer[1 << 16];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    listing.write(buffer, std::streamsize(n));
  if (pclose(pipe) != 0) {
    error = "objdump failed on " + binary;
    return false;
  }
  scan = scanDisassembly(listing);
  return true;
}

std::string describe(const SpillingLoop &loop) {
  return loop.function + ": vector stores to " + std::to_string(loop.stores) + " stack slots, " +
         std::to_string(loop.products) + " products in one loop";
}

} // namespace argus::testing
