//===- CpuRegisterBlockTest.cpp - mma's accumulators stay in registers ----===//
//
// A register block whose accumulators GCC keeps in memory stores all of them
// at every step of k, and runs at a third of the product rate. Whether GCC
// does depends on how the block is written (constant indices, what it
// inlines), not on the numbers, so no run against a reference notices, and
// timing it would belong to a benchmark. This reads the compiled code
// instead: the products of inputs/register_blocks.cpp are compiled as a
// kernel of each x86 target is, disassembled by objdump, and no innermost
// loop that multiplies vectors may store vector registers to the stack.
//
//===----------------------------------------------------------------------===//

#include "CodegenTestSupport.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace argus::codegen;
using argus::codegen::testing::sourcePath;

struct Instruction {
  uint64_t address;
  std::string text; // mnemonic and operands, as objdump prints them
};

/// Function name -> its instructions, from `objdump -d --no-show-raw-insn`.
std::map<std::string, std::vector<Instruction>> parseDisassembly(std::istream &in) {
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
    Instruction ins{std::strtoull(line.c_str(), nullptr, 16), line.substr(colon + 2)};
    current->push_back(ins);
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

/// A vector register stored to the stack frame: "vmovaps %zmm3,-0x230(%rbp)".
bool isStackVectorStore(const std::string &text) {
  if (text.rfind("vmov", 0) != 0)
    return false;
  const size_t reg = text.find("%ymm") != std::string::npos ? text.find("%ymm") : text.find("%zmm");
  const size_t comma = text.find(',');
  return reg != std::string::npos && comma != std::string::npos && reg < comma &&
         (text.find("(%rsp)", comma) != std::string::npos || text.find("(%rbp)", comma) != std::string::npos);
}

struct Finding {
  int loopsWithProducts = 0;
  std::vector<std::string> spilling; // "function: N stores, M products in a loop"
};

/// Compiles inputs/register_blocks.cpp for `target` and inspects every
/// innermost loop that holds at least 4 vector products.
Finding inspect(const std::string &target) {
  Finding finding;
  char dirTemplate[] = "/tmp/argus-register-blocks-XXXXXX";
  if (!mkdtemp(dirTemplate)) {
    ADD_FAILURE() << "cannot create a temporary directory";
    return finding;
  }
  const std::string dir = dirTemplate, object = dir + "/blocks.o", listing = dir + "/blocks.dis";
  std::string cmd = "g++";
  for (const std::string &flag : cpuCompileFlags(CpuTarget{target}))
    cmd += " " + flag;
  cmd += " -c -I" + sourcePath("dist/runtime/cpu") + " -I" + sourcePath("dist/runtime") + " " +
         sourcePath("test/codegen/inputs/register_blocks.cpp") + " -o " + object + " > " + dir + "/log.txt 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::stringstream log;
    log << std::ifstream(dir + "/log.txt").rdbuf();
    ADD_FAILURE() << "g++ failed: " << cmd << "\n" << log.str();
  } else if (std::system(("objdump -d --no-show-raw-insn -C " + object + " > " + listing).c_str()) != 0) {
    ADD_FAILURE() << "objdump failed on " << object;
  } else {
    std::ifstream in(listing);
    for (const auto &[name, code] : parseDisassembly(in)) {
      const std::vector<Loop> loops = loopsOf(code);
      for (const Loop &loop : loops) {
        bool innermost = true;
        for (const Loop &other : loops)
          innermost &= !(other.first >= loop.first && other.last <= loop.last &&
                         (other.first != loop.first || other.last != loop.last));
        int products = 0, stores = 0;
        for (const Instruction &ins : code)
          if (ins.address >= loop.first && ins.address <= loop.last) {
            products += isProduct(ins.text);
            stores += isStackVectorStore(ins.text);
          }
        if (!innermost || products < 4)
          continue;
        ++finding.loopsWithProducts;
        if (stores >= 4)
          finding.spilling.push_back(name + ": " + std::to_string(stores) + " vector stores to the stack, " +
                                     std::to_string(products) + " products in one loop");
      }
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return finding;
}

void expectRegisterBlocks(const std::string &target) {
  const Finding finding = inspect(target);
  // The listing holds the products' loops: a parse that found none would pass anything.
  EXPECT_GE(finding.loopsWithProducts, 8) << target;
  for (const std::string &loop : finding.spilling)
    ADD_FAILURE() << target << ": " << loop;
}

TEST(CpuRegisterBlocks, Avx512ProductsKeepTheirAccumulatorsInRegisters) { expectRegisterBlocks("cpu-avx512"); }

TEST(CpuRegisterBlocks, Avx2ProductsKeepTheirAccumulatorsInRegisters) { expectRegisterBlocks("cpu-avx2"); }

} // namespace
