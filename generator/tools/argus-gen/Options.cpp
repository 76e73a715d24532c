//===- Options.cpp - parsing of argus-gen's KEY=VALUE lists ---------------===//
#include "Options.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace argus::tools {

namespace {

bool splitPairs(const std::string &text, const std::string &flag,
                std::vector<std::pair<std::string, std::string>> &pairs, std::string &error) {
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      error = flag + ": expected NAME=VALUE, got '" + item + "'";
      return false;
    }
    pairs.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return true;
}

bool toInt(const std::string &s, int64_t &v) {
  errno = 0;
  char *end = nullptr;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end || end == s.c_str()) return false;
  v = x;
  return true;
}

bool toDouble(const std::string &s, double &v) {
  errno = 0;
  char *end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !errno && !*end && end != s.c_str();
}

} // namespace

namespace {

/// Parses NAME=VALUE pairs whose values `convert` accepts.
template <typename T>
bool parseList(const std::string &text, const std::string &flag, std::map<std::string, T> &out, std::string &error,
               bool (*convert)(const std::string &, T &), const char *what) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (!splitPairs(text, flag, pairs, error)) return false;
  for (auto &[k, v] : pairs) {
    T x;
    if (!convert(v, x)) {
      error = flag + ": '" + v + "' given for " + k + " is not " + what;
      return false;
    }
    out[k] = x;
  }
  return true;
}

} // namespace

bool parseIntList(const std::string &text, const std::string &flag, std::map<std::string, int64_t> &out,
                  std::string &error) {
  return parseList<int64_t>(text, flag, out, error, toInt, "an integer");
}

bool parseFloatList(const std::string &text, const std::string &flag, std::map<std::string, double> &out,
                    std::string &error) {
  return parseList<double>(text, flag, out, error, toDouble, "a number");
}

bool parseConstants(const std::string &text, lowering::Specialization &spec, std::string &error) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (!splitPairs(text, "--set", pairs, error)) return false;
  for (auto &[k, v] : pairs) {
    int64_t i;
    double d;
    if (toInt(v, i)) spec.constants[k] = i;
    else if (toDouble(v, d)) spec.constants[k] = d;
    else spec.constants[k] = v; // a dtype name; the lowering checks it
  }
  return true;
}

} // namespace argus::tools
