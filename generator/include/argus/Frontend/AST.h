//===- AST.h - syntax tree of the Argus kernel DSL --------------*- C++ -*-===//
//
// The DSL is a subset of Python's grammar, so editors, formatters and language
// models handle it as Python. The parser builds this tree; the lowering
// (generator/lib/Lowering) gives it meaning. The tree itself knows nothing of
// kernels: `load`, `mma`, `Tensor[...]` are ordinary names and calls here.
//
//   @kernel(grid=(cdiv(M, BM), cdiv(N, BN)))
//   def gemm(A: Tensor[M, K, bf16], ..., BM: const = 64):
//       acc = zeros((BM, BN), f32)
//       for kt in range(cdiv(K, BK)):
//           acc = mma(load(A.tile((pid(0), kt), (BM, BK))), ..., acc)
//
// Nodes own their children (unique_ptr). Every node has the location of its
// first character; no node is ever null where the grammar requires one.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_FRONTEND_AST_H
#define ARGUS_FRONTEND_AST_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace argus::dsl {

/// 1-based line and column of a character in a source file.
struct SourceLoc {
  unsigned line = 0;
  unsigned col = 0;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind {
  Name,      // x
  Int,       // 42, 0x2A, 1_000
  Float,     // 1.5, 1e-3, .5
  Bool,      // True / False
  None,      // None
  String,    // "text" or 'text'
  Tuple,     // (a, b) or a, b (in assignments and returns)
  List,      // [a, b]
  Call,      // f(a, b, k=v)
  Attribute, // a.name
  Subscript, // a[i] or a[i, j] (index is then a Tuple)
  Unary,     // -a, +a, not a, ~a
  Binary,    // a + b, ...
  Compare,   // a < b <= c (chained)
  BoolOp,    // a and b and c / a or b
  IfElse,    // a if c else b
  Lambda,    // lambda m, k: (m, k)
};

enum class UnaryOp { Neg, Pos, Not, Invert };
enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, BitAnd, BitOr, BitXor, LShift, RShift };
enum class CompareOp { Lt, Le, Gt, Ge, Eq, Ne };
enum class BoolOpKind { And, Or };

/// Python spelling of an operator ("+", "//", "<=", "and", ...), for messages.
const char *spelling(UnaryOp op);
const char *spelling(BinaryOp op);
const char *spelling(CompareOp op);
const char *spelling(BoolOpKind op);

struct Expr {
  explicit Expr(ExprKind kind, SourceLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;
  const ExprKind kind;
  SourceLoc loc;

  /// Checked downcast: `e->as<CallExpr>()` is null when e is another kind.
  template <typename T> T *as() { return kind == T::Kind ? static_cast<T *>(this) : nullptr; }
  template <typename T> const T *as() const {
    return kind == T::Kind ? static_cast<const T *>(this) : nullptr;
  }
};
using ExprPtr = std::unique_ptr<Expr>;

template <ExprKind K> struct ExprBase : Expr {
  static constexpr ExprKind Kind = K;
  explicit ExprBase(SourceLoc loc) : Expr(K, loc) {}
};

struct NameExpr : ExprBase<ExprKind::Name> {
  using ExprBase::ExprBase;
  std::string name;
};
struct IntExpr : ExprBase<ExprKind::Int> {
  using ExprBase::ExprBase;
  int64_t value = 0;
};
struct FloatExpr : ExprBase<ExprKind::Float> {
  using ExprBase::ExprBase;
  double value = 0;
};
struct BoolExpr : ExprBase<ExprKind::Bool> {
  using ExprBase::ExprBase;
  bool value = false;
};
struct NoneExpr : ExprBase<ExprKind::None> {
  using ExprBase::ExprBase;
};
struct StringExpr : ExprBase<ExprKind::String> {
  using ExprBase::ExprBase;
  std::string value; // escapes already decoded
};
struct TupleExpr : ExprBase<ExprKind::Tuple> {
  using ExprBase::ExprBase;
  std::vector<ExprPtr> elements;
};
struct ListExpr : ExprBase<ExprKind::List> {
  using ExprBase::ExprBase;
  std::vector<ExprPtr> elements;
};

struct Keyword {
  std::string name;
  SourceLoc loc;
  ExprPtr value;
};
struct CallExpr : ExprBase<ExprKind::Call> {
  using ExprBase::ExprBase;
  ExprPtr callee;
  std::vector<ExprPtr> args;      // positional arguments, in order
  std::vector<Keyword> keywords;  // name=value arguments, in order (after positionals)
};
struct AttributeExpr : ExprBase<ExprKind::Attribute> {
  using ExprBase::ExprBase;
  ExprPtr value;
  std::string attr;
  SourceLoc attrLoc;
};
struct SubscriptExpr : ExprBase<ExprKind::Subscript> {
  using ExprBase::ExprBase;
  ExprPtr value;
  ExprPtr index; // a[i, j] gives a TupleExpr index
};
struct UnaryExpr : ExprBase<ExprKind::Unary> {
  using ExprBase::ExprBase;
  UnaryOp op = UnaryOp::Neg;
  ExprPtr operand;
};
struct BinaryExpr : ExprBase<ExprKind::Binary> {
  using ExprBase::ExprBase;
  BinaryOp op = BinaryOp::Add;
  ExprPtr lhs, rhs;
};
struct CompareExpr : ExprBase<ExprKind::Compare> {
  using ExprBase::ExprBase;
  ExprPtr first;
  std::vector<CompareOp> ops;        // a < b <= c: ops {Lt, Le}
  std::vector<ExprPtr> comparators;  //              comparators {b, c}
};
struct BoolOpExpr : ExprBase<ExprKind::BoolOp> {
  using ExprBase::ExprBase;
  BoolOpKind op = BoolOpKind::And;
  std::vector<ExprPtr> values; // at least two
};
struct IfElseExpr : ExprBase<ExprKind::IfElse> {
  using ExprBase::ExprBase;
  ExprPtr condition, thenValue, elseValue;
};
struct LambdaExpr : ExprBase<ExprKind::Lambda> {
  using ExprBase::ExprBase;
  std::vector<std::string> params;
  std::vector<SourceLoc> paramLocs;
  ExprPtr body;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind { Expr, Assign, AugAssign, For, If, Pass, Return, Assert, FunctionDef, Import };

struct Stmt {
  explicit Stmt(StmtKind kind, SourceLoc loc) : kind(kind), loc(loc) {}
  virtual ~Stmt() = default;
  const StmtKind kind;
  SourceLoc loc;

