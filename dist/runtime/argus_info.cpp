//===- argus_info.cpp - what the library says about itself ----------------===//
//
// The ABI version is the runtime's (this header's ARGUS_ABI_VERSION); the
// library version and the manifest come from the generated tables, since
// they describe the generated kernels. None of these can fail, and none
// needs the ISA check: an engine must be able to ask an incompatible library
// what it is.
//
//===----------------------------------------------------------------------===//
#include "argus_kernels.h"
#include "argus_registry.h"

extern "C" {

ARGUS_API uint32_t argus_abi_version(void) { return ARGUS_ABI_VERSION; }

ARGUS_API const char *argus_version(void) { return argus_generated_version; }

ARGUS_API const char *argus_manifest_json(void) { return argus_generated_manifest; }

} // extern "C"
