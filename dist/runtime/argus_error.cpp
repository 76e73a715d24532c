//===- argus_error.cpp - thread-local last error and status names --------===//
//
// The message buffer is a fixed thread_local char array: formatting a
// message never allocates (so reporting std::bad_alloc cannot itself fail),
// and the buffer has no destructor to run when a thread exits or the library
// is dlclose'd.
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace argus_rt {
namespace {
thread_local char lastErrorBuffer[kMaxErrorLength] = {0};
} // namespace

argus_status fail(argus_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int written = std::vsnprintf(lastErrorBuffer, sizeof lastErrorBuffer, format, args);
  va_end(args);
  if (written < 0) {
    std::snprintf(lastErrorBuffer, sizeof lastErrorBuffer, "%s",
                  "argus: failed to format an error message");
  } else if (written >= kMaxErrorLength) {
    std::memcpy(lastErrorBuffer + kMaxErrorLength - 4, "...", 4);
  }
  return status;
}

const char *lastError() { return lastErrorBuffer; }

} // namespace argus_rt

extern "C" {

ARGUS_API const char *argus_last_error(void) { return argus_rt::lastError(); }

ARGUS_API const char *argus_status_string(argus_status s) {
  switch (s) {
  case ARGUS_OK:
    return "ARGUS_OK";
  case ARGUS_ERROR_INVALID_ARGUMENT:
    return "ARGUS_ERROR_INVALID_ARGUMENT";
  case ARGUS_ERROR_UNSUPPORTED:
    return "ARGUS_ERROR_UNSUPPORTED";
  case ARGUS_ERROR_DEVICE:
    return "ARGUS_ERROR_DEVICE";
  case ARGUS_ERROR_INTERNAL:
    return "ARGUS_ERROR_INTERNAL";
  }
  return "ARGUS_UNKNOWN_STATUS";
}

} // extern "C"
