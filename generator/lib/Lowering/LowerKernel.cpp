//===- LowerKernel.cpp - kernel signature, grid function, entry points ----===//
//
// Reads a `@kernel` definition's decorator and parameters: tensors with
// symbolic dimensions become `!argus.tensor` arguments, scalars become
// scalar arguments, `const`/`dtype` parameters are folded with their default
// or specialised value. Emits the kernel and its grid function, then cleans
// the IR (canonicalize + CSE) and runs the MLIR verifier, whose messages
// carry DSL locations.
//
//===----------------------------------------------------------------------===//
#include "Lowerer.h"

#include "argus/Frontend/Diagnostics.h"
#include "argus/Frontend/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace argus::lowering {

void fail(dsl::SourceLoc loc, const std::string &message) { throw UserError{loc, message}; }

mlir::Type dtypeFromName(MLIRContext &ctx, const std::string &name) {
  Builder b(&ctx);
  if (name == "f32") return b.getF32Type();
  if (name == "f16") return b.getF16Type();
  if (name == "bf16") return b.getBF16Type();
  if (name == "f64") return b.getF64Type();
  if (name == "i32") return b.getI32Type();
  if (name == "i64") return b.getI64Type();
  if (name == "i8") return b.getI8Type();
  if (name == "i1" || name == "bool") return b.getI1Type();
  if (name == "fp8" || name == "f8e4m3") return b.getType<Float8E4M3FNType>();
  if (name == "fp8_fnuz" || name == "f8e4m3fnuz") return b.getType<Float8E4M3FNUZType>(); // gfx942's fp8
  if (name == "index") return b.getIndexType();
  return {};
}

namespace {

/// The DSL's name of an element type dtypeFromName gives.
std::string dtypeSpelling(mlir::Type t) {
  if (isa<Float8E4M3FNType>(t))
    return "fp8";
  if (isa<Float8E4M3FNUZType>(t))
    return "fp8_fnuz";
  std::string s;
  llvm::raw_string_ostream(s) << t; // f32, f16, bf16, f64, i32, i64, i8, i1, index
  return s;
}

const dsl::CallExpr *kernelDecorator(const dsl::FunctionDef &fn) {
  for (const dsl::ExprPtr &d : fn.decorators)
    if (auto *call = d->as<dsl::CallExpr>())
      if (auto *name = call->callee->as<dsl::NameExpr>(); name && name->name == "kernel")
        return call;
  return nullptr;
}

bool isKernel(const dsl::FunctionDef &fn) {
  for (const dsl::ExprPtr &d : fn.decorators) {
    if (auto *name = d->as<dsl::NameExpr>(); name && name->name == "kernel")
      return true;
  }
  return kernelDecorator(fn) != nullptr;
}

/// A DSL parameter after classification.
struct ParamInfo {
  enum Kind { TensorParam, ScalarParam, ConstParam, DtypeParam } kind;
  const dsl::Param *param;
  std::vector<const dsl::Expr *> dims; // TensorParam: dimension expressions
  const dsl::Expr *dtypeExpr = nullptr; // TensorParam element type expression
  mlir::Type scalarType;                // ScalarParam
};

std::string annotationName(const dsl::Expr *e) {
  if (!e) return "";
  if (auto *n = e->as<dsl::NameExpr>()) return n->name;
  if (auto *s = e->as<dsl::SubscriptExpr>())
    if (auto *n = s->value->as<dsl::NameExpr>()) return n->name;
  return "";
}

} // namespace

std::vector<std::string> kernelNames(const dsl::Module &module) {
  std::vector<std::string> names;
  for (const dsl::StmtPtr &s : module.body)
    if (auto *fn = s->as<dsl::FunctionDef>(); fn && isKernel(*fn))
      names.push_back(fn->name);
  return names;
}

