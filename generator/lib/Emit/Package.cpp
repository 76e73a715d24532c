//===- Package.cpp - a built library as a tarball and a .deb --------------===//
#include "argus/Emit/Package.h"

#include "argus/Emit/Compiler.h"
#include "argus/Emit/KernelInstance.h"
#include "argus/Emit/LibraryBuilder.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace argus::emit {

namespace {

/// Debian package names: lower-case letters, digits, '+', '-', '.'.
std::string debianName(const std::string &s) {
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    out += std::isalnum(u) || c == '+' || c == '.' || c == '-' ? char(std::tolower(u)) : '-';
  }
  return out;
}

/// One file of a package: where it is in a build directory, where it goes
/// under the package's prefix.
struct PackageFile {
  fs::path inBuild, inPrefix;
};

/// The files of a package; a report is added when the build has one.
std::vector<PackageFile> packageFiles(const fs::path &build, const std::string &version) {
  std::vector<PackageFile> files;
  for (const fs::path &rel : std::vector<fs::path>{"lib/libargus_kernels.so." + version, fs::path("lib") / kLibrarySoname,
                                                   "lib/libargus_kernels.so", "lib/pkgconfig/argus_kernels.pc",
                                                   "lib/cmake/ArgusKernels/ArgusKernelsConfig.cmake",
                                                   "lib/cmake/ArgusKernels/ArgusKernelsConfigVersion.cmake",
                                                   "include/argus_kernels.h", "share/argus_kernels/manifest.json"})
    files.push_back({rel, rel});
  std::error_code ec;
  if (fs::exists(build / "report.html", ec)) files.push_back({"report.html", "share/argus_kernels/report.html"});
  return files;
}

/// Copies `files` from `build` under `prefix`, links as links, with fixed
/// permissions so the archives do not depend on the umask.
std::string stage(const fs::path &build, const fs::path &prefix, const std::vector<PackageFile> &files) {
  std::error_code ec;
  for (const PackageFile &f : files) {
    fs::path src = build / f.inBuild, dst = prefix / f.inPrefix;
    fs::create_directories(dst.parent_path(), ec);
    if (ec) return "cannot create '" + dst.parent_path().string() + "': " + ec.message();
    if (fs::is_symlink(src, ec)) {
      fs::copy_symlink(src, dst, ec);
    } else {
      fs::copy_file(src, dst, fs::copy_options::overwrite_existing, ec);
      bool library = f.inPrefix.filename().string().rfind("libargus_kernels.so", 0) == 0;
      if (!ec) fs::permissions(dst, library ? fs::perms(0755) : fs::perms(0644), ec);
    }
    if (ec) return "cannot stage '" + src.string() + "': " + ec.message();
  }
  for (const fs::directory_entry &d : fs::recursive_directory_iterator(prefix, ec))
    if (d.is_directory(ec) && !d.is_symlink(ec)) fs::permissions(d.path(), fs::perms(0755), ec);
  return "";
}

std::string run(const std::vector<std::string> &argv) {
  std::string output;
  if (runCommand(argv, output) != 0) {
    std::string command;
    for (const std::string &a : argv) command += (command.empty() ? "" : " ") + a;
    return "`" + command + "` failed:\n" + output;
  }
  return "";
}

std::string controlFile(const json &manifest, const std::string &name, const std::string &version) {
  const std::string model = manifest.value("model", ""), target = manifest.value("target", "");
  std::string catalog = manifest.contains("catalog") ? manifest["catalog"].value("file", "") : "";
  std::string hash = manifest.contains("catalog") ? manifest["catalog"].value("hash", "") : "";
  return "Package: " + name + "\n" + "Version: " + version + "\n" +
         "Architecture: amd64\n"
         "Maintainer: Argus kernels <argus-kernels@localhost>\n"
         "Depends: libc6, libgcc-s1, libgomp1, libstdc++6\n"
         "Provides: argus-kernels\n"
         "Conflicts: argus-kernels\n"
         "Replaces: argus-kernels\n"
         "Section: libs\n"
         "Priority: optional\n"
         "Description: Argus kernels for " + model + " on " + target + "\n" +
         " GEMM, attention and MoE kernels generated ahead of time by argus-gen " +
         manifest.value("generator_version", "") + "\n for the shape catalog " + catalog + " (hash " +
         hash.substr(0, 16) + "),\n with a C ABI (argus_kernels.h), pkg-config and CMake package files.\n";
}

} // namespace

