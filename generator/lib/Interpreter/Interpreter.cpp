//===- Interpreter.cpp - the driver: arguments, grid, program instances ---===//
//
// Checks a kernel and its arguments against the kernel conventions, evaluates
// the grid function, then runs the body once per program instance (axis 0
// fastest) with a fresh Executor state each time. Every error is turned into
// an llvm::Error here, tagged with the program instance it happened in.
//
//===----------------------------------------------------------------------===//
#include "argus/Interpreter/Interpreter.h"

#include "Executor.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace argus::interp {

using namespace detail;

std::string formatLocation(Location loc) {
  std::string out;
  loc->walk([&](Location l) {
    if (auto file = dyn_cast<FileLineColLoc>(l)) {
      out = (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) + ":" +
             llvm::Twine(file.getColumn()))
                .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (out.empty()) {
    llvm::raw_string_ostream os(out);
    os << loc;
  }
  return out;
}

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// The kernel's arguments turned into interpreter values, in signature order.
/// `tensors` owns what tensor lanes point at.
struct Binding {
  std::vector<TensorArg> tensors;
  std::vector<RtValue> values;
};

/// "'A' (argument 0)", or "argument 0" when the kernel has no argus.arg_names.
std::string argumentName(func::FuncOp f, unsigned i) {
  std::string index = "argument " + std::to_string(i);
  if (auto names = f->getAttrOfType<ArrayAttr>(kernel_attr::kArgNames))
    if (i < names.size())
      if (auto name = dyn_cast<StringAttr>(names[i]))
        return "'" + name.getValue().str() + "' (" + index + ")";
  return index;
}

llvm::Error bindArguments(func::FuncOp f, ArrayRef<KernelArg> args, Binding &out) {
  ArrayRef<Type> params = f.getArgumentTypes();
  if (args.size() != params.size())
    return makeError("@" + f.getSymName() + " expects " + llvm::Twine(params.size()) +
                     " arguments, got " + llvm::Twine(args.size()));
  out.tensors.clear();
  out.tensors.reserve(params.size()); // tensor lanes point into it: no reallocation
  out.values.clear();
  for (unsigned i = 0; i < params.size(); ++i) {
    std::string name = argumentName(f, i);
    Type type = params[i];
    if (auto tensorType = dyn_cast<GlobalTensorType>(type)) {
      const auto *desc = std::get_if<argus_cpu_tensor>(&args[i]);
      if (!desc)
        return makeError("expected a tensor for " + name + " of type " + typeString(type) +
                         ", got a scalar");
      if (tensorType.getRank() > ARGUS_CPU_MAX_RANK)
        return makeError(name + " has rank " + llvm::Twine(tensorType.getRank()) +
                         ", but the CPU calling convention carries at most " +
                         llvm::Twine(ARGUS_CPU_MAX_RANK) + " dimensions");
      std::optional<ElemType> elem = ElemType::get(tensorType.getElementType());
      if (!elem)
        return makeError(name + ": unsupported element type " +
                         typeString(tensorType.getElementType()));
      for (int64_t d = 0; d < tensorType.getRank(); ++d) {
        int64_t size = desc->shape[d];
        if (size < 0)
          return makeError("expected a non-negative size for dimension " + llvm::Twine(d) +
                           " of " + name + ", got " + llvm::Twine(size));
        if (!tensorType.isDynamicDim(d) && size != tensorType.getShape()[d])
          return makeError("expected size " + llvm::Twine(tensorType.getShape()[d]) +
                           " for dimension " + llvm::Twine(d) + " of " + name + " (type " +
                           typeString(type) + "), got " + llvm::Twine(size));
      }
      out.tensors.push_back(TensorArg{tensorType, *elem, *desc, name});
      out.values.push_back(RtValue{{Lane(static_cast<const TensorArg *>(&out.tensors.back()))}});
      continue;
    }
    std::optional<ElemType> elem = ElemType::get(type);
    if (!elem)
      return makeError(name + " has type " + typeString(type) +
                       ", which the interpreter cannot pass (expected !argus.tensor or a scalar)");
    const auto *scalar = std::get_if<ScalarArg>(&args[i]);
    if (!scalar)
      return makeError("expected a scalar for " + name + " of type " + typeString(type) +
                       ", got a tensor");
    Elem e = elem->isFloat() ? Elem::ofFloat(roundFloat(elem->kind, scalar->f))
                             : Elem::ofInt(wrapInt(elem->width, scalar->i));
    out.values.push_back(RtValue{{Lane(e)}});
  }
  return llvm::Error::success();
}

llvm::Error checkBody(func::FuncOp f) {
  if (f.isExternal())
    return makeError("@" + f.getSymName() + " has no body");
  if (!llvm::hasSingleElement(f.getBody()))
    return makeError("@" + f.getSymName() +
                     " has more than one block; the interpreter runs structured control flow "
                     "(scf) only");
  return llvm::Error::success();
}

llvm::Expected<func::FuncOp> gridFunctionOf(func::FuncOp kernel) {
  auto symbol = kernel->getAttrOfType<FlatSymbolRefAttr>(kernel_attr::kGrid);
  if (!symbol)
    return makeError("kernel @" + kernel.getSymName() + " has no '" + kernel_attr::kGrid +
                     "' attribute naming its grid function");
  auto grid = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(kernel, symbol.getAttr());
  if (!grid)
    return makeError("grid function @" + symbol.getValue() + " of kernel @" +
                     kernel.getSymName() + " not found");
  if (grid.getArgumentTypes() != kernel.getArgumentTypes())
    return makeError("grid function @" + grid.getSymName() +
                     " must take the same arguments as kernel @" + kernel.getSymName());
  ArrayRef<Type> results = grid.getResultTypes();
  if (results.size() != 3 || !llvm::all_of(results, [](Type t) { return t.isIndex(); }))
    return makeError("grid function @" + grid.getSymName() + " must return 3 index values, got " +
                     llvm::Twine(results.size()) + " results");
  if (llvm::Error e = checkBody(grid))
    return e;
  return grid;
}

} // namespace

llvm::Expected<std::array<int64_t, 3>> evaluateGrid(func::FuncOp kernel, ArrayRef<KernelArg> args) {
  if (!kernel)
    return makeError("evaluateGrid: no kernel given");
  llvm::Expected<func::FuncOp> grid = gridFunctionOf(kernel);
  if (!grid)
    return grid.takeError();
  Binding binding;
  if (llvm::Error e = bindArguments(*grid, args, binding))
    return e;
  Executor ex(/*numThreads=*/1, /*gridFunction=*/true);
  Block &body = grid->getBody().front();
  for (auto [arg, value] : llvm::zip(body.getArguments(), binding.values))
    ex.set(arg, value);
  llvm::SmallVector<RtValue> results;
  if (failed(ex.runBlock(body, results)))
    return makeError(ex.error + " (in grid function @" + grid->getSymName() + ")");
  if (results.size() != 3)
    return makeError("grid function @" + grid->getSymName() + " returned " +
                     llvm::Twine(results.size()) + " values, expected 3");
  std::array<int64_t, 3> sizes;
  for (int axis = 0; axis < 3; ++axis) {
    sizes[axis] = std::get<Elem>(results[axis].lanes[0]).i();
    if (sizes[axis] < 0)
      return makeError("grid function @" + grid->getSymName() + " gives size " +
                       llvm::Twine(sizes[axis]) + " along axis " + llvm::Twine(axis) +
                       ", expected >= 0");
  }
  return sizes;
}

llvm::Error runKernel(func::FuncOp kernel, ArrayRef<KernelArg> args, const RunOptions &options) {
  if (!kernel)
    return makeError("runKernel: no kernel given");
  if (!kernel->hasAttr(kernel_attr::kKernel))
    return makeError("@" + kernel.getSymName() + " is not a kernel (it has no '" +
                     kernel_attr::kKernel + "' attribute)");
  if (llvm::Error e = checkBody(kernel))
    return e;
  int64_t threads = 1;
  if (Attribute a = kernel->getAttr(kernel_attr::kThreads)) {
    auto i = dyn_cast<IntegerAttr>(a);
    if (!i)
      return makeError("expected an integer '" + kernel_attr::kThreads + "' on @" +
                       kernel.getSymName());
    threads = i.getInt();
  }
  constexpr int64_t kMaxThreads = 4096;
  if (threads < 1 || threads > kMaxThreads)
    return makeError("expected '" + kernel_attr::kThreads + "' in [1, " + llvm::Twine(kMaxThreads) +
                     "] on @" + kernel.getSymName() + ", got " + llvm::Twine(threads));

  Binding binding;
  if (llvm::Error e = bindArguments(kernel, args, binding))
    return e;
  llvm::Expected<std::array<int64_t, 3>> grid = evaluateGrid(kernel, args);
  if (!grid)
    return grid.takeError();

  int64_t total = 1;
  for (int64_t g : *grid)
    if (__builtin_mul_overflow(total, g, &total))
      return makeError("the grid of @" + kernel.getSymName() + " has too many program instances");
  if (options.maxInstances >= 0)
    total = std::min(total, options.maxInstances);
  int64_t first = 0;
  if (options.onlyInstance) {
    const std::array<int64_t, 3> &id = *options.onlyInstance;
    for (int axis = 0; axis < 3; ++axis)
      if (id[axis] < 0 || id[axis] >= (*grid)[axis])
        return makeError("program instance (" + llvm::Twine(id[0]) + ", " + llvm::Twine(id[1]) +
                         ", " + llvm::Twine(id[2]) + ") requested by onlyInstance is outside the grid (" +
                         llvm::Twine((*grid)[0]) + ", " + llvm::Twine((*grid)[1]) + ", " +
                         llvm::Twine((*grid)[2]) + ") of @" + kernel.getSymName());
    first = id[0] + (*grid)[0] * (id[1] + (*grid)[1] * id[2]);
    total = first + 1;
  }

  Executor ex(threads, /*gridFunction=*/false);
  ex.grid = *grid;
  ex.observer = options.observer;
  Block &body = kernel.getBody().front();
  llvm::SmallVector<RtValue> ignored;
  for (int64_t instance = first; instance < total; ++instance) {
    int64_t g0 = (*grid)[0], g1 = (*grid)[1];
    ex.resetInstance();
    ex.programId = {instance % g0, (instance / g0) % g1, instance / (g0 * g1)};
    if (ex.observer)
      ex.observer->onInstance(ex.programId);
    for (auto [arg, value] : llvm::zip(body.getArguments(), binding.values))
      ex.set(arg, value);
    if (failed(ex.runBlock(body, ignored)))
      return makeError(ex.error + " (in program instance (" + llvm::Twine(ex.programId[0]) +
                       ", " + llvm::Twine(ex.programId[1]) + ", " + llvm::Twine(ex.programId[2]) +
                       "))");
  }
  return llvm::Error::success();
}

} // namespace argus::interp
