//===- CompileCacheTest.cpp - the object cache of argus-gen build ---------===//
//
// An object is reused only when its source, flags, compiler and the headers
// of its -I directories are all unchanged: editing a runtime header (the CPU
// kernel header, say) must recompile the kernels that include it, never
// link a stale object into a library.
//
//===----------------------------------------------------------------------===//
#include "argus/Emit/Compiler.h"

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

} // namespace