std::variant<PackageReport, std::string> makePackages(const std::string &buildDir, const std::string &destDir) {
  fs::path build(buildDir), dest(destDir);
  std::string text, error;
  if (!readTextFile((build / "manifest.json").string(), text, error))
    return error + " (is '" + buildDir + "' the output directory of argus-gen build?)";
  json manifest = json::parse(text, nullptr, false);
  if (manifest.is_discarded() || !manifest.is_object() || !manifest.contains("model") ||
      !manifest.contains("target") || !manifest.contains("version"))
    return "'" + (build / "manifest.json").string() + "' is not the manifest of an Argus library";
  const std::string model = manifest["model"], target = manifest["target"], version = manifest["version"];
  std::vector<PackageFile> files = packageFiles(build, version);
  std::error_code ec;
  for (const PackageFile &f : files)
    if (!fs::exists(build / f.inBuild, ec))
      return "'" + (build / f.inBuild).string() + "' is missing: build the library first (argus-gen build)";

  PackageReport report;
  report.name = "argus-kernels-" + model + "-" + target + "-" + version;
  fs::create_directories(dest, ec);
  if (ec) return "cannot create '" + dest.string() + "': " + ec.message();
  fs::path staging = dest / (".stage-" + report.name);
  fs::remove_all(staging, ec);
  const char *epochEnv = std::getenv("SOURCE_DATE_EPOCH");
  const std::string epoch = epochEnv && *epochEnv ? epochEnv : "0";
  setenv("SOURCE_DATE_EPOCH", epoch.c_str(), 0); // dpkg-deb's member times

  // The tarball: one top directory that is a relocatable prefix.
  fs::path tarRoot = staging / "tar";
  if (std::string e = stage(build, tarRoot / report.name, files); !e.empty()) return e;
  fs::path tar = staging / (report.name + ".tar");
  if (std::string e = run({"tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner", "--mtime=@" + epoch,
                           "-C", tarRoot.string(), "-cf", tar.string(), report.name});
      !e.empty())
    return e;
  if (std::string e = run({"gzip", "-n", "-9", "-f", tar.string()}); !e.empty()) return e;
  report.tarball = (dest / (report.name + ".tar.gz")).string();
  fs::rename(staging / (report.name + ".tar.gz"), report.tarball, ec);
  if (ec) return "cannot move the tarball to '" + report.tarball + "': " + ec.message();

  // The .deb: the same files under /usr.
  fs::path debRoot = staging / "deb";
  if (std::string e = stage(build, debRoot / "usr", files); !e.empty()) return e;
  fs::create_directories(debRoot / "DEBIAN", ec);
  const std::string package = debianName("argus-kernels-" + model + "-" + target);
  if (!writeIfChanged((debRoot / "DEBIAN" / "control").string(), controlFile(manifest, package, version), error))
    return error;
  fs::permissions(debRoot / "DEBIAN" / "control", fs::perms(0644), ec);
  fs::permissions(debRoot / "DEBIAN", fs::perms(0755), ec);
  fs::path deb = staging / (report.name + ".deb");
  if (std::string e = run({"dpkg-deb", "--root-owner-group", "-Zgzip", "--build", debRoot.string(), deb.string()});
      !e.empty())
    return e;
  report.deb = (dest / (report.name + ".deb")).string();
  fs::rename(deb, report.deb, ec);
  if (ec) return "cannot move the .deb to '" + report.deb + "': " + ec.message();
  fs::remove_all(staging, ec);
  return report;
}

} // namespace argus::emit
