//===- LaneEmitter.cpp - the translation unit, control flow, op dispatch --===//
//
// Shape of the emitted unit (kernel @k, symbol `sym`; HIP's spellings, CUDA's
// are LaneTarget.cpp's):
//
//   #include "argus_hip_tile_launch.h"
//   namespace ak = argus::hip::tile;
//   struct sym_params { ak::Tensor A; ...; float alpha; ...; int64_t num_programs[3]; };
//   inline ak::LaunchShape sym_launch(sym_params &p) { ...@k__grid inlined... }
//
//   #ifndef ARGUS_GPU_LAUNCH_ONLY   // a library's host code stops here
//   #include "argus_hip_tile.h"
//   struct sym_place_0 { ... };       // where a swizzled buffer puts element x
//   ARGUS_HIP_FN void sym_body(const sym_params &p) {
//     ARGUS_LDS(lds, bytes);
//     ...arguments by DSL name, then the statements of each op...
//   }
//   #if ARGUS_HIP_DEVICE_CODE
//   ARGUS_HIP_KERNEL(threads) void sym(sym_params p) { sym_body(p); }
//   #endif
//   #endif
//
// A CUDA kernel whose copy_asyncs are TMA copies (TmaCopies.h) has tensor
// maps and `tma_copies` in its parameters, its body as sym_staged<bool
// kTmaCopies>, sym_body choosing by `tma_copies`, and two entries: sym (TMA)
// and sym_cp_async.
//
//===----------------------------------------------------------------------===//
#include "LaneEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace argus::codegen::lanes {

std::optional<std::string> storageType(Type type) {
  if (type.isF32())
    return std::string("float");
  if (type.isBF16() || type.isF16())
    return std::string("uint16_t");
  if (type.isInteger(1) || isa<Float8E4M3FNUZType>(type))
    return std::string("uint8_t");
  if (type.isInteger(32))
    return std::string("int32_t");
  if (type.isInteger(64) || type.isIndex())
    return std::string("int64_t");
  return std::nullopt;
}

std::optional<std::string> elementTag(Type type) {
  if (type.isF32())
    return std::string("ak::F32");
  if (type.isBF16())
    return std::string("ak::Bf16");
  if (type.isF16())
    return std::string("ak::F16");
  if (isa<Float8E4M3FNUZType>(type))
    return std::string("ak::Fp8Fnuz");
  if (type.isInteger(1))
    return std::string("ak::I1");
  if (type.isInteger(32))
    return std::string("ak::I32");
  if (type.isInteger(64) || type.isIndex())
    return std::string("ak::I64");
  return std::nullopt;
}

/// The element type of a tensor, tile or buffer type; any other type itself.
static Type elementTypeOf(Type t) {
  if (auto tensor = dyn_cast<GlobalTensorType>(t))
    return tensor.getElementType();
  if (auto tile = dyn_cast<TileType>(t))
    return tile.getElementType();
  if (auto buffer = dyn_cast<BufferType>(t))
    return buffer.getElementType();
  return t;
}

static std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

//===----------------------------------------------------------------------===//
// Tiles
//===----------------------------------------------------------------------===//

std::string LaneEmitter::tile(Value v) {
  auto it = tiles.find(v);
  return it == tiles.end() ? std::string("/*unknown tile*/") : it->second;
}

std::string LaneEmitter::declareTile(Value v, Operation *op, StringRef note) {
  auto t = cast<TileType>(v.getType());
  const RegLayout &l = layoutOf(v);
  std::string name = nameFor(v);
  line(*storageType(t.getElementType()) + " " + name + "[" + std::to_string(l.perLane()) + "];", op,
       note.empty() ? StringRef(l.spell()) : note);
  tiles[v] = name;
  return name;
}

void LaneEmitter::emitConvert(const std::string &dst, const std::string &src, const RegLayout &from,
                             const RegLayout &to, Type element, Operation *op) {
  std::string storage = *storageType(element);
  line(storage + " " + dst + "[" + std::to_string(to.perLane()) + "];", op, to.spell());
  line("ak::convert<" + from.spell() + ", " + to.spell() + ">(" + dst + ", " + src + ", reinterpret_cast<" + storage +
           " *>(" + target.group + "_scratch));",
       op, "through " + target.sharedNoun);
}

