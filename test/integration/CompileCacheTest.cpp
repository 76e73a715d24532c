//===- CompileCacheTest.cpp - the object cache of argus-gen build ---------===//
//
// An object is reused only when its source, flags, compiler and the headers
// of its -I directories are all unchanged: editing a runtime header (the CPU
// kernel header, say) must recompile the kernels that include it, never
// link a stale object into a library. A proved instance is reused only for
// the same template text, specialisation, symbol and target.
//
//===----------------------------------------------------------------------===//
#include "argus/Dialect/Argus.h"
#include "argus/Emit/Compiler.h"
#include "argus/Emit/KernelInstance.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace argus::emit;

namespace {

void write(const fs::path &p, const std::string &text) { std::ofstream(p) << text; }

TEST(CompileCache, HeaderEditsInvalidateCachedObjects) {
  fs::path dir = fs::temp_directory_path() / ("argus-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "include");
  write(dir / "include" / "value.h", "inline int value() { return 1; }\n");
  write(dir / "use.cpp", "#include \"value.h\"\nint use() { return value(); }\n");
  CompileJob job{(dir / "use.cpp").string(), (dir / "use.o").string(), {"-O1", "-I" + (dir / "include").string()}};
  const std::string cache = (dir / "cache").string();
  auto build = [&] {
    CompileStats stats;
    EXPECT_EQ(compileAll({job}, 1, cache, stats, nullptr), "");
    return stats;
  };
  EXPECT_EQ(build().compiled, 1);
  EXPECT_EQ(build().fromCache, 1) << "unchanged: reused";
  write(dir / "include" / "value.h", "inline int value() { return 2; }\n");
  EXPECT_EQ(build().compiled, 1) << "the header changed: recompiled";
  write(dir / "include" / "extra.h", "// a new header in the directory\n");
  EXPECT_EQ(build().compiled, 1) << "a header appeared: recompiled";
  EXPECT_EQ(build().fromCache, 1);
  fs::remove_all(dir);
}

TEST(InstanceCache, ReusesOnlyTheSameInstance) {
  fs::path dir = fs::temp_directory_path() / ("argus-instance-cache-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string path = ARGUS_SOURCE_DIR "/templates/gemm/gemm_tn.argus";
  std::string text, error;
  ASSERT_TRUE(readTextFile(path, text, error)) << error;
  mlir::DialectRegistry registry;
  argus::registerArgusDialects(registry);
  mlir::MLIRContext context(registry);
  argus::lowering::Specialization spec;
  spec.constants["TA"] = std::string("bf16");
  spec.constants["BM"] = int64_t(4);
  auto instance = [&](const std::string &source, const argus::lowering::Specialization &s, const std::string &sym) {
    llvm::Expected<std::string> code = instantiateKernelCached(context, path, source, s, sym, "cpu-avx512",
                                                                  dir.string());
    if (!code) {
      ADD_FAILURE() << llvm::toString(code.takeError());
      return std::string();
    }
    return *code;
  };
  auto entries = [&] {
    size_t n = 0;
    for (auto &e : fs::directory_iterator(dir / "instances")) n += e.path().extension() == ".cpp";
    return n;
  };
  const std::string first = instance(text, spec, "k1");
  EXPECT_NE(first.find("void k1("), std::string::npos);
  EXPECT_EQ(entries(), 1u);
  EXPECT_EQ(instance(text, spec, "k1"), first) << "reused";
  EXPECT_EQ(entries(), 1u);
  instance(text, spec, "k2");
  EXPECT_EQ(entries(), 2u) << "another symbol is another instance";
  argus::lowering::Specialization taller = spec;
  taller.constants["BM"] = int64_t(8);
  EXPECT_NE(instance(text, taller, "k1"), first) << "another specialisation";
  EXPECT_NE(instance(text + "\n# edited\n", spec, "k1"), "") << "an edited template is lowered again";
  EXPECT_EQ(entries(), 4u);
  fs::remove_all(dir);
}

} // namespace
