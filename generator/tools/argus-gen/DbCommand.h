//===- DbCommand.h - argus-gen db: read a tuning database -------*- C++ -*-===//
#ifndef ARGUS_TOOLS_DBCOMMAND_H
#define ARGUS_TOOLS_DBCOMMAND_H

#include <ostream>
#include <string>

namespace argus::tools {

/// `argus-gen db list DB`: the identity, then per op configuration the
/// candidates tried, how many were proved and correct, and the best.
/// `argus-gen db export DB`: everything as JSON. Returns "" or the error.
std::string dbCommand(const std::string &action, const std::string &path, std::ostream &out);

} // namespace argus::tools

#endif // ARGUS_TOOLS_DBCOMMAND_H
