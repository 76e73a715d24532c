//===- CpuEmitter.cpp - the translation unit, functions and op dispatch ---===//
//
// Shape of the emitted unit (for a kernel @k, symbol `sym`):
//
//   #include "argus_cpu_kernel.h"
//   namespace {
//   namespace ak = argus_cpu;
//   static void sym_instance(const argus_cpu_arg *args, pid0, pid1, pid2, npid0, ...) {
//     ...arguments unpacked by DSL name, then one statement per op...
//   }
//   }
//   extern "C" void sym(const argus_cpu_arg *args, int num_threads) {
//     ...the grid function @k__grid, inlined -> grid0, grid1, grid2...
//     #pragma omp parallel for collapse(3) schedule(static) num_threads(...)
//     for (pid0...) for (pid1...) for (pid2...) sym_instance(args, pid0, ...);
//   }
//
//===----------------------------------------------------------------------===//
#include "CpuEmitter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace argus::codegen::cpu {

SlotTable::Id CpuEmitter::declareTile(Value v, Operation *op, StringRef note) {
  auto tile = cast<TileType>(v.getType());
  std::string storage = *storageCType(tile.getElementType());
  std::string dims;
  for (int64_t d : tile.getShape())
    dims += (dims.empty() ? "" : " * ") + std::to_string(d);
  std::string name = nameFor(v);
  line("alignas(64) " + storage + " " + name + "[" + (dims.empty() ? "1" : dims) + "];", op, note);
  SlotTable::Id id = slots.create(name, storage, tile.getNumElements());
  slots.place(v, id);
  return id;
}

SlotTable::Id CpuEmitter::tileForResult(Value v, Operation *op, ArrayRef<Value> candidates) {
  auto tile = cast<TileType>(v.getType());
  std::string storage = *storageCType(tile.getElementType());
  for (Value c : candidates) {
    auto ct = dyn_cast<TileType>(c.getType());
    if (!ct || ct.getShape() != tile.getShape())
      continue;
    SlotTable::Id id = slots.of(c);
    if (!slots.canOverwrite(id, op, storage, tile.getNumElements()))
      continue;
    // Another operand of a different shape in the same storage (a reshape
    // alias) would be read at other positions than the ones being written.
    bool clash = false;
    for (Value operand : op->getOperands())
      if (operand != c && slots.of(operand) == id && operand.getType() != c.getType())
        clash = true;
    if (clash)
      continue;
    slots.place(v, id);
    return id;
  }
  return declareTile(v, op);
}

//===----------------------------------------------------------------------===//
// Kernel checks
//===----------------------------------------------------------------------===//

static std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

