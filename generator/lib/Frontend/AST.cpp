//===- AST.cpp - operator spellings of the DSL syntax tree ----------------===//
//
// The tree is plain data; the only code it needs is the Python spelling of
// each operator, used in diagnostics of the parser and of the lowering.
//
//===----------------------------------------------------------------------===//
#include "argus/Frontend/AST.h"

namespace argus::dsl {

const char *spelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Pos: return "+";
  case UnaryOp::Not: return "not";
  case UnaryOp::Invert: return "~";
  }
  return "?";
}

const char *spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::FloorDiv: return "//";
  case BinaryOp::Mod: return "%";
  case BinaryOp::Pow: return "**";
  case BinaryOp::MatMul: return "@";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^";
  case BinaryOp::LShift: return "<<";
  case BinaryOp::RShift: return ">>";
  }
  return "?";
}

const char *spelling(CompareOp op) {
  switch (op) {
  case CompareOp::Lt: return "<";
  case CompareOp::Le: return "<=";
  case CompareOp::Gt: return ">";
  case CompareOp::Ge: return ">=";
  case CompareOp::Eq: return "==";
  case CompareOp::Ne: return "!=";
  }
  return "?";
}

const char *spelling(BoolOpKind op) {
  switch (op) {
  case BoolOpKind::And: return "and";
  case BoolOpKind::Or: return "or";
  }
  return "?";
}

} // namespace argus::dsl
