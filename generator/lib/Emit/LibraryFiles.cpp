//===- LibraryFiles.cpp - the files every generated library ships ---------===//
#include "LibraryFiles.h"

#include "argus/Emit/KernelInstance.h"
#include "argus/Emit/LibraryBuilder.h"

#include <map>
#include <sstream>

namespace fs = std::filesystem;

#ifndef ARGUS_GENERATOR_VERSION
#define ARGUS_GENERATOR_VERSION "0.0.0"
#endif

namespace argus::emit {

nlohmann::json manifestHeader(const catalog::Catalog &cat, const std::string &target) {
  return {{"library", "argus_kernels"},
          {"version", kLibraryVersion},
          {"abi_version", 1},
          {"generator_version", ARGUS_GENERATOR_VERSION},
          {"model", cat.model},
          {"dtype", std::string(catalog::dtypeName(cat.dtype))},
          {"target", target},
          {"catalog", {{"file", fs::path(cat.path).filename().string()}, {"hash", cat.content_hash}}}};
}

std::string cString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n\"\n\""; break;
    default: out += c;
    }
  }
  return out + "\"";
}

nlohmann::json gpuGemmGroupJson(const std::vector<std::string> &ops, int64_t n, int64_t k,
                                const std::vector<GpuBucket> &buckets) {
  nlohmann::json list = nlohmann::json::array();
  int64_t low = 1;
  for (size_t i = 0; i < buckets.size(); ++i) {
    const bool last = i + 1 == buckets.size();
    list.push_back({{"m_min", low},
                    {"m_max", last ? nlohmann::json(nullptr) : nlohmann::json(buckets[i].bound)},
                    {"kernel", buckets[i].kernelName},
                    {"config", buckets[i].config}});
    low = buckets[i].bound + 1;
  }
  return {{"ops", ops}, {"n", n}, {"k", k}, {"a_type", "bf16"}, {"c_type", "bf16"}, {"buckets", list}};
}

std::string joinedOps(const std::vector<std::string> &ops) {
  std::string joined;
  for (const std::string &op : ops)
    joined += (joined.empty() ? "" : "_") + op;
  return joined;
}

std::string gpuBucketArrays(const std::string &prefix, const std::vector<GpuBucket> &buckets) {
  std::string bounds, names;
  for (size_t b = 0; b < buckets.size(); ++b) {
    bounds += (b ? ", " : "") + std::to_string(buckets[b].bound);
    names += (b ? ", " : "") + cString(buckets[b].kernelName);
  }
  return "static const int64_t " + prefix + "_bounds[] = {" + bounds + "};\nstatic const char *const " + prefix +
         "_names[] = {" + names + "};\n";
}

std::string createBuildDirs(const fs::path &out) {
  for (const char *sub : {"src", "obj", "lib"}) {
    std::error_code ec;
    fs::create_directories(out / sub, ec);
    if (ec)
      return "cannot create '" + (out / sub).string() + "': " + ec.message();
  }
  return "";
}

namespace {

/// Replaces every @NAME@ of `text` (CMake configure_file(@ONLY) syntax).
std::string fillTemplate(std::string text, const std::map<std::string, std::string> &values) {
  for (const auto &[name, value] : values) {
    std::string key = "@" + name + "@";
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  }
  return text;
}

} // namespace

std::string writePackageFiles(const fs::path &home, const fs::path &out, const catalog::Catalog &cat,
                              const std::string &target, const std::string &manifest) {
  std::map<std::string, std::string> values = {{"ARGUS_VERSION", kLibraryVersion},
                                               {"ARGUS_ABI_VERSION", "1"},
                                               {"ARGUS_MODEL", cat.model},
                                               {"ARGUS_TARGET", target}};
  const std::pair<const char *, fs::path> files[] = {
      {"argus_kernels.pc.in", out / "lib" / "pkgconfig" / "argus_kernels.pc"},
      {"ArgusKernelsConfig.cmake.in", out / "lib" / "cmake" / "ArgusKernels" / "ArgusKernelsConfig.cmake"},
      {"ArgusKernelsConfigVersion.cmake.in",
       out / "lib" / "cmake" / "ArgusKernels" / "ArgusKernelsConfigVersion.cmake"}};
  std::string error, text;
  std::error_code ec;
  for (const auto &[name, dest] : files) {
    if (!readTextFile((home / "dist" / "templates" / name).string(), text, error))
      return error;
    fs::create_directories(dest.parent_path(), ec);
    if (!writeIfChanged(dest, fillTemplate(text, values), error))
      return error;
  }
  fs::create_directories(out / "share" / "argus_kernels", ec);
  if (!writeIfChanged(out / "share" / "argus_kernels" / "manifest.json", manifest, error))
    return error;
  return "";
}

std::vector<std::string> runtimeSources(const fs::path &listFile, const fs::path &runtimeDir, std::string &error) {
  std::string text;
  if (!readTextFile(listFile.string(), text, error))
    return {};
  std::vector<std::string> sources;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty() && line[0] != '#')
      sources.push_back((runtimeDir / line).string());
  }
  return sources;
}

std::string installLibrary(const fs::path &linked, const fs::path &home, const fs::path &out) {
  const fs::path libDir = out / "lib", includeDir = out / "include";
  const std::string fullName = std::string("libargus_kernels.so.") + kLibraryVersion;
  const fs::path library = libDir / fullName;
  // Linked under a temporary name, then renamed: a process using the library
  // (or a concurrent reader) never sees a half-written file.
  std::error_code ec;
  fs::rename(linked, library, ec);
  if (ec) return "cannot move " + linked.string() + " to " + library.string() + ": " + ec.message();
  for (const std::string &alias : {std::string(kLibrarySoname), std::string("libargus_kernels.so")}) {
    fs::remove(libDir / alias, ec);
    fs::create_symlink(alias == kLibrarySoname ? fullName : std::string(kLibrarySoname), libDir / alias, ec);
    if (ec) return "cannot create link " + (libDir / alias).string() + ": " + ec.message();
  }
  fs::create_directories(includeDir, ec);
  fs::copy_file(home / "dist" / "include" / "argus_kernels.h", includeDir / "argus_kernels.h",
                fs::copy_options::overwrite_existing, ec);
  if (ec) return "cannot copy argus_kernels.h: " + ec.message();
  return "";
}

std::string linkLibrary(std::vector<std::string> linker, const std::vector<CompileJob> &jobs, const fs::path &home,
                        const fs::path &out, const catalog::Catalog &cat, const std::string &target,
                        const std::string &manifest, std::string &libraryPath) {
  const std::string fullName = std::string("libargus_kernels.so.") + kLibraryVersion;
  libraryPath = (out / "lib" / fullName).string();
  const fs::path linked = out / "lib" / (fullName + ".tmp"); // installLibrary renames it
  linker.insert(linker.end(), {"-o", linked.string()});
  for (const CompileJob &j : jobs)
    linker.push_back(j.objectPath);
  std::string output;
  if (runCommand(linker, output) != 0)
    return "linking " + libraryPath + " failed:\n" + output;
  if (std::string error = installLibrary(linked, home, out); !error.empty())
    return error;
  return writePackageFiles(home, out, cat, target, manifest);
}

} // namespace argus::emit
