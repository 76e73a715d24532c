//===- Lowerer.h - state and value model of the DSL lowering ----*- C++ -*-===//
//
// Internal to the lowering. A DSL expression evaluates to a `Sem` value:
// either a compile-time constant (folded here, never emitted) or something
// that lives in the IR (a scalar, a tile, a tensor, a buffer) or a view
// that only exists in the DSL (a tensor tile, a buffer slot). Errors are
// thrown as `UserError` from the lowering's own frames only (never through
// MLIR callbacks) and caught at the API boundary.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_LOWERING_LOWERER_H
#define ARGUS_LIB_LOWERING_LOWERER_H

#include "argus/Dialect/Argus.h"
#include "argus/Frontend/AST.h"
#include "argus/Lowering/LowerToArgus.h"

#include "mlir/IR/Builders.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace argus::lowering {

/// A user-facing error at a DSL location.
struct UserError {
  dsl::SourceLoc loc;
  std::string message;
};

/// Tensors have at most this many dimensions (the CPU ABI carries 4).
constexpr size_t kMaxTensorRank = 4;

[[noreturn]] void fail(dsl::SourceLoc loc, const std::string &message);

struct Sem {
  enum Kind {
    None,       // None
    Int,        // compile-time integer (also True/False as 1/0 when mixed)
    Float,      // compile-time float
    Bool,       // compile-time bool
    String,     // compile-time string
    Dtype,      // element type (f32, bf16, ...)
    Tuple,      // compile-time tuple of values
    Scalar,     // run-time scalar (index, f32, i32, i1, ...)
    Tile,       // run-time tile
    Tensor,     // global tensor parameter
    TensorTile, // a tile-shaped window of a tensor: offsets + shape
    Buffer,     // shared/local buffer
    BufferSlot, // a buffer with leading indices applied
    Layout,     // #argus.layout / #argus.swizzle
    Lambda,     // a lambda, expanded where it is used
    Builtin,    // a builtin function or method, by name
  };
  Kind kind = None;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;             // String / Builtin name / Tensor name
  mlir::Type dtype;          // Dtype
  std::vector<Sem> elems;    // Tuple
  mlir::Value value;         // Scalar, Tile, Tensor, Buffer; TensorTile/BufferSlot: the base
  std::vector<mlir::Value> indices; // TensorTile: element offsets; BufferSlot: leading indices
  std::vector<int64_t> shape;       // TensorTile shape
  mlir::Attribute attr;      // Layout
  const dsl::LambdaExpr *lambda = nullptr;
  std::vector<Sem> boundArgs; // Builtin methods: the receiver

  bool isConst() const { return kind == Int || kind == Float || kind == Bool; }
  static Sem ofInt(int64_t v) { Sem s; s.kind = Int; s.i = v; return s; }
  static Sem ofFloat(double v) { Sem s; s.kind = Float; s.f = v; return s; }
  static Sem ofBool(bool v) { Sem s; s.kind = Bool; s.b = v; return s; }
  static Sem ofValue(Kind k, mlir::Value v) { Sem s; s.kind = k; s.value = v; return s; }
  static Sem builtin(const std::string &name) { Sem s; s.kind = Builtin; s.s = name; return s; }
};

/// Readable name of a value's kind, for messages ("a tile", "a constant").
std::string describe(const Sem &v);

using Env = std::map<std::string, Sem>;

/// Call arguments after evaluation.
struct CallArgs {
  std::vector<Sem> positional;
  std::vector<dsl::SourceLoc> positionalLocs;
  std::map<std::string, Sem> keywords;
  std::map<std::string, dsl::SourceLoc> keywordLocs;     // of the values
  std::map<std::string, dsl::SourceLoc> keywordNameLocs; // of the names
  dsl::SourceLoc loc;
};

/// Lowers one kernel. Statement lowering lives in LowerStatements.cpp,
/// expressions and operators in LowerExpressions.cpp, builtin calls in
/// LowerBuiltins.cpp, the kernel signature in LowerKernel.cpp.
class Lowerer {
public:
  Lowerer(mlir::MLIRContext &context, const std::string &path, const Specialization &spec)
      : ctx(context), builder(&context), path(path), spec(spec) {}

