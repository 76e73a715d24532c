//===- argus_env.h - the library's environment switches, parsed once ------===//
//
// Shared by the runtimes of every target, so that ARGUS_STRICT=yes means the
// same thing to a CPU library and a CUDA one.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_ENV_H
#define ARGUS_RUNTIME_ENV_H

#include <string>

namespace argus_rt {

/// Reads the boolean environment variable `name`: unset, "", 0, false, no
/// or off (any case) is false; 1, true, yes or on is true. Anything else
/// leaves *value alone and returns what is wrong, e.g. "environment variable
/// ARGUS_STRICT must be 1 or 0 (or true/false), got 'maybe'"; else "".
std::string readSwitch(const char *name, bool *value);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_ENV_H