LogicalResult CpuEmitter::checkKernel(func::FuncOp kernel, func::FuncOp &grid) {
  StringRef name = kernel.getSymName();
  if (!kernel->hasAttr(kernel_attr::kKernel))
    return fail(kernel, "expected a kernel (func.func with the argus.kernel attribute), got @" +
                            name);
  if (Attribute threads = kernel->getAttr(kernel_attr::kThreads)) {
    auto i = dyn_cast<IntegerAttr>(threads);
    if (!i)
      return fail(kernel, "expected argus.threads to be an integer, got " +
                              [&] { std::string s; llvm::raw_string_ostream(s) << threads; return s; }());
    if (i.getInt() > 1)
      return fail(kernel, "the CPU backend runs one thread per program instance; kernel '" + name +
                              "' asks for " + std::to_string(i.getInt()));
  }
  if (failed(findGridFunction(kernel, grid)))
    return failure();

  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    if (auto tensor = dyn_cast<GlobalTensorType>(type)) {
      if (tensor.getRank() < 1 || tensor.getRank() > kMaxTensorRank)
        return fail(kernel.getArgument(i).getLoc(),
                    "expected tensor argument " + std::to_string(i) + " to have rank 1 to " +
                        std::to_string(kMaxTensorRank) + ", got rank " +
                        std::to_string(tensor.getRank()));
      if (!storageCType(tensor.getElementType()))
        return fail(kernel.getArgument(i).getLoc(),
                    "the CPU backend has no storage type for tensor elements of type " +
                        typeString(tensor.getElementType()));
      continue;
    }
    if (!scalarCType(type))
      return fail(kernel.getArgument(i).getLoc(),
                  "expected argument " + std::to_string(i) +
                      " to be an !argus.tensor or a scalar (f32, f64, i32, i64, index), got " +
                      typeString(type));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

void CpuEmitter::resetScope() {
  names = NameTable();
  slots = SlotTable();
  arenaSlotsTaken = 0;
  scalars.clear();
  buffers.clear();
  foldedTransposes.clear();
  shadowOf.clear();
  rowScaleOf.clear();
  fusedOps.clear();
}

LogicalResult CpuEmitter::emitArguments(func::FuncOp f, ArrayRef<std::string> argNames) {
  for (auto [i, arg] : llvm::enumerate(f.getArguments())) {
    std::string name = names.unique(argNames[i]);
    scalars[arg] = name;
    std::string idx = std::to_string(i);
    Type t = arg.getType();
    if (auto tensor = dyn_cast<GlobalTensorType>(t)) {
      line("const argus_cpu_tensor &" + name + " = args[" + idx + "].tensor;  // " +
           typeString(tensor));
      continue;
    }
    std::string ctype = *scalarCType(t);
    std::string value;
    if (isa<FloatType>(t))
      value = isNarrowFloat(t) ? (t.isBF16() ? "ak::round_bf16(float(args[" + idx + "].f))"
                                             : "ak::round_f16(float(args[" + idx + "].f))")
                               : ctype + "(args[" + idx + "].f)";
    else if (t.isInteger(1))
      value = "args[" + idx + "].i != 0";
    else
      value = ctype + "(args[" + idx + "].i)";
    line("const " + ctype + " " + name + " = " + value + ";  // " + typeString(t));
  }
  return success();
}

LogicalResult CpuEmitter::emitInstanceFunction(func::FuncOp kernel, StringRef name,
                                               ArrayRef<std::string> argNames) {
  resetScope();
  line("/// One program instance of @" + kernel.getSymName() +
       ": the kernel body (tags and tag assertions are compile-time only: erased).");
  line("static void " + name +
       "(const argus_cpu_arg *args, const int64_t pid0, const int64_t pid1, const int64_t pid2,");
  line("    const int64_t npid0, const int64_t npid1, const int64_t npid2) {");
  indent();
  if (failed(emitArguments(kernel, argNames)))
    return failure();
  if (failed(emitBlock(kernel.getBody().front())))
    return failure();
  dedent();
  line("}");
  return success();
}

LogicalResult CpuEmitter::emitEntryFunction(func::FuncOp grid, StringRef symbol, StringRef instanceName,
                                            ArrayRef<std::string> argNames) {
  resetScope();
  line("/// Entry point (argus_cpu_kernel_fn): grid from @" + grid.getSymName() +
       ", one call per program instance.");
  // Visible even under -fvisibility=hidden, so a sweep can dlsym a candidate
  // compiled with a library's flags; a library's export map still hides it.
  line("extern \"C\" __attribute__((visibility(\"default\"))) void " + symbol +
       "(const argus_cpu_arg *args, int num_threads) {");
  indent();
  if (failed(emitArguments(grid, argNames)))
    return failure();
  inGridFunction = true;
  LogicalResult gridOk = emitBlock(grid.getBody().front());
  inGridFunction = false;
  if (failed(gridOk))
    return failure();
  line("if (grid0 <= 0 || grid1 <= 0 || grid2 <= 0) return;");
  // Products that keep b's panels (ak::pack_reuse) find them by launch: each
  // thread enters this one before its instances.
  std::string enter;
  if (packReuse) {
    line("const uint64_t launch = ak::next_pack_launch();  // panels kept for this launch only");
    enter = "ak::enter_pack_launch(launch), ";
  }
  line("if (grid0 == 1 && grid1 == 1 && grid2 == 1) {  // a single instance: no parallel region");
  line("  " + enter + instanceName + "(args, 0, 0, 0, 1, 1, 1);");
  line("  return;");
  line("}");
  os << "#pragma omp parallel for collapse(3) schedule(static) num_threads(ak::thread_count(num_threads))\n";
  line("for (int64_t pid0 = 0; pid0 < grid0; ++pid0)");
  line("  for (int64_t pid1 = 0; pid1 < grid1; ++pid1)");
  line("    for (int64_t pid2 = 0; pid2 < grid2; ++pid2)");
  line("      " + enter + instanceName + "(args, pid0, pid1, pid2, grid0, grid1, grid2);");
  dedent();
  line("}");
  return success();
}

llvm::Expected<std::string> CpuEmitter::emitUnit(func::FuncOp kernel, StringRef symbol) {
  if (!isCpuTarget(target.name)) {
    (void)fail(kernel, "unknown CPU target '" + target.name + "' (expected cpu-avx512 or cpu-avx2)");
    return takeError();
  }
  func::FuncOp grid;
  if (failed(checkSymbol(kernel, symbol)) || failed(checkKernel(kernel, grid)))
    return takeError();

  std::vector<std::string> argNames = argumentNames(kernel);

  // Tags are compile-time annotations: emit from a copy with them erased, so
  // they neither print nor keep values alive.
  func::FuncOp work = copyWithoutTags(kernel);
  llvm::scope_exit eraseWork([&] { work->erase(); });

  std::string instanceName = (symbol + "_instance").str();
  line("// " + symbol + ": CPU kernel generated by argus-gen from @" + kernel.getSymName() +
       " (target " + target.name + ").");
  if (auto ref = kernel->getAttrOfType<StringAttr>(kernel_attr::kReference))
    line("// Reference semantics: " + ref.getValue() + ".");
  line("// Calling convention: argus_cpu_kernel_fn (argus_cpu_abi.h); arguments in DSL order: " +
       llvm::join(argNames, ", ") + ".");
  line("// Generated code: edit the DSL source, not this file.");
  line("#include \"argus_cpu_kernel.h\"");
  line("");
  line("namespace {");
  line("namespace ak = argus_cpu;");
  line("");
  packReuse = false;
  if (failed(emitInstanceFunction(work, instanceName, argNames)))
    return takeError();
  if (failed(checkStackBudget(work)))
    return takeError();
  line("");
  line("} // namespace");
  line("");
  if (failed(emitEntryFunction(grid, symbol, instanceName, argNames)))
    return takeError();
  return out;
}

/// Tiles live on the stack of the thread running a program instance (the
/// engine's own thread for one instance, OpenMP workers otherwise), and the
/// mma micro-kernels add packed panels (f16 also widens both operands).
/// Past the budget, an engine thread with a small stack would crash: refuse.
LogicalResult CpuEmitter::checkStackBudget(func::FuncOp kernel) {
  int64_t bytes = slots.stackBytes();
  int64_t mmaScratch = 0;
  kernel.walk([&](MmaOp mma) {
    ArrayRef<int64_t> a = mma.getA().getType().getShape(), b = mma.getB().getType().getShape();
    // Packed panels of B: all of them for f32 (ceil(N / 32) K x 32 panels), one otherwise.
    Type elem = mma.getA().getType().getElementType();
    int64_t panels = elem.isF32() ? (b[0] + 31) / 32 : 1;
    int64_t scratch = panels * a[1] * 32 * 4;
    // 16-bit operands are widened to f32 where the target has no native
    // dot product: f16 always, bf16 without AVX512_BF16.
    bool widened = elem.isF16() || (elem.isBF16() && cpuTargetWidensBf16(target.name));
    if (widened)
      scratch += (a[0] + b[0]) * a[1] * 4;
    mmaScratch = std::max(mmaScratch, scratch);
  });
  bytes += mmaScratch;
  if (bytes <= kStackBudgetBytes)
    return success();
  return fail(kernel, "kernel '" + kernel.getSymName().str() + "' needs " + std::to_string(bytes / 1024) +
                          " KiB of stack for its tiles (the CPU backend's limit is " +
                          std::to_string(kStackBudgetBytes / 1024) + " KiB); use smaller tiles");
}

//===----------------------------------------------------------------------===//
// Blocks and op dispatch
//===----------------------------------------------------------------------===//

} // namespace argus::codegen::cpu
