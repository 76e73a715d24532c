//===- Token.cpp - how tokens are named in diagnostics --------------------===//
//
// Diagnostics end in "found <token>"; this file decides how each token is
// named there, so that every message of the parser reads the same way.
//
//===----------------------------------------------------------------------===//
#include "argus/Frontend/Token.h"

namespace argus::dsl {

const char *spelling(TokenKind kind) {
  switch (kind) {
  case TokenKind::EndOfFile: return "end of file";
  case TokenKind::Newline: return "newline";
  case TokenKind::Indent: return "indent";
  case TokenKind::Dedent: return "end of the indented block";
  case TokenKind::Error: return "invalid token";
  case TokenKind::Name: return "name";
  case TokenKind::Int: return "integer literal";
  case TokenKind::Float: return "float literal";
  case TokenKind::String: return "string literal";
  case TokenKind::Kw_and: return "'and'";
  case TokenKind::Kw_as: return "'as'";
  case TokenKind::Kw_assert: return "'assert'";
  case TokenKind::Kw_def: return "'def'";
  case TokenKind::Kw_elif: return "'elif'";
  case TokenKind::Kw_else: return "'else'";
  case TokenKind::Kw_False: return "'False'";
  case TokenKind::Kw_for: return "'for'";
  case TokenKind::Kw_from: return "'from'";
  case TokenKind::Kw_if: return "'if'";
  case TokenKind::Kw_import: return "'import'";
  case TokenKind::Kw_in: return "'in'";
  case TokenKind::Kw_is: return "'is'";
  case TokenKind::Kw_lambda: return "'lambda'";
  case TokenKind::Kw_None: return "'None'";
  case TokenKind::Kw_not: return "'not'";
  case TokenKind::Kw_or: return "'or'";
  case TokenKind::Kw_pass: return "'pass'";
  case TokenKind::Kw_return: return "'return'";
  case TokenKind::Kw_True: return "'True'";
  case TokenKind::ReservedKeyword: return "keyword";
  case TokenKind::LParen: return "'('";
  case TokenKind::RParen: return "')'";
  case TokenKind::LBracket: return "'['";
  case TokenKind::RBracket: return "']'";
  case TokenKind::LBrace: return "'{'";
  case TokenKind::RBrace: return "'}'";
  case TokenKind::Comma: return "','";
  case TokenKind::Colon: return "':'";
  case TokenKind::Semicolon: return "';'";
  case TokenKind::Dot: return "'.'";
  case TokenKind::At: return "'@'";
  case TokenKind::Equal: return "'='";
  case TokenKind::Arrow: return "'->'";
  case TokenKind::ColonEqual: return "':='";
  case TokenKind::Plus: return "'+'";
  case TokenKind::Minus: return "'-'";
  case TokenKind::Star: return "'*'";
  case TokenKind::Slash: return "'/'";
  case TokenKind::DoubleSlash: return "'//'";
  case TokenKind::Percent: return "'%'";
  case TokenKind::DoubleStar: return "'**'";
  case TokenKind::Amp: return "'&'";
  case TokenKind::Pipe: return "'|'";
  case TokenKind::Caret: return "'^'";
  case TokenKind::Tilde: return "'~'";
  case TokenKind::LShift: return "'<<'";
  case TokenKind::RShift: return "'>>'";
  case TokenKind::Less: return "'<'";
  case TokenKind::LessEqual: return "'<='";
  case TokenKind::Greater: return "'>'";
  case TokenKind::GreaterEqual: return "'>='";
  case TokenKind::EqualEqual: return "'=='";
  case TokenKind::NotEqual: return "'!='";
  case TokenKind::PlusEqual: return "'+='";
  case TokenKind::MinusEqual: return "'-='";
  case TokenKind::StarEqual: return "'*='";
  case TokenKind::SlashEqual: return "'/='";
  case TokenKind::DoubleSlashEqual: return "'//='";
  case TokenKind::PercentEqual: return "'%='";
  case TokenKind::DoubleStarEqual: return "'**='";
  case TokenKind::AtEqual: return "'@='";
  case TokenKind::AmpEqual: return "'&='";
  case TokenKind::PipeEqual: return "'|='";
  case TokenKind::CaretEqual: return "'^='";
  case TokenKind::LShiftEqual: return "'<<='";
  case TokenKind::RShiftEqual: return "'>>='";
  }
  return "token";
}

std::string describe(const Token &token) {
  switch (token.kind) {
  case TokenKind::Name: return "name '" + token.text + "'";
  case TokenKind::Int: return "integer literal " + token.text;
  case TokenKind::Float: return "float literal " + token.text;
  case TokenKind::String: return "string literal";
  case TokenKind::ReservedKeyword: return "keyword '" + token.text + "'";
  default: break;
  }
  if (token.kind >= TokenKind::Kw_and && token.kind <= TokenKind::Kw_True)
    return std::string("keyword ") + spelling(token.kind);
  return spelling(token.kind);
}

bool startsExpression(TokenKind kind) {
  switch (kind) {
  case TokenKind::Name:
  case TokenKind::Int:
  case TokenKind::Float:
  case TokenKind::String:
  case TokenKind::Kw_True:
  case TokenKind::Kw_False:
  case TokenKind::Kw_None:
  case TokenKind::Kw_not:
  case TokenKind::Kw_lambda:
  case TokenKind::LParen:
  case TokenKind::LBracket:
  case TokenKind::LBrace:
  case TokenKind::Minus:
  case TokenKind::Plus:
  case TokenKind::Tilde:
    return true;
  default:
    return false;
  }
}

} // namespace argus::dsl
