//===- KernelSignature.h - may a kernel stand in for a template? -*- C++ -*-===//
//
// A kernel the LLM proposes is run by the template's harness, measured
// against the template's reference and called through the runtime's fixed
// argument order, so it must keep the template's signature: the same kernel
// name and reference, the same run-time and dtype parameters in the same
// order with the same annotations, and every tunable `const` parameter. It
// may add `const` parameters of its own (they keep their defaults) and
// change the launch grid and the body.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_AGENT_KERNELSIGNATURE_H
#define ARGUS_AGENT_KERNELSIGNATURE_H

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace argus::agent::detail {

struct KernelParameter {
  std::string name;
  std::string annotation;   // its tokens' spelling, space-separated: "Tensor [ M , K , TA ]"
  std::string defaultValue; // likewise; "" when none
  bool isConst() const { return annotation == "const"; }
};

struct KernelSignature {
  std::string name, reference;
  std::vector<KernelParameter> parameters;
};

/// The signature of the `@kernel` function of `text`, or why there is none
/// (a parse error with its line and column, no `@kernel`).
std::variant<KernelSignature, std::string> readKernelSignature(std::string_view text);

/// "" when `variant` may stand in for `original`, else the first difference.
std::string signatureMismatch(const KernelSignature &original, const KernelSignature &variant);

} // namespace argus::agent::detail

#endif // ARGUS_AGENT_KERNELSIGNATURE_H
