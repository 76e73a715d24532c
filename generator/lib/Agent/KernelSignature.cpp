//===- KernelSignature.cpp - may a kernel stand in for a template? --------===//
#include "KernelSignature.h"

#include "argus/Frontend/Lexer.h"
#include "argus/Frontend/Parser.h"

#include <algorithm>

namespace argus::agent::detail {

namespace {

using dsl::Token;
using dsl::TokenKind;

bool opens(const Token &t) { return t.is(TokenKind::LParen) || t.is(TokenKind::LBracket) || t.is(TokenKind::LBrace); }
bool closes(const Token &t) { return t.is(TokenKind::RParen) || t.is(TokenKind::RBracket) || t.is(TokenKind::RBrace); }

void appendSpelling(std::string &to, const Token &t) {
  if (!to.empty()) to += ' ';
  to += t.is(TokenKind::String) ? "\"" + t.text + "\"" : t.text;
}

/// One parameter from its tokens: `name [: annotation] [= default]`.
KernelParameter readParameter(const std::vector<Token> &tokens) {
  KernelParameter p;
  if (tokens.empty()) return p;
  p.name = tokens.front().text;
  std::string *into = nullptr;
  int depth = 0;
  for (size_t i = 1; i < tokens.size(); ++i) {
    const Token &t = tokens[i];
    if (depth == 0 && t.is(TokenKind::Colon) && !into) {
      into = &p.annotation;
      continue;
    }
    if (depth == 0 && t.is(TokenKind::Equal)) {
      into = &p.defaultValue;
      continue;
    }
    depth += opens(t) - closes(t);
    if (into) appendSpelling(*into, t);
  }
  return p;
}

} // namespace

std::variant<KernelSignature, std::string> readKernelSignature(std::string_view text) {
  dsl::ParseOutput parsed = dsl::parseModule(text, "kernel");
  if (!parsed.module) {
    const dsl::Diagnostic &d = parsed.errors.front();
    return "it does not parse: line " + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " +
           d.message;
  }
  std::optional<dsl::LexError> lexError;
  std::vector<Token> tokens = dsl::Lexer::tokenize(text, &lexError);
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (!tokens[i].is(TokenKind::At) || tokens[i + 1].text != "kernel") continue;
    KernelSignature sig;
    size_t j = i + 2;
    for (; j < tokens.size() && !tokens[j].is(TokenKind::Kw_def); ++j)
      if (tokens[j].text == "reference" && j + 2 < tokens.size() && tokens[j + 1].is(TokenKind::Equal) &&
          tokens[j + 2].is(TokenKind::String))
        sig.reference = tokens[j + 2].text;
    if (j + 2 >= tokens.size() || !tokens[j + 2].is(TokenKind::LParen)) break;
    sig.name = tokens[j + 1].text;
    std::vector<Token> current;
    int depth = 0;
    for (size_t k = j + 3; k < tokens.size(); ++k) {
      const Token &t = tokens[k];
      if (depth == 0 && (t.is(TokenKind::RParen) || t.is(TokenKind::Comma))) {
        if (!current.empty()) sig.parameters.push_back(readParameter(current));
        current.clear();
        if (t.is(TokenKind::RParen)) return sig;
        continue;
      }
      depth += opens(t) - closes(t);
      current.push_back(t);
    }
    break;
  }
  return std::string("it has no @kernel function");
}

std::string signatureMismatch(const KernelSignature &original, const KernelSignature &variant) {
  if (variant.name != original.name)
    return "the kernel is named '" + variant.name + "', the template's '" + original.name + "'";
  if (variant.reference != original.reference)
    return "its reference is '" + variant.reference + "', the template's '" + original.reference + "'";
  auto runtime = [](const KernelSignature &s) {
    std::vector<KernelParameter> out;
    std::copy_if(s.parameters.begin(), s.parameters.end(), std::back_inserter(out),
                 [](const KernelParameter &p) { return !p.isConst(); });
    return out;
  };
  const std::vector<KernelParameter> want = runtime(original), have = runtime(variant);
  auto named = [](const std::vector<KernelParameter> &ps, const std::string &name) {
    return std::any_of(ps.begin(), ps.end(), [&](const KernelParameter &p) { return p.name == name; });
  };
  for (const KernelParameter &p : want)
    if (!named(have, p.name)) return "it lacks the template's parameter '" + p.name + "'";
  for (const KernelParameter &p : have)
    if (!named(want, p.name)) return "it adds the parameter '" + p.name + "' (only const parameters may be added)";
  for (size_t i = 0; i < want.size(); ++i) {
    if (have[i].name != want[i].name)
      return "run-time parameter " + std::to_string(i + 1) + " is '" + have[i].name + "', the template's '" +
             want[i].name + "' (the order is the runtime's calling contract)";
    if (have[i].annotation != want[i].annotation)
      return "parameter '" + have[i].name + "' is annotated '" + have[i].annotation + "', the template's '" +
             want[i].annotation + "'";
  }
  for (const KernelParameter &p : original.parameters)
    if (p.isConst() && std::none_of(variant.parameters.begin(), variant.parameters.end(),
                                    [&](const KernelParameter &q) { return q.name == p.name && q.isConst(); }))
      return "it lacks the template's const parameter '" + p.name + "'";
  for (const KernelParameter &p : variant.parameters)
    if (p.isConst() && p.defaultValue.empty() &&
        std::none_of(original.parameters.begin(), original.parameters.end(),
                     [&](const KernelParameter &q) { return q.name == p.name; }))
      return "its added const parameter '" + p.name + "' has no default";
  return "";
}

} // namespace argus::agent::detail
