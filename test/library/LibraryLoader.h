//===- LibraryLoader.h - a generated library, opened with dlopen ----------===//
//
// Tests of generated libraries are built before any library exists (the
// libraries are test fixtures), so they open the one named by
// $ARGUS_LIBRARY at run time and look up the C ABI by name.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_LIBRARY_LOADER_H
#define ARGUS_TEST_LIBRARY_LOADER_H

#include "argus_kernels.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace argus_test {

/// Opened once per process and never closed: unloading the library could
/// unload the OpenMP runtime under its idle worker threads.
class GeneratedLibrary {
public:
  static const GeneratedLibrary &get() {
    static const GeneratedLibrary library;
    return library;
  }

  const std::string &error() const { return error_; }

  /// The exported function `name`, typed like `Fn`; null when missing.
  template <class Fn> Fn *symbol(const char *name) const {
    return handle_ ? reinterpret_cast<Fn *>(dlsym(handle_, name)) : nullptr;
  }

private:
  /// Opens $ARGUS_LIBRARY; `error()` says why when it could not.
  GeneratedLibrary() {
    const char *path = std::getenv("ARGUS_LIBRARY");
    if (!path || !*path) {
      error_ = "ARGUS_LIBRARY is not set";
      return;
    }
    handle_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle_) error_ = dlerror();
  }
  void *handle_ = nullptr;
  std::string error_;
};

} // namespace argus_test

#endif // ARGUS_TEST_LIBRARY_LOADER_H
