//===- Package.h - a built library as a tarball and a .deb -------*- C++ -*-===//
//
// `argus-gen package`: turns the output directory of `argus-gen build` into
//   argus-kernels-<model>-<target>-<version>.tar.gz   (one top directory, a
//       relocatable prefix: lib/, include/, share/argus_kernels/)
//   argus-kernels-<model>-<target>-<version>.deb      (the same under /usr)
// holding the library with its SONAME links, argus_kernels.h, the pkg-config
// and CMake package files and the manifest. Both are reproducible: sorted
// members, owner root, timestamps from SOURCE_DATE_EPOCH (default 0).
// Every package provides and conflicts with `argus-kernels`: models' libraries
// share a name, so one prefix holds one of them.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_PACKAGE_H
#define ARGUS_EMIT_PACKAGE_H

#include <string>
#include <variant>

namespace argus::emit {

struct PackageReport {
  std::string name;     // argus-kernels-<model>-<target>-<version>
  std::string tarball;  // path of the .tar.gz
  std::string deb;      // path of the .deb
};

/// Packages the build in `buildDir` into `destDir` (created if needed).
std::variant<PackageReport, std::string> makePackages(const std::string &buildDir, const std::string &destDir);

} // namespace argus::emit

#endif // ARGUS_EMIT_PACKAGE_H
