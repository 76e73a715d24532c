//===- fake_amdhip64.cpp - a HIP runtime whose GPU is the wave emulator ---===//
//
// Loaded by a hip library in place of libamdhip64 (ARGUS_HIP_RUNTIME), it
// lets the tests drive the library's whole device path on a machine without
// an AMD GPU: hipModuleLoadData checks that the embedded code object is an
// AMDGPU ELF for the fake device's processor, hipModuleGetFunction that the
// kernel's descriptor (NAME.kd) is in it, and hipModuleLaunchKernel checks the
// workgroup size and runs the kernel's own source on the emulator, with
// "device memory" being host memory. Every launch is logged for the tests.
//
//   FAKE_HIP_ARCH     the device's processor, gfx942 (default) or gfx90a
//   FAKE_HIP_DEVICES  how many devices there are (default 1)
//
//===----------------------------------------------------------------------===//
#include "emulated_kernels.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

enum : int {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorNoDevice = 100,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorNotFound = 500,
};

struct Module {
  const unsigned char *image;
  size_t size;  // up to the end of the last section header
};

struct Function {
  std::string name;
};

int devices() {
  const char *v = std::getenv("FAKE_HIP_DEVICES");
  return v && *v ? std::atoi(v) : 1;
}

std::string arch() {
  const char *v = std::getenv("FAKE_HIP_ARCH");
  return v && *v ? v : "gfx942";
}

// The processor an AMDGPU ELF is for (e_flags & 0xff), "" when it is not one.
std::string elfProcessor(const unsigned char *image, size_t &size) {
  if (std::memcmp(image, "\x7f" "ELF", 4) != 0 || image[4] != 2)
    return "";
  uint16_t machine;
  uint32_t flags;
  uint64_t sectionOffset;
  uint16_t sectionSize, sectionCount;
  std::memcpy(&machine, image + 18, 2);
  std::memcpy(&sectionOffset, image + 40, 8);
  std::memcpy(&flags, image + 48, 4);
  std::memcpy(&sectionSize, image + 58, 2);
  std::memcpy(&sectionCount, image + 60, 2);
  size = sectionOffset + uint64_t(sectionSize) * sectionCount;
  if (machine != 224)  // EM_AMDGPU
    return "";
  switch (flags & 0xff) {
  case 0x4c: return "gfx942";
  case 0x3f: return "gfx90a";
  default: return "gfx-other";
  }
}

bool imageHasSymbol(const Module &m, const std::string &symbol) {
  const std::string needle = symbol + '\0';
  const char *begin = reinterpret_cast<const char *>(m.image), *end = begin + m.size;
  for (const char *p = begin; p + needle.size() <= end; ++p)
    if (std::memcmp(p, needle.data(), needle.size()) == 0 && (p == begin || p[-1] == '\0'))
      return true;
  return false;
}

int launches = 0;
void *lastStream = nullptr;
std::string lastKernel;

} // namespace

extern "C" {

int hipGetDeviceCount(int *count) {
  *count = devices();
  return devices() > 0 ? hipSuccess : hipErrorNoDevice;
}

int hipGetDevice(int *device) {
  *device = 0;
  return devices() > 0 ? hipSuccess : hipErrorNoDevice;
}

int hipModuleLoadData(void **module, const void *image) {
  size_t size = 0;
  const std::string processor = elfProcessor(static_cast<const unsigned char *>(image), size);
  if (processor.empty())
    return hipErrorInvalidImage;
  if (processor != arch())
    return hipErrorNoBinaryForGpu;
  *module = new Module{static_cast<const unsigned char *>(image), size};
  return hipSuccess;
}

int hipModuleGetFunction(void **function, void *module, const char *name) {
  if (!imageHasSymbol(*static_cast<Module *>(module), std::string(name) + ".kd") ||
      !argus::hip::test::isEmulatedKernel(name))
    return hipErrorNotFound;
  *function = new Function{name};
  return hipSuccess;
}

int hipModuleLaunchKernel(void *function, unsigned gridX, unsigned gridY, unsigned gridZ, unsigned blockX,
                          unsigned blockY, unsigned blockZ, unsigned sharedBytes, void *stream, void **arguments,
                          void **extra) {
  const std::string &name = static_cast<Function *>(function)->name;
  if (gridX == 0 || gridY == 0 || gridZ == 0 || blockY != 1 || blockZ != 1 || sharedBytes != 0 || extra ||
      !arguments || int(blockX) != argus::hip::test::kernelThreads(name.c_str(), arguments))
    return hipErrorInvalidValue;
  ++launches;
  lastStream = stream;
  lastKernel = name;
  argus::hip::test::emulateKernel(name.c_str(), int(gridX), int(gridY), int(gridZ), arguments);
  return hipSuccess;
}

const char *hipGetErrorName(int error) {
  switch (error) {
  case hipSuccess: return "hipSuccess";
  case hipErrorInvalidValue: return "hipErrorInvalidValue";
  case hipErrorNoDevice: return "hipErrorNoDevice";
  case hipErrorInvalidImage: return "hipErrorInvalidImage";
  case hipErrorNoBinaryForGpu: return "hipErrorNoBinaryForGpu";
  case hipErrorNotFound: return "hipErrorNotFound";
  default: return "hipErrorUnknown";
  }
}

const char *hipGetErrorString(int error) {
  switch (error) {
  case hipErrorNoBinaryForGpu: return "no kernel image is available for execution on the device";
  case hipErrorNoDevice: return "no ROCm-capable device is detected";
  default: return "fake HIP runtime error";
  }
}

// For the tests: launches so far, and the stream and kernel of the last one.
int fake_hip_launches() { return launches; }
void *fake_hip_last_stream() { return lastStream; }
const char *fake_hip_last_kernel() { return lastKernel.c_str(); }

} // extern "C"
