//===- CpuRegisterBlockTest.cpp - mma's accumulators stay in registers ----===//
//
// A register block whose accumulators GCC keeps in memory runs at a third of
// the product rate, and whether GCC does depends on how the block is
// written (constant indices, what it inlines), not on the numbers, so no
// run against a reference notices. The products of
// inputs/register_blocks.cpp are compiled as a kernel of each x86 target
// is and scanned (RegisterBlockScan.h): no innermost loop that multiplies
// vectors may store vector registers to the stack. The integration tests
// scan the shipped catalogs' whole libraries the same way
// (argus-register-scan), which also sees what a kernel's size makes GCC do.
//
//===----------------------------------------------------------------------===//

#include "CodegenTestSupport.h"
#include "RegisterBlockScan.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace argus::codegen;
using argus::codegen::testing::sourcePath;
using argus::testing::RegisterBlockScan;

/// Compiles inputs/register_blocks.cpp for `target` and scans the object.
RegisterBlockScan inspect(const std::string &target) {
  RegisterBlockScan scan;
  char dirTemplate[] = "/tmp/argus-register-blocks-XXXXXX";
  if (!mkdtemp(dirTemplate)) {
    ADD_FAILURE() << "cannot create a temporary directory";
    return scan;
  }
  const std::string dir = dirTemplate, object = dir + "/blocks.o";
  std::string cmd = "g++";
  for (const std::string &flag : cpuCompileFlags(CpuTarget{target}))
    cmd += " " + flag;
  cmd += " -c -I" + sourcePath("dist/runtime/cpu") + " -I" + sourcePath("dist/runtime") + " " +
         sourcePath("test/codegen/inputs/register_blocks.cpp") + " -o " + object + " > " + dir + "/log.txt 2>&1";
  std::string error;
  if (std::system(cmd.c_str()) != 0) {
    std::stringstream log;
    log << std::ifstream(dir + "/log.txt").rdbuf();
    ADD_FAILURE() << "g++ failed: " << cmd << "\n" << log.str();
  } else if (!argus::testing::scanBinary(object, scan, error)) {
    ADD_FAILURE() << error;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return scan;
}

void expectRegisterBlocks(const std::string &target) {
  const RegisterBlockScan scan = inspect(target);
  // The listing holds the products' loops: a parse that found none would pass anything.
  EXPECT_GE(scan.loopsWithProducts, 8) << target;
  for (const argus::testing::SpillingLoop &loop : scan.spilling)
    ADD_FAILURE() << target << ": " << argus::testing::describe(loop);
}

TEST(CpuRegisterBlocks, Avx512ProductsKeepTheirAccumulatorsInRegisters) { expectRegisterBlocks("cpu-avx512"); }

TEST(CpuRegisterBlocks, Avx2ProductsKeepTheirAccumulatorsInRegisters) { expectRegisterBlocks("cpu-avx2"); }

} // namespace