  mlir::OwningOpRef<mlir::ModuleOp> lowerKernel(const dsl::Module &module, const dsl::FunctionDef &fn);

  // --- statements
  void lowerBlock(const dsl::Block &block);
  void lowerStmt(const dsl::Stmt &stmt);
  void lowerFor(const dsl::ForStmt &stmt);
  void lowerIf(const dsl::IfStmt &stmt);
  void assign(const dsl::Expr &target, Sem value);

  // --- expressions
  Sem eval(const dsl::Expr &expr);
  Sem evalBinary(dsl::BinaryOp op, Sem lhs, Sem rhs, dsl::SourceLoc loc);
  Sem evalCompare(dsl::CompareOp op, Sem lhs, Sem rhs, dsl::SourceLoc loc);
  Sem evalUnary(dsl::UnaryOp op, Sem operand, dsl::SourceLoc loc);
  Sem evalAttribute(const dsl::AttributeExpr &expr);
  Sem evalSubscript(const dsl::SubscriptExpr &expr);
  Sem evalCall(const dsl::CallExpr &expr);
  Sem callBuiltin(const std::string &name, CallArgs &args);
  Sem lookup(const std::string &name, dsl::SourceLoc loc);

  // --- conversions (LowerExpressions.cpp)
  mlir::Value toIndex(const Sem &v, dsl::SourceLoc loc);
  mlir::Value toScalarOf(const Sem &v, mlir::Type type, dsl::SourceLoc loc);
  mlir::Value toI1(const Sem &v, dsl::SourceLoc loc);
  int64_t toConstInt(const Sem &v, dsl::SourceLoc loc, const std::string &what);
  double toConstFloat(const Sem &v, dsl::SourceLoc loc, const std::string &what);
  std::vector<int64_t> toShape(const Sem &v, dsl::SourceLoc loc, const std::string &what);
  std::vector<mlir::Value> toIndexList(const Sem &v, dsl::SourceLoc loc);
  mlir::Type toDtype(const Sem &v, dsl::SourceLoc loc);
  bool constTruth(const Sem &v, dsl::SourceLoc loc);

  /// Operands of an elementwise tile op: tiles must share one element type
  /// (that of the first tile), constants and scalars convert to it, and the
  /// shapes broadcast. `element` may be preset for all-scalar operand lists.
  struct Elementwise {
    mlir::Type element;
    llvm::SmallVector<mlir::Value> values;
    llvm::SmallVector<int64_t> shape;
  };
  Elementwise elementwiseOperands(llvm::ArrayRef<Sem> operands, dsl::SourceLoc loc, mlir::Type element = {});

  // --- tags (LowerTags.cpp)
  void lowerTag(CallArgs &args);
  void lowerAssertTag(CallArgs &args);
  mlir::Value evalTagExpr(const dsl::Expr &expr, std::map<std::string, mlir::Value> &params,
                          std::map<std::string, mlir::Value> &tagParams, bool runtimeScalars);

  // --- helpers
  mlir::Location loc(dsl::SourceLoc l) {
    return mlir::FileLineColLoc::get(&ctx, path, l.line, l.col);
  }
  mlir::Value indexConst(int64_t v, dsl::SourceLoc l);
  mlir::Value floatConst(double v, mlir::Type type, dsl::SourceLoc l);
  mlir::Value intConst(int64_t v, mlir::Type type, dsl::SourceLoc l);

  mlir::MLIRContext &ctx;
  mlir::OpBuilder builder;
  std::string path;
  const Specialization &spec;
  const dsl::Module *module = nullptr;
  Env env;
  int64_t threads = 1;
  bool inGridExpression = false; // evaluating @kernel(grid=...): no per-instance values
};

/// Most elements one tile or buffer may hold (16 Mi): beyond that no target
/// has the registers or on-chip memory, and sizes stay far from overflow.
constexpr int64_t kMaxTileElements = int64_t(1) << 24;

/// Element type for a dtype name, or null.
mlir::Type dtypeFromName(mlir::MLIRContext &ctx, const std::string &name);

/// Names assigned anywhere inside a block (targets of =, op=, for).
void collectAssigned(const dsl::Block &block, std::vector<std::string> &names);

} // namespace argus::lowering

#endif // ARGUS_LIB_LOWERING_LOWERER_H
