//===- CppKernelEmitter.cpp - output, names and errors of a C++ backend ---===//
#include "CppKernelEmitter.h"

#include "argus/Dialect/Argus.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace argus::codegen {

//===----------------------------------------------------------------------===//
// Small services
//===----------------------------------------------------------------------===//

LogicalResult CppKernelEmitter::fail(Location loc, const Twine &message) {
  if (!error) {
    std::string where = locString(loc);
    error = where.empty() ? message.str() : where + ": " + message.str();
  }
  return failure();
}

LogicalResult CppKernelEmitter::fail(Operation *op, const Twine &message) {
  return fail(op->getLoc(), message);
}

void CppKernelEmitter::line(const Twine &text, Operation *op, StringRef note) {
  os.indent(2 * depth) << text;
  std::string where = op ? locComment(op->getLoc()) : "";
  if (!where.empty() && !note.empty())
    os << "  // " << where << ": " << note;
  else if (!where.empty() || !note.empty())
    os << "  // " << where << note;
  os << "\n";
}

std::string CppKernelEmitter::scalar(Value v) {
  auto it = scalars.find(v);
  return it == scalars.end() ? std::string("/*unknown*/0") : it->second;
}

std::string CppKernelEmitter::nameFor(Value v, StringRef fallback) {
  std::string hint = locName(v.getLoc());
  return names.unique(hint.empty() ? fallback : StringRef(hint));
}

LogicalResult CppKernelEmitter::emitSegment(SegmentOp op, StringRef tensorType) {
  Type element = op.getTensor().getType().getElementType();
  std::optional<std::string> offset = scalarCType(op.getOffsets().getType().getElementType());
  if (!offset)
    return fail(op, llvm::Twine(backend) + " reads cumulative lengths of i32 or i64 only");
  std::string name = nameFor(op.getResult(), "segment");
  line("const " + tensorType.str() + " " + name + " = ak::segment<" +
           std::to_string((element.getIntOrFloatBitWidth() + 7) / 8) + ", " + *offset + ">(" +
           scalar(op.getTensor()) + ", " + scalar(op.getOffsets()) + ", " + scalar(op.getKey()) +
           (op.getLimit() ? ", " + scalar(op.getLimit()) : std::string()) + ");",
       op);
  scalars[op.getResult()] = name;
  return success();
}

LogicalResult CppKernelEmitter::defineScalar(Value v, const Twine &expr, Operation *op, StringRef hint) {
  std::optional<std::string> ctype = scalarCType(v.getType());
  if (!ctype) {
    std::string s;
    llvm::raw_string_ostream(s) << v.getType();
    return fail(op, llvm::Twine(backend) + " has no C++ type for scalars of type " + s);
  }
  std::string name = nameFor(v, hint);
  line("const " + *ctype + " " + name + " = " + expr + ";", op);
  scalars[v] = name;
  return success();
}

//===----------------------------------------------------------------------===//
// Op dispatch
//===----------------------------------------------------------------------===//

LogicalResult CppKernelEmitter::emitBlock(Block &block) {
  for (Operation &op : block)
    if (failed(emitOp(&op)))
      return failure();
  return success();
}

LogicalResult CppKernelEmitter::emitOp(Operation *op) {
  // Tags are compile-time annotations: no code, regions skipped.
  if (isa<TagOp, AssertTagOp, ResetTagsOp, TagGetOp, argus::YieldOp>(op))
    return success();
  Dialect *dialect = op->getDialect(); // null for unregistered ops
  if (dialect && isa<arith::ArithDialect>(dialect))
    return emitArith(op);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return emitFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return emitIf(ifOp);
  if (isa<scf::YieldOp>(op))
    return success(); // consumed by emitFor / emitIf
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    if (inGridFunction) {
      if (ret.getNumOperands() != 3)
        return fail(op, "expected the grid function to return 3 values, got " +
                            std::to_string(ret.getNumOperands()));
      for (unsigned i = 0; i < 3; ++i)
        line("const int64_t grid" + std::to_string(i) + " = " + scalar(ret.getOperand(i)) + ";", op);
      return success();
    }
    if (ret.getNumOperands() != 0)
      return fail(op, "expected the kernel to return no values, got " +
                          std::to_string(ret.getNumOperands()));
    return success();
  }
  if (dialect && isa<ArgusDialect>(dialect))
    return emitArgusOp(op);
  return fail(op, llvm::Twine(backend) + " cannot lower '" + op->getName().getStringRef() + "'");
}

//===----------------------------------------------------------------------===//
// The kernel and its grid function
//===----------------------------------------------------------------------===//

LogicalResult CppKernelEmitter::checkSymbol(Operation *kernel, StringRef symbol) {
  bool identifier = !symbol.empty() && (llvm::isAlpha(symbol[0]) || symbol[0] == '_') &&
                    llvm::all_of(symbol, [](char c) { return llvm::isAlnum(c) || c == '_'; });
  if (!identifier)
    return fail(kernel, "expected the kernel symbol to be a C identifier, got '" + symbol + "'");
  return success();
}

llvm::Error CppKernelEmitter::takeError() const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 error ? *error : backend + ": code generation failed");
}

LogicalResult CppKernelEmitter::findGridFunction(func::FuncOp kernel, func::FuncOp &grid) {
  StringRef name = kernel.getSymName();
  if (kernel.getNumResults() != 0)
    return fail(kernel, "expected kernel '" + name + "' to return nothing, got " +
                            std::to_string(kernel.getNumResults()) + " results");
  if (kernel.isExternal())
    return fail(kernel, "expected a body for kernel '" + name + "'");

  auto gridRef = kernel->getAttrOfType<FlatSymbolRefAttr>(kernel_attr::kGrid);
  if (!gridRef)
    return fail(kernel, "expected kernel '" + name + "' to name its grid function in argus.grid");
  grid = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(kernel, gridRef);
  if (!grid || grid.isExternal())
    return fail(kernel, "grid function @" + gridRef.getValue() + " of kernel '" + name +
                            "' not found in the module");
  if (grid.getArgumentTypes() != kernel.getArgumentTypes())
    return fail(grid, "expected grid function @" + grid.getSymName() +
                          " to take the same arguments as kernel '" + name + "'");
  if (grid.getNumResults() != 3 || !llvm::all_of(grid.getResultTypes(), [](Type t) { return t.isIndex(); }))
    return fail(grid, "expected grid function @" + grid.getSymName() + " to return 3 index values");

  return success();
}

std::vector<std::string> CppKernelEmitter::argumentNames(func::FuncOp kernel) {
  std::vector<std::string> argNames;
  auto namesAttr = kernel->getAttrOfType<ArrayAttr>(kernel_attr::kArgNames);
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
    std::string n;
    if (namesAttr && namesAttr.size() == kernel.getNumArguments())
      if (auto s = dyn_cast<StringAttr>(namesAttr[i]))
        n = s.getValue().str();
    argNames.push_back(n.empty() ? "arg" + std::to_string(i) : n);
  }
  return argNames;
}

func::FuncOp CppKernelEmitter::copyWithoutTags(func::FuncOp kernel) {
  func::FuncOp work = kernel.clone();
  SmallVector<Operation *> tagOps;
  work.walk([&](Operation *op) {
    if (isa<TagOp, AssertTagOp, ResetTagsOp>(op))
      tagOps.push_back(op);
  });
  for (Operation *op : tagOps)
    op->erase();
  return work;
}

} // namespace argus::codegen