OwningOpRef<ModuleOp> Lowerer::lowerKernel(const dsl::Module &mod, const dsl::FunctionDef &fn) {
  module = &mod;
  OwningOpRef<ModuleOp> result = ModuleOp::create(loc(fn.loc));
  builder.setInsertionPointToEnd(result->getBody());

  // Module-level constants (BLOCK = 64) are visible in every kernel.
  for (const dsl::StmtPtr &s : mod.body) {
    bool docstring = s->kind == dsl::StmtKind::Expr &&
                     s->as<dsl::ExprStmt>()->value->kind == dsl::ExprKind::String;
    if (!docstring && s->kind != dsl::StmtKind::Assign && s->kind != dsl::StmtKind::FunctionDef &&
        s->kind != dsl::StmtKind::Import)
      fail(s->loc, "only imports, constant assignments and function definitions may appear at module level");
    if (auto *a = s->as<dsl::AssignStmt>()) {
      Sem v = eval(*a->value);
      std::function<bool(const Sem &)> constant = [&](const Sem &x) {
        if (x.kind == Sem::Tuple)
          return std::all_of(x.elems.begin(), x.elems.end(), constant);
        return x.isConst() || x.kind == Sem::Dtype || x.kind == Sem::String || x.kind == Sem::None;
      };
      if (!constant(v))
        fail(a->loc, "module-level assignments must be constants");
      assign(*a->target, v);
    }
  }

  // --- Classify parameters; fold const/dtype ones first (tensors may use them).
  std::vector<ParamInfo> params;
  std::set<std::string> seen;
  for (const dsl::Param &p : fn.params) {
    if (!seen.insert(p.name).second)
      fail(p.loc, "duplicate parameter '" + p.name + "'");
    if (!p.annotation)
      fail(p.loc, "parameter '" + p.name +
                      "' needs an annotation: Tensor[...], a scalar type (f32, i32, index), const or dtype");
    std::string ann = annotationName(p.annotation.get());
    ParamInfo info{ParamInfo::ScalarParam, &p};
    if (ann == "Tensor" && p.annotation->as<dsl::SubscriptExpr>()) {
      info.kind = ParamInfo::TensorParam;
      const dsl::Expr *index = p.annotation->as<dsl::SubscriptExpr>()->index.get();
      std::vector<const dsl::Expr *> parts;
      if (auto *t = index->as<dsl::TupleExpr>())
        for (auto &e : t->elements) parts.push_back(e.get());
      else
        parts.push_back(index);
      if (parts.size() < 2 || parts.size() > kMaxTensorRank + 1)
        fail(p.annotation->loc, "expected Tensor[dim, ..., dtype] with 1 to 4 dimensions, got " +
                                    std::to_string(parts.size()) + " entries");
      info.dtypeExpr = parts.back();
      parts.pop_back();
      info.dims = parts;
    } else if (ann == "const" || ann == "dtype") {
      info.kind = ann == "const" ? ParamInfo::ConstParam : ParamInfo::DtypeParam;
    } else if (mlir::Type t = dtypeFromName(ctx, ann);
               t && p.annotation->as<dsl::NameExpr>() && (t.isF32() || t.isF64() || t.isInteger(32) ||
                                                          t.isInteger(64) || t.isIndex())) {
      info.scalarType = t;
    } else {
      fail(p.annotation->loc, "unknown parameter annotation for '" + p.name +
                                  "': expected Tensor[...], f32, f64, i32, i64, index, const or dtype");
    }
    if (p.defaultValue && (info.kind == ParamInfo::TensorParam || info.kind == ParamInfo::ScalarParam))
      fail(p.defaultValue->loc, "only const and dtype parameters take defaults");
    params.push_back(info);
  }

  std::set<std::string> usedSpec;
  SmallVector<NamedAttribute> resolved; // every const and dtype parameter's value
  for (ParamInfo &info : params) {
    if (info.kind != ParamInfo::ConstParam && info.kind != ParamInfo::DtypeParam)
      continue;
    const dsl::Param &p = *info.param;
    Sem value;
    auto it = spec.constants.find(p.name);
    if (it != spec.constants.end()) {
      usedSpec.insert(p.name);
      if (auto *i = std::get_if<int64_t>(&it->second)) value = Sem::ofInt(*i);
      else if (auto *f = std::get_if<double>(&it->second)) value = Sem::ofFloat(*f);
      else {
        const std::string &name = std::get<std::string>(it->second);
        mlir::Type t = dtypeFromName(ctx, name);
        if (!t || info.kind != ParamInfo::DtypeParam)
          fail(p.loc, "value '" + name + "' given for " +
                          (info.kind == ParamInfo::DtypeParam ? "dtype" : "const") + " parameter '" +
                          p.name + "' is not " +
                          (info.kind == ParamInfo::DtypeParam ? "a dtype name" : "a number"));
        value.kind = Sem::Dtype;
        value.dtype = t;
      }
    } else if (p.defaultValue) {
      value = eval(*p.defaultValue);
    } else {
      fail(p.loc, std::string(info.kind == ParamInfo::ConstParam ? "const" : "dtype") +
                      " parameter '" + p.name + "' has no default; give it a value");
    }
    if (info.kind == ParamInfo::DtypeParam && value.kind != Sem::Dtype)
      fail(p.loc, "dtype parameter '" + p.name + "' must be a dtype (f32, bf16, ...), got " + describe(value));
    if (info.kind == ParamInfo::ConstParam && !value.isConst())
      fail(p.loc, "const parameter '" + p.name + "' must be a number or bool, got " + describe(value));
    env[p.name] = value;
    Attribute spelled = value.kind == Sem::Dtype   ? Attribute(builder.getStringAttr(dtypeSpelling(value.dtype)))
                        : value.kind == Sem::Float ? Attribute(builder.getF64FloatAttr(value.f))
                        : value.kind == Sem::Bool  ? Attribute(builder.getBoolAttr(value.b))
                                                   : Attribute(builder.getI64IntegerAttr(value.i));
    resolved.push_back(builder.getNamedAttr(p.name, spelled));
  }
  for (auto &[name, _] : spec.constants)
    if (!usedSpec.count(name))
      fail(fn.nameLoc, "kernel '" + fn.name + "' has no const or dtype parameter '" + name + "'");

  // --- Tensor types, symbols and the function signature.
  SmallVector<Type> argTypes;
  SmallVector<Attribute> argNames;
  struct SymbolUse { int64_t arg, dim; };
  std::map<std::string, std::vector<SymbolUse>> symbols;
  std::map<std::string, int64_t> staticSymbols;
  for (ParamInfo &info : params) {
    if (info.kind == ParamInfo::ConstParam || info.kind == ParamInfo::DtypeParam)
      continue;
    int64_t argIndex = argTypes.size();
    argNames.push_back(builder.getStringAttr(info.param->name));
    if (info.kind == ParamInfo::ScalarParam) {
      argTypes.push_back(info.scalarType);
      continue;
    }
    mlir::Type element = toDtype(eval(*info.dtypeExpr), info.dtypeExpr->loc);
    SmallVector<int64_t> shape;
    for (size_t d = 0; d < info.dims.size(); ++d) {
      const dsl::Expr *e = info.dims[d];
      if (auto *n = e->as<dsl::NameExpr>(); n && !env.count(n->name)) {
        symbols[n->name].push_back({argIndex, static_cast<int64_t>(d)});
        auto pinned = spec.dims.find(n->name);
        if (pinned != spec.dims.end()) {
          if (pinned->second <= 0)
            fail(e->loc, "dimension '" + n->name + "' pinned to non-positive size " +
                             std::to_string(pinned->second));
          staticSymbols[n->name] = pinned->second;
          shape.push_back(pinned->second);
        } else {
          shape.push_back(ShapedType::kDynamic);
        }
        continue;
      }
      int64_t size = toConstInt(eval(*e), e->loc, "a tensor dimension");
      if (size <= 0)
        fail(e->loc, "tensor dimensions must be positive, got " + std::to_string(size));
      shape.push_back(size);
    }
    argTypes.push_back(GlobalTensorType::get(&ctx, shape, element));
  }
  for (auto &[name, _] : spec.dims)
    if (!symbols.count(name))
      fail(fn.nameLoc, "kernel '" + fn.name + "' has no symbolic dimension '" + name + "'");

  // Symbol table attribute: {K = [[0, 1], [1, 1]], ...} for launch-time checks.
  SmallVector<NamedAttribute> symbolAttrs;
  for (auto &[name, uses] : symbols) {
    SmallVector<Attribute> list;
    for (SymbolUse u : uses)
      list.push_back(builder.getI64ArrayAttr({u.arg, u.dim}));
    symbolAttrs.push_back(builder.getNamedAttr(name, builder.getArrayAttr(list)));
  }

  // --- Decorator: grid, threads, reference.
  const dsl::CallExpr *decorator = kernelDecorator(fn);
  if (!decorator)
    fail(fn.loc, "kernel '" + fn.name + "' needs @kernel(grid=...)");
  const dsl::Expr *gridExpr = nullptr;
  std::string reference;
  for (const dsl::Keyword &kw : decorator->keywords) {
    if (kw.name == "grid") {
      gridExpr = kw.value.get();
    } else if (kw.name == "threads") {
      threads = toConstInt(eval(*kw.value), kw.value->loc, "threads");
      if (threads < 1 || threads > 1024)
        fail(kw.value->loc, "threads must lie in [1, 1024], got " + std::to_string(threads));
    } else if (kw.name == "reference") {
      Sem r = eval(*kw.value);
      if (r.kind != Sem::String)
        fail(kw.value->loc, "reference must be a string naming a reference implementation");
      reference = r.s;
    } else {
      fail(kw.loc, "unknown @kernel argument '" + kw.name + "'; expected grid, threads or reference");
    }
  }
  if (!decorator->args.empty())
    fail(decorator->args.front()->loc, "@kernel takes keyword arguments only (grid=..., threads=...)");
  if (!gridExpr)
    fail(decorator->loc, "@kernel needs grid=(...)");

  FunctionType gridType = builder.getFunctionType(
      argTypes, {builder.getIndexType(), builder.getIndexType(), builder.getIndexType()});
  FunctionType kernelType = builder.getFunctionType(argTypes, {});
  std::string gridName = fn.name + "__grid";

  Env constantsOnly = env;
  auto bindArguments = [&](Block *entry) {
    env = constantsOnly;
    size_t argIndex = 0;
    for (ParamInfo &info : params) {
      if (info.kind == ParamInfo::ConstParam || info.kind == ParamInfo::DtypeParam)
        continue;
      Sem v = Sem::ofValue(info.kind == ParamInfo::TensorParam ? Sem::Tensor : Sem::Scalar,
                           entry->getArgument(argIndex++));
      v.s = info.param->name;
      env[info.param->name] = v;
    }
    for (auto &[name, uses] : symbols) {
      auto st = staticSymbols.find(name);
      Value dim;
      if (st != staticSymbols.end())
        dim = indexConst(st->second, fn.loc);
      else
        dim = DimOp::create(builder, loc(fn.loc), entry->getArgument(uses[0].arg), uses[0].dim);
      env[name] = Sem::ofValue(Sem::Scalar, dim);
    }
  };

  // Grid function.
  auto gridFn = func::FuncOp::create(builder, loc(decorator->loc), gridName, gridType);
  gridFn->setAttr(kernel_attr::kGridOf, SymbolRefAttr::get(&ctx, fn.name));
  {
    Block *entry = gridFn.addEntryBlock();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(entry);
    bindArguments(entry);
    inGridExpression = true;
    Sem grid = eval(*gridExpr);
    inGridExpression = false;
    std::vector<Sem> dims = grid.kind == Sem::Tuple ? grid.elems : std::vector<Sem>{grid};
    if (dims.empty() || dims.size() > 3)
      fail(gridExpr->loc, "grid must have 1 to 3 dimensions, got " + std::to_string(dims.size()));
    SmallVector<Value> sizes;
    for (Sem &d : dims)
      sizes.push_back(toIndex(d, gridExpr->loc));
    while (sizes.size() < 3)
      sizes.push_back(indexConst(1, gridExpr->loc));
    func::ReturnOp::create(builder, loc(gridExpr->loc), sizes);
  }

  // Kernel function.
  auto kernelFn = func::FuncOp::create(builder, loc(fn.loc), fn.name, kernelType);
  kernelFn->setAttr(kernel_attr::kKernel, builder.getUnitAttr());
  kernelFn->setAttr(kernel_attr::kGrid, SymbolRefAttr::get(&ctx, gridName));
  kernelFn->setAttr(kernel_attr::kThreads, builder.getI64IntegerAttr(threads));
  kernelFn->setAttr(kernel_attr::kArgNames, builder.getArrayAttr(argNames));
  kernelFn->setAttr(kernel_attr::kSymbols, builder.getDictionaryAttr(symbolAttrs));
  kernelFn->setAttr(kernel_attr::kConstants, builder.getDictionaryAttr(resolved));
  if (!reference.empty())
    kernelFn->setAttr(kernel_attr::kReference, builder.getStringAttr(reference));
  {
    Block *entry = kernelFn.addEntryBlock();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(entry);
    bindArguments(entry);
    lowerBlock(fn.body);
    func::ReturnOp::create(builder, loc(fn.loc));
  }
  return result;
}

