//===- Counterexample.h - Z3 models as readable findings --------*- C++ -*-===//
//
// Reads the concrete values of a Z3 model back into the terms of a Finding:
// which program instance and thread, which loop iterations, which slot and
// element, which sizes, which tags.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_VERIFY_COUNTEREXAMPLE_H
#define ARGUS_LIB_VERIFY_COUNTEREXAMPLE_H

#include "Checks.h"

namespace argus::verify::detail {

/// The signed value of an integer term (a Bool reads 0 / 1).
int64_t valueOf(const z3::model &model, const z3::expr &e);

/// One side of a counterexample; `second` renames the event's terms.
Access accessOf(Executor &ex, const z3::model &model, const EventContext &at,
                const Renaming *second, std::string target, const std::vector<z3::expr> &slot,
                const std::vector<z3::expr> &element, bool write, bool async);

/// Symbolic sizes and integer scalar arguments.
std::vector<std::pair<std::string, int64_t>> sizesOf(SymContext &ctx, const z3::model &model);

TagValue tagOf(Executor &ex, const z3::model &model, const TagExpr &tag);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_COUNTEREXAMPLE_H
