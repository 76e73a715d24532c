//===- argus_env.cpp - the library's environment switches ----------------===//
#include "argus_env.h"

#include <cstdlib>
#include <initializer_list>
#include <strings.h>

namespace argus_rt {
namespace {

bool oneOf(const std::string &value, std::initializer_list<const char *> names) {
  for (const char *n : names)
    if (strcasecmp(value.c_str(), n) == 0) return true;
  return false;
}

} // namespace

std::string readSwitch(const char *name, bool *value) {
  const char *raw = std::getenv(name);
  std::string text = raw ? raw : "";
  if (oneOf(text, {"", "0", "false", "no", "off"}))
    *value = false;
  else if (oneOf(text, {"1", "true", "yes", "on"}))
    *value = true;
  else
    return std::string("environment variable ") + name + " must be 1 or 0 (or true/false), got '" + text + "'";
  return "";
}

} // namespace argus_rt
