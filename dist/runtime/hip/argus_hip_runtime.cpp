//===- argus_hip_runtime.cpp - dlopen'd HIP, one module per device ---------===//
#include "argus_hip_runtime.h"

#include "argus_error.h"
#include "argus_hip_registry.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace argus_rt {
namespace {

// The HIP C API this library uses. Its signatures are the same in ROCm 5, 6
// and 7; hipError_t is an int-sized enum with hipSuccess = 0.
using hipError = int;
using hipModule = void *;
using hipFunction = void *;

struct HipApi {
  hipError (*getDeviceCount)(int *);
  hipError (*getDevice)(int *);
  hipError (*moduleLoadData)(hipModule *, const void *);
  hipError (*moduleGetFunction)(hipFunction *, hipModule, const char *);
  hipError (*moduleLaunchKernel)(hipFunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 void *, void **, void **);
  const char *(*getErrorName)(hipError);
  const char *(*getErrorString)(hipError);
};

// Where the runtime comes from: $ARGUS_HIP_RUNTIME, else the sonames ROCm installs.
const char *const kRuntimeNames[] = {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"};

struct Loaded {
  HipApi api{};
  std::string name;   // the file that was loaded, or the first one tried
  std::string error;  // "" when api is complete
};

template <typename F>
bool bind(void *library, const char *symbol, F &slot, std::string &error) {
  slot = reinterpret_cast<F>(dlsym(library, symbol));
  if (!slot && error.empty())
    error = std::string("it has no ") + symbol;
  return slot != nullptr;
}

const Loaded &runtime() {
  static const Loaded loaded = [] {
    Loaded l;
    void *library = nullptr;
    if (const char *path = std::getenv("ARGUS_HIP_RUNTIME"); path && *path) {
      l.name = path;
      library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (!library)
        l.error = std::string("dlopen failed: ") + dlerror();
    } else {
      l.name = kRuntimeNames[0];
      for (const char *name : kRuntimeNames)
        if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
          l.name = name;
          break;
        }
      if (!library)
        l.error = "not found (is ROCm 5 or newer installed? ARGUS_HIP_RUNTIME may name the file)";
    }
    if (!library)
      return l;
    HipApi &a = l.api;
    bind(library, "hipGetDeviceCount", a.getDeviceCount, l.error);
    bind(library, "hipGetDevice", a.getDevice, l.error);
    bind(library, "hipModuleLoadData", a.moduleLoadData, l.error);
    bind(library, "hipModuleGetFunction", a.moduleGetFunction, l.error);
    bind(library, "hipModuleLaunchKernel", a.moduleLaunchKernel, l.error);
    bind(library, "hipGetErrorName", a.getErrorName, l.error);
    bind(library, "hipGetErrorString", a.getErrorString, l.error);
    return l;  // the library stays loaded for the life of the process
  }();
  return loaded;
}

std::string describe(const HipApi &api, hipError error) {
  return std::string(api.getErrorName(error)) + ": " + api.getErrorString(error);
}

// The code object loaded on one device, and the kernels looked up in it so far.
struct DeviceModule {
  hipModule module = nullptr;
  std::string error;  // why the code object does not load on this device
  std::map<std::string, hipFunction> functions;
};

std::mutex modulesMutex;
std::map<int, DeviceModule> modules;

// The kernel `name` on the current device; null with `error` set.
hipFunction kernelOnCurrentDevice(const HipApi &api, const char *name, std::string &error) {
  int device = 0;
  if (hipError e = api.getDevice(&device)) {
    int count = -1;
    api.getDeviceCount(&count);  // with no device: hipErrorNoDevice and a count of 0
    error = count == 0 ? "no AMD GPU is visible to the HIP runtime (" + describe(api, e) + ")"
                       : "hipGetDevice failed: " + describe(api, e);
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(modulesMutex);
  auto [it, fresh] = modules.try_emplace(device);
  DeviceModule &m = it->second;
  if (fresh)
    if (hipError e = api.moduleLoadData(&m.module, argus_hip_code_object))
      m.error = std::string("the HIP runtime cannot load this library's ") + argus_hip_arch +
                " code object on device " + std::to_string(device) + " (built for " + argus_generated_target +
                "; is the GPU another architecture?): " + describe(api, e);
  if (!m.error.empty()) {
    error = m.error;
    return nullptr;
  }
  auto [f, missing] = m.functions.try_emplace(name, nullptr);
  if (missing)
    if (hipError e = api.moduleGetFunction(&f->second, m.module, name)) {
      m.functions.erase(f);
      error = std::string("kernel ") + name + " is not in the code object: " + describe(api, e);
      return nullptr;
    }
  return f->second;
}

} // namespace

const char *hipRuntimeName() { return runtime().name.c_str(); }

argus_status hipLaunch(const char *function, const HipLaunch &launch, void *stream) {
  const Loaded &hip = runtime();
  if (!hip.error.empty())
    return fail(ARGUS_ERROR_DEVICE, "%s: no HIP runtime: %s %s", function, hip.name.c_str(), hip.error.c_str());
  std::string error;
  hipFunction kernel = kernelOnCurrentDevice(hip.api, launch.kernel, error);
  if (!kernel)
    return fail(ARGUS_ERROR_DEVICE, "%s: %s", function, error.c_str());
  if (hipError e = hip.api.moduleLaunchKernel(kernel, launch.gridX, launch.gridY, launch.gridZ, launch.threads, 1, 1, 0, stream,
                                              launch.arguments, nullptr))
    return fail(ARGUS_ERROR_DEVICE, "%s: launching %s failed: %s", function, launch.kernel,
                describe(hip.api, e).c_str());
  return ARGUS_OK;
}

} // namespace argus_rt