std::string LaneEmitter::operandTile(Operation *op, unsigned index) {
  Value v = op->getOperand(index);
  const RegLayout *want = layouts.conversion(op, index);
  if (!want)
    return tile(v);
  // A copy made for an op that dominates this one is still in scope (each
  // region is a C++ block) and holds the same value (tiles are immutable).
  const std::string layout = want->spell();
  for (const Conversion &made : conversions[v])
    if (made.layout == layout && dominance && dominance->properlyDominates(made.madeFor, op))
      return made.name;
  std::string name = names.unique(nameFor(v) + "_as");
  emitConvert(name, tile(v), layouts.of(v), *want, cast<TileType>(v.getType()).getElementType(), op);
  conversions[v].push_back({layout, name, op});
  return name;
}

//===----------------------------------------------------------------------===//
// Kernel checks and shared-memory plan
//===----------------------------------------------------------------------===//

LogicalResult LaneEmitter::checkKernel(func::FuncOp kernel, func::FuncOp &grid) {
  StringRef name = kernel.getSymName();
  if (!kernel->hasAttr(kernel_attr::kKernel))
    return fail(kernel, "expected a kernel (func.func with the argus.kernel attribute), got @" + name);
  auto threads = kernel->getAttrOfType<IntegerAttr>(kernel_attr::kThreads);
  groups = threads ? threads.getInt() : 1;
  if (groups < 1 || groups > target.maxGroups)
    return fail(kernel, target.backend + " runs each thread of kernel '" + name + "' as a " + target.group + " of " +
                            std::to_string(target.lanes) + " lanes, 1 to " + std::to_string(target.maxGroups) +
                            " per " + target.workgroup + "; it asks for " + std::to_string(groups));
  if (failed(findGridFunction(kernel, grid)))
    return failure();
  if (!target.fp8Fnuz) { // gfx942's fp8 is its own: no other target has its MFMAs or conversions
    auto isFp8 = [](Type t) { return isa<Float8E4M3FNUZType>(elementTypeOf(t)); };
    const std::string refusal = target.backend + " (" + target.name + ") has no fp8_fnuz (E4M3FNUZ): only hip-gfx942 does";
    for (BlockArgument arg : kernel.getArguments())
      if (isFp8(arg.getType()))
        return fail(arg.getLoc(), refusal);
    WalkResult fp8 = kernel.walk([&](Operation *op) {
      if (llvm::any_of(op->getResultTypes(), isFp8)) {
        (void)fail(op, refusal);
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (fp8.wasInterrupted())
      return failure();
  }
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    if (auto tensor = dyn_cast<GlobalTensorType>(type)) {
      if (tensor.getRank() < 1 || tensor.getRank() > 4 || !storageType(tensor.getElementType()))
        return fail(kernel.getArgument(i).getLoc(),
                    target.backend + " takes tensors of rank 1 to 4 of f32, bf16, f16, i1, i32 or i64 (and fp8_fnuz on gfx942); "
                    "argument " + std::to_string(i) + " is " + typeString(type));
      continue;
    }
    if (!scalarCType(type))
      return fail(kernel.getArgument(i).getLoc(),
                  "expected argument " + std::to_string(i) +
                      " to be an !argus.tensor or a scalar (f32, f64, i32, i64, index), got " + typeString(type));
  }
  return success();
}

LogicalResult LaneEmitter::planShared(func::FuncOp kernel, int64_t &ldsBytes) {
  ldsBytes = 0;
  LogicalResult ok = success();
  kernel.walk([&](AllocOp alloc) {
    auto type = cast<BufferType>(alloc.getType());
    if (type.getSpace() != MemorySpace::shared) {
      ok = fail(alloc, target.backend + " does not lower local (per-thread) buffers yet");
      return;
    }
    std::optional<std::string> storage = storageType(type.getElementType());
    if (!storage) {
      ok = fail(alloc, target.backend + " has no shared-memory element type for " + typeString(type.getElementType()));
      return;
    }
    // How far the buffer's own layout spreads its elements.
    int64_t span = type.getNumElements();
    std::string placement = "ak::Unswizzled";
    if (Attribute own = type.getLayout()) {
      std::string name = names.unique(symbol + "_place");
      int64_t contiguous = 1;
      if (auto s = dyn_cast<SwizzleAttr>(own)) {
        contiguous = int64_t(1) << s.getBase();
        int64_t period = int64_t(1) << (s.getBits() + s.getBase() + std::max<int64_t>(0, s.getShift()));
        span = (span + period - 1) / period * period;
      } else {
        SmallVector<int64_t> modes, strides;
        flattenModes(cast<LayoutAttr>(own).getShape(), modes);
        flattenModes(cast<LayoutAttr>(own).getStride(), strides);
        int64_t cosize = 1;
        for (auto [m, s] : llvm::zip(modes, strides))
          cosize += (m - 1) * s;
        span = std::max(span, cosize);
      }
      line("/// Where the buffer of " + locComment(alloc.getLoc()) + " places its logical element x.");
      line("struct " + name + " {");
      line("  static constexpr int kContiguous = " + std::to_string(contiguous) + ";");
      line("  " + target.fn + " static int place(int x) { return int(" + layoutExpr(own, "x") + "); }");
      line("};");
      placement = name;
    }
    int64_t bytes = span * (type.getElementType().getIntOrFloatBitWidth() / 8);
    const int64_t align = target.sharedAlignment();
    ldsBytes = (ldsBytes + align - 1) / align * align;
    buffers[alloc.getResult()] = {"", placement, ldsBytes};
    ldsBytes += (bytes + 15) / 16 * 16;
  });
  if (failed(ok))
    return failure();
  // A view addresses its slot through its own map: element e at slot base + view(e).
  kernel.walk([&](Operation *op) {
    Attribute view;
    Value buffer;
    if (auto l = dyn_cast<BufferLoadOp>(op))
      view = l.getViewAttr(), buffer = l.getBuffer();
    else if (auto s = dyn_cast<BufferStoreOp>(op))
      view = s.getViewAttr(), buffer = s.getBuffer();
    if (!view)
      return;
    auto type = cast<BufferType>(buffer.getType());
    int64_t slotElems = 1;
    for (int64_t d : type.getShape().drop_front(op->getNumOperands() - (isa<BufferStoreOp>(op) ? 2 : 1)))
      slotElems *= d;
    std::string name = names.unique(symbol + "_view");
    int64_t contiguous = 1;
    if (auto s = dyn_cast<SwizzleAttr>(view))
      contiguous = int64_t(1) << s.getBase();
    line("/// The view of " + locComment(op->getLoc()) + ": element e of a slot at slot base + view(e).");
    line("struct " + name + " {");
    line("  static constexpr int kContiguous = " + std::to_string(contiguous) + ";");
    line("  " + target.fn + " static int place(int x) {");
    line("    const int e = x % " + std::to_string(slotElems) + ";");
    line("    return x - e + int(" + layoutExpr(view, "e") + ");");
    line("  }");
    line("};");
    viewPlacements[op] = name;
  });
  // Each lane group's scratch for register layout conversions follows the buffers.
  scratchOffset = ldsBytes;
  ldsBytes += groups * ((layouts.conversionScratchBytes() + 15) / 16 * 16);
  if (tma.active()) { // each lane group's ring of 8-byte mbarriers
    ldsBytes = (ldsBytes + 7) / 8 * 8;
    tmaRingOffset = ldsBytes;
    ldsBytes += groups * tma.ringSize * 8;
  }
  if (ldsBytes > target.sharedBytes)
    return fail(kernel, "the shared buffers of kernel '" + kernel.getSymName() + "' take " +
                            std::to_string(ldsBytes) + " bytes of " + target.sharedNoun + "; " + target.oneWorkgroup +
                            " has " + std::to_string(target.sharedBytes));
  return success();
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

void LaneEmitter::resetScope() {
  names = NameTable();
  names.reserve("p");
  names.reserve("ix");
  names.reserve("lds");
  scalars.clear();
  tiles.clear();
  fusedSlots.clear();
  sharedOperands.clear();
  conversions.clear();
  dominance.reset();
}

void LaneEmitter::emitParams(func::FuncOp kernel, ArrayRef<std::string> argNames) {
  line("/// The kernel's arguments, in DSL order (passed by value).");
  line("struct " + paramsType + " {");
  for (auto [i, arg] : llvm::enumerate(kernel.getArguments())) {
    Type t = arg.getType();
    if (isa<GlobalTensorType>(t))
      line("  ak::Tensor " + argNames[i] + ";  // " + typeString(t));
    else
      line("  " + *scalarCType(t) + " " + argNames[i] + ";");
  }
  for (const TmaMap &m : tma.maps)
    line("  ak::TmaMap " + m.field + ";  // TMA boxes of " + std::to_string(m.rows) + " x 64 of " +
         argNames[m.argument] + ", set by " + symbol + "_launch");
  line("  int64_t num_programs[3];  // set by " + symbol + "_launch");
  if (tma.active())
    line("  int32_t tma_copies;  // set by " + symbol + "_launch: 1 when TMA moves every copy_async, 0: cp.async");
  line("};");
  line("");
}

void LaneEmitter::emitArguments(func::FuncOp f, ArrayRef<std::string> argNames) {
  for (auto [i, arg] : llvm::enumerate(f.getArguments())) {
    if (arg.use_empty()) // the grid function reads some arguments, the body others
      continue;
    std::string name = names.unique(argNames[i]);
    scalars[arg] = name;
    if (isa<GlobalTensorType>(arg.getType()))
      line("const ak::Tensor &" + name + " = p." + argNames[i] + ";");
    else
      line("const " + *scalarCType(arg.getType()) + " " + name + " = p." + argNames[i] + ";");
  }
}

LogicalResult LaneEmitter::emitTileSpanChecks(func::FuncOp kernel, ArrayRef<std::string> argNames) {
  LogicalResult ok = success();
  kernel.walk([&](Operation *op) {
    Value tensor;
    ArrayRef<int64_t> shape;
    if (auto load = dyn_cast<LoadOp>(op)) {
      tensor = load.getTensor();
      shape = load.getResult().getType().getShape();
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      tensor = copy.getSrc();
      shape = cast<BufferType>(copy.getDst().getType()).getShape().drop_front(copy.getDstIndices().size());
    } else {
      return;
    }
    // A segment's tiles span no more of it than of the tensor it is cut from.
    while (auto segment = tensor.getDefiningOp<SegmentOp>())
      tensor = segment.getTensor();
    auto arg = dyn_cast<BlockArgument>(tensor);
    if (!arg || arg.getOwner()->getParentOp() != kernel.getOperation()) {
      ok = fail(op, target.backend + " loads tiles of the kernel's tensor arguments only");
      return;
    }
    auto type = cast<GlobalTensorType>(tensor.getType());
    std::string dims;
    for (int64_t d : shape)
      dims += ", " + std::to_string(d);
    const std::string &name = argNames[arg.getArgNumber()];
    line("if (!ak::tileSpanFits<" + *storageType(type.getElementType()) + dims + ">(p." + name + "))", op);
    line("  return {{0, 0, 0}, 0, 0, \"a tile of " + name + " loaded at " + locString(op->getLoc()) +
         " spans 2 GiB or more of it (" + target.backend + " addresses a tile by 32-bit offsets)\"};");
    auto copy = dyn_cast<CopyOp>(op);
    if (target.isHip() && copy && copy.getAsync() && dmaLoadsOf(copy) > 0) {
      line("if (!ak::rowsInDwords<" + *storageType(type.getElementType()) + ">(p." + name + ", " +
               std::to_string(type.getRank()) + "))",
           op);
      line("  return {{0, 0, 0}, 0, 0, \"copy_async at " + locString(op->getLoc()) + " moves tiles of " + name +
           " into LDS in dwords: its rows must start on 4-byte boundaries, with unit column stride\"};");
    }
  });
  return ok;
}

LogicalResult LaneEmitter::emitLaunch(func::FuncOp kernel, func::FuncOp grid, ArrayRef<std::string> argNames,
                                     int64_t ldsBytes) {
  resetScope();
  line("/// Host: the launch of one call, from the grid function @" + grid.getSymName() + ".");
  line("inline ak::LaunchShape " + symbol + "_launch(" + paramsType + " &p) {");
  indent();
  emitArguments(grid, argNames);
  inGridFunction = true;
  LogicalResult ok = emitBlock(grid.getBody().front());
  inGridFunction = false;
  if (failed(ok))
    return failure();
  line("p.num_programs[0] = grid0;");
  line("p.num_programs[1] = grid1;");
  line("p.num_programs[2] = grid2;");
  if (target.checksTileSpans && failed(emitTileSpanChecks(kernel, argNames)))
    return failure();
  if (tma.active()) {
    std::string encoded;
    for (const TmaMap &m : tma.maps)
      encoded += (encoded.empty() ? "" : " &&\n                 ") + std::string("ak::encodeSwizzledRows<") +
                 std::to_string(m.rows) + ">(p." + m.field + ", p." + argNames[m.argument] + ")";
    line("// TMA where it can address every staged tensor; cp.async where it cannot.");
    line("p.tma_copies = int32_t(" + encoded + ");");
  }
  const int64_t slack = target.sharedAlignment() > 16 ? target.sharedAlignment() : 0; // aligning lds up
  line("return {{grid0, grid1, grid2}, " + std::to_string(groups * target.lanes) + ", " +
       std::to_string(ldsBytes + slack) + "};");
  dedent();
  line("}");
  line("");
  return success();
}

LogicalResult LaneEmitter::emitBody(func::FuncOp kernel, ArrayRef<std::string> argNames, int64_t ldsBytes) {
  resetScope();
  const std::string params = "(const " + paramsType + " &p)";
  if (tma.active()) { // each way of copying compiled for itself (the cp.async one takes more registers)
    line("/// One lane of @" + kernel.getSymName() + ": its copy_asyncs TMA copies, or cp.async ones.");
    line("template <bool kTmaCopies>");
    line(target.fn + " void " + symbol + "_staged" + params + " {");
  } else {
    line("/// One lane of @" + kernel.getSymName() + " (tags and tag assertions are compile-time only: erased).");
    line(target.fn + " void " + symbol + "_body" + params + " {");
  }
  indent();
  if (ldsBytes > 0)
    line(target.sharedDeclaration(ldsBytes));
  if (int64_t bytes = (layouts.conversionScratchBytes() + 15) / 16 * 16)
    line("char *const " + target.group + "_scratch = lds + " + std::to_string(scratchOffset) + " + " + target.groupInWorkgroup +
             " * " + std::to_string(bytes) + ";",
         kernel, "this " + target.group + "'s " + target.sharedNoun + " for register layout conversions");
  if (tma.active()) {
    tmaRing = names.unique("tma_ring");
    const std::string r = std::to_string(tma.ringSize);
    line("ak::TmaRing<" + r + "> " + tmaRing + "{reinterpret_cast<uint64_t *>(lds + " + std::to_string(tmaRingOffset) +
             ") + " + r + " * " + target.groupInWorkgroup + "};",
         kernel, "this " + target.group + "'s mbarriers for its TMA copies");
    line("if constexpr (kTmaCopies)");
    line("  " + tmaRing + ".init<" + target.laneGroup + ">();");
  }
  emitArguments(kernel, argNames);
  dominance = std::make_unique<DominanceInfo>(kernel);
  if (failed(emitBlock(kernel.getBody().front())))
    return failure();
  dedent();
  line("}");
  line("");
  if (tma.active()) {
    line("/// One lane of @" + kernel.getSymName() + " (tags and tag assertions are compile-time only: erased).");
    line(target.fn + " void " + symbol + "_body" + params + " {");
    line("  if (p.tma_copies)");
    line("    " + symbol + "_staged<true>(p);");
    line("  else");
    line("    " + symbol + "_staged<false>(p);");
    line("}");
    line("");
  }
  return success();
}

llvm::Expected<std::string> LaneEmitter::emitUnit(func::FuncOp kernel, StringRef sym) {
  symbol = sym.str();
  paramsType = symbol + "_params";
  func::FuncOp grid;
  if (failed(checkSymbol(kernel, sym)) || failed(checkKernel(kernel, grid)))
    return takeError();
  std::vector<std::string> argNames = argumentNames(kernel);
  {
    NameTable fields;
    fields.reserve("num_programs");
    fields.reserve("tma_copies");
    for (std::string &n : argNames)
      n = fields.unique(n);
  }

  func::FuncOp work = copyWithoutTags(kernel);
  llvm::scope_exit eraseWork([&] { work->erase(); });
  fewestDmaLoads = target.isHip() ? fewestDmaLoadsOf(work) : 0;
  if (target.mma == MmaFamily::MmaSync && wgmmaOperands(work, groups))
    target = warpgroupsOf(target);
  tma = planTmaCopies(work, target, argNames);
  {
    NameTable fields;
    for (const char *reserved : {"num_programs", "tma_copies"})
      fields.reserve(reserved);
    for (const std::string &n : argNames)
      fields.reserve(n);
    for (TmaMap &m : tma.maps)
      m.field = fields.unique(m.field);
  }
  std::string layoutError;
  if (!layouts.assign(work, layoutError))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), layoutError);
  fused = fusedTiles(work, layouts, target.readsTileElements);

  line("// " + symbol + ": " + target.language + " kernel generated by argus-gen from @" + kernel.getSymName() +
       " (target " + target.name + ").");
  if (auto ref = kernel->getAttrOfType<StringAttr>(kernel_attr::kReference))
    line("// Reference semantics: " + ref.getValue() + ".");
  line("// " + std::to_string(groups) + " " + target.group + "s per " + target.workgroup + "; each DSL thread is one " +
       target.group + ", each tile lives in");
  line("// its lanes' registers. Generated code: edit the DSL source, not this file.");
  if (tma.active())
    line("// copy_async: TMA copies where the launch can encode every tensor map, else cp.async.");
  else if (!tma.whyNot.empty())
    line("// copy_async: cp.async; " + tma.whyNot + ".");
  line("#include \"" + target.launchHeader + "\"");
  if (tma.active())
    line("#include \"argus_cuda_tma_launch.h\"");
  line("");
  line("namespace ak = " + target.tileNamespace + ";");
  line("");
  emitParams(kernel, argNames);
  resetScope();
  // The buffers' placement structs are device code: they follow the launch.
  int64_t ldsBytes = 0;
  const size_t launchStart = out.size();
  if (failed(planShared(work, ldsBytes)))
    return takeError();
  const std::string placements = out.substr(launchStart);
  out.resize(launchStart);
  if (failed(emitLaunch(work, grid, argNames, ldsBytes)))
    return takeError();
  line("#ifndef ARGUS_GPU_LAUNCH_ONLY  // the parameters and the launch are all a library's host code needs");
  line("#include \"" + target.header + "\"");
  line("");
  out += placements;
  if (failed(emitBody(work, argNames, ldsBytes)))
    return takeError();
  line("#if " + target.deviceCode);
  if (tma.active()) { // two kernels, each allocated its own registers: launch the one tma_copies names
    line("// " + symbol + " when the launch set tma_copies, " + symbol + "_cp_async when it did not.");
    line(target.kernelEntry(groups * target.lanes, symbol, paramsType) + " { " + symbol + "_staged<true>(p); }");
    line(target.kernelEntry(groups * target.lanes, symbol + "_cp_async", paramsType) + " { " + symbol +
         "_staged<false>(p); }");
  } else {
    line(target.kernelEntry(groups * target.lanes, symbol, paramsType) + " { " + symbol + "_body(p); }");
  }
  line("#endif");
  line("#endif // ARGUS_GPU_LAUNCH_ONLY");
  return out;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

SmallVector<std::string> LaneEmitter::declareCarried(ValueRange results, ValueRange sources, Operation *op,
                                                    StringRef note) {
  SmallVector<std::string> carried;
  for (auto [r, source] : llvm::zip(results, sources)) {
    // Named after what the body yields (`acc`), not after the op (a loop's index).
    std::string hint = locName(source.getLoc());
    if (isa<TileType>(r.getType())) {
      auto t = cast<TileType>(r.getType());
      std::string name = names.unique(hint);
      line(*storageType(t.getElementType()) + " " + name + "[" + std::to_string(layoutOf(r).perLane()) + "];",
           op, note);
      tiles[r] = name;
      carried.push_back(name);
      continue;
    }
    std::string name = names.unique(hint);
    line(*scalarCType(r.getType()) + " " + name + ";", op, note);
    scalars[r] = name;
    carried.push_back(name);
  }
  return carried;
}

void LaneEmitter::assignCarried(Operation *op, unsigned firstOperand, ArrayRef<std::string> dsts) {
  struct Move {
    Value value;
    std::string name;    // its C++ name (a converted copy where the carried layout differs)
    int64_t perLane = 0; // tiles: slots per lane of the carried layout
  };
  SmallVector<Move> moves;
  for (unsigned i = 0; i < dsts.size(); ++i) {
    unsigned index = firstOperand + i;
    Value s = op->getOperand(index);
    if (!isa<TileType>(s.getType())) {
      moves.push_back({s, scalar(s)});
      continue;
    }
    const RegLayout *converted = layouts.conversion(op, index);
    moves.push_back({s, operandTile(op, index), (converted ? *converted : layoutOf(s)).perLane()});
  }
  // A destination another move still reads (a swap) sends every source through a temporary.
  bool clobbers = false;
  for (auto [i, m] : llvm::enumerate(moves))
    for (auto [j, d] : llvm::enumerate(dsts))
      clobbers = clobbers || (i != j && m.name == d);
  auto copy = [&](const Move &m, const std::string &to, bool declare) {
    if (to == m.name)
      return;
    if (auto t = dyn_cast<TileType>(m.value.getType())) {
      std::string n = std::to_string(m.perLane);
      if (declare)
        line(*storageType(t.getElementType()) + " " + to + "[" + n + "];");
      line("ak::copy<" + n + ">(" + to + ", " + m.name + ");", op);
    } else {
      line((declare ? "const " + *scalarCType(m.value.getType()) + " " : std::string()) + to + " = " + m.name + ";",
           op);
    }
  };
  if (clobbers)
    for (Move &m : moves) {
      std::string tmp = names.unique("");
      copy(m, tmp, true);
      m.name = tmp;
    }
  for (auto [m, d] : llvm::zip(moves, dsts))
    copy(m, d, false);
}

LogicalResult LaneEmitter::emitFor(scf::ForOp op) {
  Type ivType = op.getInductionVar().getType();
  if (!scalarCType(ivType) || ivType.isInteger(1))
    return fail(op, "unsupported scf.for induction variable type " + typeString(ivType));
  auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
  SmallVector<std::string> carried = declareCarried(op.getResults(), yield.getOperands(), op, "loop-carried");
  assignCarried(op, op.getNumControlOperands(), carried);
  for (auto [arg, name] : llvm::zip(op.getRegionIterArgs(), carried))
    (isa<TileType>(arg.getType()) ? tiles : scalars)[arg] = name;
  std::string iv = nameFor(op.getInductionVar());
  scalars[op.getInductionVar()] = iv;
  line("for (" + *scalarCType(ivType) + " " + iv + " = " + scalar(op.getLowerBound()) + "; " + iv + " < " +
           scalar(op.getUpperBound()) + "; " + iv + " += " + scalar(op.getStep()) + ") {",
       op);
  indent();
  if (failed(emitBlock(*op.getBody())))
    return failure();
  assignCarried(yield, 0, carried);
  dedent();
  line("}");
  return success();
}

LogicalResult LaneEmitter::emitIf(scf::IfOp op) {
  SmallVector<std::string> results =
      declareCarried(op.getResults(), op.getNumResults() ? op.thenYield().getOperands() : ValueRange(), op,
                     "result of the if below");
  line("if (" + scalar(op.getCondition()) + ") {", op);
  indent();
  if (failed(emitBlock(op.getThenRegion().front())))
    return failure();
  if (op.getNumResults())
    assignCarried(op.thenYield(), 0, results);
  dedent();
  Region &elseRegion = op.getElseRegion();
  if (!elseRegion.empty()) {
    line("} else {");
    indent();
    if (failed(emitBlock(elseRegion.front())))
      return failure();
    if (op.getNumResults())
      assignCarried(op.elseYield(), 0, results);
    dedent();
  }
  line("}");
  return success();
}

} // namespace argus::codegen::lanes
