//===- Options.h - parsing of argus-gen's KEY=VALUE lists -------*- C++ -*-===//
#ifndef ARGUS_TOOLS_OPTIONS_H
#define ARGUS_TOOLS_OPTIONS_H

#include "argus/Lowering/LowerToArgus.h"

#include <map>
#include <string>

namespace argus::tools {

/// Parses "A=1,B=2" into integers; false with `error` set on bad input.
bool parseIntList(const std::string &text, const std::string &flag, std::map<std::string, int64_t> &out,
                  std::string &error);
bool parseFloatList(const std::string &text, const std::string &flag, std::map<std::string, double> &out,
                    std::string &error);
/// Parses "BM=64,TA=bf16,EPS=1e-5" into const/dtype values.
bool parseConstants(const std::string &text, lowering::Specialization &spec, std::string &error);

} // namespace argus::tools

#endif // ARGUS_TOOLS_OPTIONS_H