namespace {

/// Captures MLIR diagnostics (verifier messages carry DSL locations) and
/// re-formats them like front-end diagnostics.
std::string formatMlirDiagnostics(const std::vector<std::pair<Location, std::string>> &diags,
                                  std::string_view source, const std::string &path) {
  std::string out;
  for (auto &[l, message] : diags) {
    dsl::Diagnostic d{path, {}, message};
    l->walk([&](Location inner) {
      auto flc = dyn_cast<FileLineColLoc>(inner);
      if (!flc)
        return WalkResult::advance();
      d.loc.line = flc.getLine();
      d.loc.col = flc.getColumn();
      return WalkResult::interrupt();
    });
    out += dsl::formatDiagnostic(d, source);
  }
  return out;
}

} // namespace

std::variant<OwningOpRef<ModuleOp>, LoweringFailure>
lowerKernel(const dsl::Module &module, std::string_view source, MLIRContext &context,
            const Specialization &specialization, const std::string &kernelName) {
  context.loadDialect<ArgusDialect, arith::ArithDialect, scf::SCFDialect, func::FuncDialect>();
  const std::string &path = module.path;
  auto failure = [&](dsl::SourceLoc l, const std::string &m) {
    return LoweringFailure{dsl::formatDiagnostic({path, l, m}, source)};
  };

  const dsl::FunctionDef *chosen = nullptr;
  std::vector<std::string> names;
  for (const dsl::StmtPtr &s : module.body) {
    auto *fn = s->as<dsl::FunctionDef>();
    if (!fn || !isKernel(*fn))
      continue;
    names.push_back(fn->name);
    if (kernelName.empty() ? !chosen : fn->name == kernelName)
      chosen = fn;
  }
  if (!kernelName.empty() && !chosen) {
    std::string list;
    for (auto &n : names) list += (list.empty() ? "" : ", ") + n;
    return LoweringFailure{path + ": error: no @kernel named '" + kernelName + "' (the file defines: " +
                           (list.empty() ? "none" : list) + ")\n"};
  }
  if (!chosen)
    return LoweringFailure{path + ": error: the file defines no @kernel function\n"};
  if (kernelName.empty() && names.size() > 1)
    return LoweringFailure{path + ": error: the file defines several kernels (" + names[0] + ", " + names[1] +
                           ", ...); name one\n"};

  std::vector<std::pair<Location, std::string>> diags;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      diags.emplace_back(d.getLocation(), d.str());
    return success();
  });

  OwningOpRef<ModuleOp> result;
  try {
    Lowerer lowerer(context, path, specialization);
    result = lowerer.lowerKernel(module, *chosen);
  } catch (const UserError &e) {
    // A checked attribute or type constructor may have said why it refused.
    std::string why = diags.empty() ? "" : ": " + diags.back().second;
    return failure(e.loc, e.message + why);
  }
  if (failed(verify(*result)))
    return LoweringFailure{formatMlirDiagnostics(diags, source, path)};

  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLoopInvariantCodeMotionPass()); // before CSE: hoisted ids then merge
  pm.addPass(createCSEPass());
  if (failed(pm.run(*result)))
    return LoweringFailure{path + ": internal error: canonicalization failed\n" +
                           formatMlirDiagnostics(diags, source, path)};
  return result;
}

std::variant<OwningOpRef<ModuleOp>, LoweringFailure>
compileKernelSource(std::string_view source, const std::string &path, MLIRContext &context,
                    const Specialization &specialization, const std::string &kernelName) {
  dsl::ParseOutput parsed = dsl::parseModule(source, path);
  if (!parsed.module) {
    std::string out;
    for (const dsl::Diagnostic &d : parsed.errors)
      out += dsl::formatDiagnostic(d, source);
    return LoweringFailure{out};
  }
  return lowerKernel(*parsed.module, source, context, specialization, kernelName);
}

} // namespace argus::lowering