  template <typename T> T *as() { return kind == T::Kind ? static_cast<T *>(this) : nullptr; }
  template <typename T> const T *as() const {
    return kind == T::Kind ? static_cast<const T *>(this) : nullptr;
  }
};
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>; // an indented suite; never empty after parsing

template <StmtKind K> struct StmtBase : Stmt {
  static constexpr StmtKind Kind = K;
  explicit StmtBase(SourceLoc loc) : Stmt(K, loc) {}
};

struct ExprStmt : StmtBase<StmtKind::Expr> {
  using StmtBase::StmtBase;
  ExprPtr value;
};
/// `target = value`; target is a Name, a Tuple of Names, a Subscript or an
/// Attribute (the parser accepts these; meaning is checked by the lowering).
struct AssignStmt : StmtBase<StmtKind::Assign> {
  using StmtBase::StmtBase;
  ExprPtr target;
  ExprPtr value;
};
/// `target op= value`, e.g. `acc += x`.
struct AugAssignStmt : StmtBase<StmtKind::AugAssign> {
  using StmtBase::StmtBase;
  ExprPtr target;
  BinaryOp op = BinaryOp::Add;
  ExprPtr value;
};
struct ForStmt : StmtBase<StmtKind::For> {
  using StmtBase::StmtBase;
  ExprPtr target; // a Name or a Tuple of Names
  ExprPtr iter;   // e.g. range(n), pipeline(n, stages=3)
  Block body;
};
/// `if c: ... elif d: ... else: ...`; an elif is an IfStmt alone in orElse.
struct IfStmt : StmtBase<StmtKind::If> {
  using StmtBase::StmtBase;
  ExprPtr condition;
  Block body;
  Block orElse; // empty when there is no else / elif
};
struct PassStmt : StmtBase<StmtKind::Pass> {
  using StmtBase::StmtBase;
};
struct ReturnStmt : StmtBase<StmtKind::Return> {
  using StmtBase::StmtBase;
  ExprPtr value; // may be null
};
/// `assert cond, "message"`: a compile-time check on constants.
struct AssertStmt : StmtBase<StmtKind::Assert> {
  using StmtBase::StmtBase;
  ExprPtr condition;
  ExprPtr message; // may be null
};

struct Param {
  std::string name;
  SourceLoc loc;
  ExprPtr annotation; // may be null: `def f(x)`
  ExprPtr defaultValue; // may be null
};
struct FunctionDef : StmtBase<StmtKind::FunctionDef> {
  using StmtBase::StmtBase;
  std::string name;
  SourceLoc nameLoc;
  std::vector<ExprPtr> decorators; // `@kernel(...)` is a Call, `@kernel` a Name
  std::vector<Param> params;
  Block body;
};
/// `import x`, `import x as y`, `from x import *`, `from x import a, b`:
/// accepted so files stay valid Python; the lowering ignores them.
struct ImportStmt : StmtBase<StmtKind::Import> {
  using StmtBase::StmtBase;
  std::string module;
};

/// A parsed file: top-level statements (function definitions, imports and
/// module-level constant assignments).
struct Module {
  std::string path;
  Block body;
};

} // namespace argus::dsl

#endif // ARGUS_FRONTEND_AST_H
