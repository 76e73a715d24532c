//===- EmitLaneOps.cpp - argus ops as the statements of one lane ----------===//
//
// Memory ops call the layout-generic functions of gpu/argus_gpu_tile.h and
// the target's tile header; mma calls ak::mma (CDNA: v_mfma_f32_32x32x8 per
// 32 x 32 block and 8 k; CUDA: mma.sync.m16n8k16 per 16 x 8 block); elementwise
// ops are unrolled loops over the lane's slots, which line up across
// operands because they share a layout (or broadcast one):
//
//   float out[64];
//   ARGUS_GPU_UNROLL for (int ix = 0; ix < 64; ++ix) out[ix] = acc[ix] * alpha;
//
//===----------------------------------------------------------------------===//
#include "LaneEmitter.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace argus::codegen::lanes {
namespace {

std::string joinInts(ArrayRef<int64_t> values) {
  std::string s;
  for (int64_t v : values)
    s += (s.empty() ? "" : ", ") + std::to_string(v);
  return s;
}

Type elementOf(Value v) {
  if (auto t = dyn_cast<TileType>(v.getType()))
    return t.getElementType();
  return v.getType();
}

bool isFloat(Type t) { return isa<FloatType>(t); }

} // namespace

LogicalResult LaneEmitter::emitArgusOp(Operation *op) {
  // A tile operand's value in slot ix, in its compute type; a scalar as is.
  auto element = [&](Value v) {
    if (!isa<TileType>(v.getType()))
      return scalar(v);
    if (auto it = fusedSlots.find(v); it != fusedSlots.end())
      return "(" + it->second + ")";
    return *elementTag(elementOf(v)) + "::load(" + tile(v) + "[ix])";
  };
  // `result[ix] = store(expr)` over the result's slots; a fused result is
  // the expression, rounded to its type, in its user's loop.
  auto elementwise = [&](Value result, const std::string &expr) {
    if (fused.contains(result)) {
      Type t = elementOf(result);
      const std::string tag = *elementTag(t);
      fusedSlots[result] = t.isF32() ? expr : tag + "::load(" + tag + "::store(" + expr + "))";
      return success();
    }
    std::string r = declareTile(result, op);
    line("ARGUS_GPU_UNROLL for (int ix = 0; ix < " + std::to_string(layoutOf(result).perLane()) + "; ++ix) " + r +
             "[ix] = " + *elementTag(elementOf(result)) + "::store(" + expr + ");",
         op);
    return success();
  };
  auto supported = [&](Value v) -> LogicalResult {
    if (!storageType(elementOf(v)))
      return fail(op, target.backend + " has no register type for " + [&] {
        std::string s;
        llvm::raw_string_ostream(s) << elementOf(v);
        return s;
      }());
    return success();
  };
  for (Value r : op->getResults())
    if (isa<TileType>(r.getType()) && failed(supported(r)))
      return failure();

  // Operands this op reads in another layout than their own: converted
  // copies, seen by this op only.
  SmallVector<std::pair<Value, std::string>> ownTiles;
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (const RegLayout *want = layouts.conversion(op, i)) {
      Value v = op->getOperand(i);
      std::string converted = operandTile(op, i);
      ownTiles.push_back({v, tile(v)});
      tiles[v] = converted;
      readAs[v] = want;
    }
  llvm::scope_exit restore([&] {
    for (auto &[v, name] : ownTiles) {
      tiles[v] = name;
      readAs.erase(v);
    }
  });

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ProgramIdOp o) {
        return defineScalar(o.getResult(), "int64_t(" + target.groupIndex + "(" + std::to_string(o.getAxis()) + "))", op,
                            "pid" + std::to_string(o.getAxis()));
      })
      .Case([&](NumProgramsOp o) {
        return defineScalar(o.getResult(), "p.num_programs[" + std::to_string(o.getAxis()) + "]", op);
      })
      .Case([&](ThreadIdOp o) {
        return defineScalar(o.getResult(), "int64_t(" + target.groupInWorkgroup + ")", op, "tid");
      })
      .Case([&](NumThreadsOp o) { return defineScalar(o.getResult(), "int64_t(" + std::to_string(groups) + ")", op); })
      .Case([&](DimOp o) {
        return defineScalar(o.getResult(), scalar(o.getTensor()) + ".shape[" + std::to_string(o.getDim()) + "]", op);
      })
      .Case([&](ReadOp o) {
        auto tensor = cast<GlobalTensorType>(o.getTensor().getType());
        return defineScalar(o.getResult(),
                            "ak::readGlobal<" + *elementTag(tensor.getElementType()) + ">(" +
                                scalar(o.getTensor()) + ", " + indexListOf(o.getIndices()) + ")",
                            op);
      })
      .Case([&](SegmentOp o) { return emitSegment(o, "ak::Tensor"); })
      .Case([&](LoadOp o) {
        auto t = cast<TileType>(o.getResult().getType());
        const std::string tag = *elementTag(t.getElementType());
        const std::string layoutAndShape = layoutOf(o.getResult()).spell() + ", " + tag + ", " + joinInts(t.getShape());
        const std::string source = scalar(o.getTensor()) + ", " + indexListOf(o.getOffsets()) + ", " +
                                   floatLiteral(o.getPadding().convertToDouble(), Builder(op).getF32Type());
        if (fused.contains(o.getResult())) { // read slot by slot in its user's loop
          std::string reader = nameFor(o.getResult());
          line("const ak::TileReader<" + layoutAndShape + "> " + reader + "(" + source + ");", op,
               "read where it is used");
          fusedSlots[o.getResult()] = tag + "::load(" + reader + "(ix))";
          return success();
        }
        std::string r = declareTile(o.getResult(), op);
        line("ak::loadGlobal<" + layoutAndShape + ">(" + r + ", " + source + ");", op);
        return success();
      })
      .Case([&](StoreOp o) {
        auto t = cast<TileType>(o.getValue().getType());
        line("ak::storeGlobal<" + layoutOf(o.getValue()).spell() + ", " + *elementTag(t.getElementType()) + ", " +
                 joinInts(t.getShape()) + ">(" + scalar(o.getTensor()) + ", " + indexListOf(o.getOffsets()) + ", " +
                 tile(o.getValue()) + ");",
             op);
        return success();
      })
      .Case([&](PrefetchOp) {
        line("// prefetch: no lowering on GPUs (a hint only)", op);
        return success();
      })
      .Case([&](AllocOp o) {
        SharedBuffer &b = buffers[o.getResult()];
        auto type = cast<BufferType>(o.getType());
        b.name = nameFor(o.getResult(), "buffer");
        std::string storage = *storageType(type.getElementType());
        line(storage + " *const " + b.name + " = reinterpret_cast<" + storage + " *>(lds + " +
                 std::to_string(b.offsetBytes) + ");",
             op, target.sharedNoun);
        return success();
      })
      .Case<BufferLoadOp, BufferStoreOp, CopyOp>([&](auto o) { return emitSlotAccess(o); })
      .Case([&](WaitOp o) {
        if (target.isHip()) // the n youngest copies hold at least n times the fewest loads
          line("argus::hip::waitVectorMemory<" + std::to_string(o.getPending() * fewestDmaLoads) + ">();", op,
               "wait(" + std::to_string(o.getPending()) + "): " + std::to_string(fewestDmaLoads) +
                   " direct-to-LDS loads per copy at least");
        else if (tma.active()) {
          const std::string tail = std::to_string(o.getPending()) + ", " + target.laneGroup + ">(";
          line("if constexpr (kTmaCopies)", op);
          line("  ak::waitTma<" + tail + tmaRing + ");");
          line("else");
          line("  ak::waitAsync<" + tail + ");");
        } else if (target.asyncCopies)
          line("ak::waitAsync<" + std::to_string(o.getPending()) + ", " + target.laneGroup + ">();", op);
        else
          line("// wait: copies are synchronous here; the DSL's barrier publishes them", op);
        return success();
      })
      .Case([&](BarrierOp) {
        line(target.barrier, op);
        return success();
      })
      .Case([&](PriorityOp o) {
        if (target.isHip())
          line("argus::hip::setPriority<" + std::to_string(o.getLevel()) + ">();", op);
        else
          line("// priority: no lowering on " + target.name + " (a hint only)", op);
        return success();
      })
      .Case([&](ScheduleGroupOp o) {
        if (target.isHip())
          line("argus::hip::scheduleGroup<" + std::to_string(ScheduleGroupOp::maskOf(o.getKind())) + ", " +
                   std::to_string(o.getCount()) + ">();",
               op, o.getKind().str());
        else
          line("// schedule_group: no lowering on " + target.name + " (a hint only)", op);
        return success();
      })
      .Case([&](FullOp o) {
        std::string r = declareTile(o.getResult(), op);
        auto t = cast<TileType>(o.getResult().getType());
        line("ak::fill<" + std::to_string(layoutOf(o.getResult()).perLane()) + ">(" + r + ", " +
                 *elementTag(t.getElementType()) + "::store(" + scalar(o.getValue()) + "));",
             op);
        return success();
      })
      .Case([&](IotaOp o) {
        std::string r = declareTile(o.getResult(), op);
        auto t = cast<TileType>(o.getResult().getType());
        line("ak::iota<" + layoutOf(o.getResult()).spell() + ", " + std::to_string(o.getDim()) + ", " +
                 joinInts(t.getShape()) + ">(" + r + ");",
             op);
        return success();
      })
      .Case([&](MmaOp o) { return emitMma(o); })
      .Case([&](BinaryOp o) -> LogicalResult {
        std::string a = element(o.getLhs()), b = element(o.getRhs());
        bool f = isFloat(elementOf(o.getResult()));
        switch (o.getKind()) {
        case BinaryKind::add: return elementwise(o.getResult(), a + " + " + b);
        case BinaryKind::sub: return elementwise(o.getResult(), a + " - " + b);
        case BinaryKind::mul: return elementwise(o.getResult(), a + " * " + b);
        case BinaryKind::div: return elementwise(o.getResult(), f ? a + " / " + b : "ak::divsi(" + a + ", " + b + ")");
        case BinaryKind::max: return elementwise(o.getResult(), "ak::maximum(" + a + ", " + b + ")");
        case BinaryKind::min: return elementwise(o.getResult(), "ak::minimum(" + a + ", " + b + ")");
        case BinaryKind::pow: break;
        }
        if (!target.isHip()) // CUDA has a device math library
          return elementwise(o.getResult(), "powf(" + a + ", " + b + ")");
        return fail(op, target.backend + " does not lower pow (no device math library)");
      })
      .Case([&](UnaryOp o) -> LogicalResult {
        std::string x = element(o.getOperand());
        if (!elementOf(o.getResult()).isF32() && o.getKind() != UnaryKind::neg && o.getKind() != UnaryKind::abs)
          return fail(op, target.backend + " lowers transcendental unary ops on f32 tiles only");
        switch (o.getKind()) {
        case UnaryKind::neg: return elementwise(o.getResult(), "-" + x);
        case UnaryKind::abs: return elementwise(o.getResult(), "(" + x + " < 0 ? -" + x + " : " + x + ")");
        case UnaryKind::exp: return elementwise(o.getResult(), target.mathPrefix + "expf(" + x + ")");
        case UnaryKind::exp2: return elementwise(o.getResult(), target.mathPrefix + "exp2f(" + x + ")");
        case UnaryKind::log: return elementwise(o.getResult(), target.mathPrefix + "logf(" + x + ")");
        case UnaryKind::sqrt: return elementwise(o.getResult(), target.mathPrefix + "sqrtf(" + x + ")");
        case UnaryKind::rsqrt: return elementwise(o.getResult(), "1.0f / " + target.mathPrefix + "sqrtf(" + x + ")");
        case UnaryKind::sigmoid: return elementwise(o.getResult(), "1.0f / (1.0f + " + target.mathPrefix + "expf(-" + x + "))");
        case UnaryKind::silu: return elementwise(o.getResult(), x + " / (1.0f + " + target.mathPrefix + "expf(-" + x + "))");
        case UnaryKind::recip: return elementwise(o.getResult(), "1.0f / " + x);
        case UnaryKind::tanh: break;
        }
        if (!target.isHip())
          return elementwise(o.getResult(), "tanhf(" + x + ")");
        return fail(op, target.backend + " does not lower tanh (no device math library)");
      })
      .Case([&](CmpOp o) {
        static const char *spelling[] = {" == ", " != ", " < ", " <= ", " > ", " >= "};
        return elementwise(o.getResult(),
                           element(o.getLhs()) + spelling[static_cast<int>(o.getPredicate())] + element(o.getRhs()));
      })
      .Case([&](SelectOp o) {
        return elementwise(o.getResult(), element(o.getCondition()) + " ? " + element(o.getTrueValue()) + " : " +
                                              element(o.getFalseValue()));
      })
      .Case([&](CastOp o) {
        Type from = elementOf(o.getOperand()), to = elementOf(o.getResult());
        std::string x = element(o.getOperand());
        std::string toType = *scalarCType(to);
        if (to.isInteger(1))
          return elementwise(o.getResult(), "(" + x + ") != 0");
        if (isFloat(from) && !isFloat(to))
          return elementwise(o.getResult(), "ak::fptosi<" + toType + ">(" + x + ")");
        return elementwise(o.getResult(), toType + "(" + x + ")");
      })
      .Case([&](ReshapeOp o) {
        tiles[o.getResult()] = tile(o.getOperand()); // same slots: only leading unit dimensions change
        return success();
      })
      .Case([&](TransposeOp o) {
        tiles[o.getResult()] = tile(o.getOperand()); // the operand's layout is the result's, Transposed
        return success();
      })
      .Case([&](ReduceOp o) { return emitReduce(o); })
      .Default([&](Operation *) {
        return fail(op, target.backend + " cannot lower '" + op->getName().getStringRef() + "'");
      });
}

LogicalResult LaneEmitter::emitMma(MmaOp o) {
  auto a = cast<TileType>(o.getA().getType()), b = cast<TileType>(o.getB().getType());
  auto acc = cast<TileType>(o.getAcc().getType());
  Type ea = a.getElementType();
  const bool fp8 = isa<Float8E4M3FNUZType>(ea); // checkKernel let it in only where the target has it
  if (ea != b.getElementType() || !(ea.isBF16() || ea.isF16() || fp8) || !acc.getElementType().isF32())
    return fail(o, target.backend + " lowers mma on bf16 or f16 operands into f32 (" +
                       (target.isHip() ? "v_mfma_f32_32x32x8 / 16x16x16" : "mma.sync.m16n8k16") + ")" +
                       (target.fp8Fnuz ? ", and on fp8_fnuz ones (v_mfma_f32_32x32x16_fp8_fp8 / 16x16x32)" : ""));
  int64_t perLane = layoutOf(o.getResult()).perLane();
  std::string r = declareTile(o.getResult(), o);
  line("ak::copy<" + std::to_string(perLane) + ">(" + r + ", " + tile(o.getAcc()) + ");", o);
  std::string type = ea.isBF16() ? "Bf16" : fp8 ? "Fp8Fnuz" : "F16";
  std::string shape = std::to_string(a.getShape()[0]) + ", " + std::to_string(b.getShape()[0]) + ", " +
                      std::to_string(a.getShape()[1]);
  std::string operands = "(" + r + ", " + tile(o.getA()) + ", " + tile(o.getB()) + ");";
  if (target.mma == MmaFamily::Wgmma) // both operands read in place (wgmmaOperands)
    line("ak::wgmma<argus::cuda::" + type + ", " + shape + ">(" + r + ", " + sharedOperands.lookup(o.getA()) + ", " +
             sharedOperands.lookup(o.getB()) + ");",
         o);
  else if (target.isHip()) // the block size RegisterLayouts chose (32 x 32 x 8 where the shapes allow)
    line("ak::mma<ak::Element::" + type + ", " + std::to_string(layoutOf(o.getResult()).block) + ", " + shape + ">" +
             operands,
         o);
  else
    line("ak::mma<argus::cuda::" + type + ", " + shape + ">" + operands, o);
  return success();
}

LogicalResult LaneEmitter::emitReduce(ReduceOp o) {
  static const char *combine[] = {"ak::ReduceSum", "ak::ReduceMax", "ak::ReduceMin"};
  const RegLayout &in = layoutOf(o.getOperand()), &computed = layouts.reducedIn(o);
  const RegLayout &out = layouts.of(o.getResult());
  auto reduceInto = [&](const std::string &dst) {
    line(std::string("ak::reduceRows<") + in.spell() + ", " + combine[static_cast<int>(o.getKind())] + ">(" + dst +
             ", " + tile(o.getOperand()) + ");",
         o);
  };
  if (computed == out) {
    reduceInto(declareTile(o.getResult(), o));
    return success();
  }
  // The result lives in another layout (a loop carries it so, say): reduce, then convert.
  std::string rows = names.unique("rows");
  line("float " + rows + "[" + std::to_string(computed.perLane()) + "];", o, computed.spell());
  reduceInto(rows);
  std::string r = nameFor(o.getResult());
  emitConvert(r, rows, computed, out, o.getResult().getType().getElementType(), o);
  tiles[o.getResult()] = r;
  return success();
}

/// The direct-to-LDS loads a CDNA copy_async issues (argus_hip_tile.h,
/// kDmaLoads: 256 bytes a load into an unplaced buffer whose slot rows are
/// whole dwords of elements of at most 4 bytes); 0 where it copies
/// synchronously.
int64_t dmaLoadsOf(CopyOp copy) {
  auto type = cast<BufferType>(copy.getDst().getType());
  int64_t bytes = std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
  int64_t elems = 1;
  for (int64_t d : type.getShape().drop_front(copy.getDstIndices().size()))
    elems *= d;
  if (type.getLayout() || bytes > 4 || type.getShape().back() % (4 / bytes) != 0)
    return 0;
  return (elems * bytes + 255) / 256;
}

int64_t fewestDmaLoadsOf(func::FuncOp kernel) {
  std::optional<int64_t> fewest;
  kernel.walk([&](CopyOp copy) {
    if (copy.getAsync())
      fewest = std::min(fewest.value_or(dmaLoadsOf(copy)), dmaLoadsOf(copy));
  });
  return fewest.value_or(0);
}

/// The slot of `buffer` that `indices` select: (its linear index, its element count).
static std::pair<std::string, int64_t> slotOf(LaneEmitter &e, Value buffer, ValueRange indices) {
  auto type = cast<BufferType>(buffer.getType());
  ArrayRef<int64_t> shape = type.getShape();
  std::string slot = "int64_t(0)";
  for (auto [d, index] : llvm::enumerate(indices))
    slot = d == 0 ? e.scalar(index) : "(" + slot + ") * " + std::to_string(shape[d]) + " + " + e.scalar(index);
  int64_t elems = 1;
  for (int64_t d : shape.drop_front(indices.size()))
    elems *= d;
  return {slot, elems};
}

template <class SlotOp>
LogicalResult LaneEmitter::emitSlotAccess(SlotOp o) {
  Operation *op = o.getOperation();
  Value buffer;
  if constexpr (std::is_same_v<SlotOp, CopyOp>)
    buffer = o.getDst();
  else
    buffer = o.getBuffer();
  if (!buffers.count(buffer) || buffers[buffer].name.empty())
    return fail(op, target.backend + " addresses only buffers of argus.alloc in this kernel");
  auto type = cast<BufferType>(buffer.getType());
  std::string storage = *storageType(type.getElementType());
  int64_t cols = type.getShape().back();
  Attribute view;
  ValueRange indices;
  if constexpr (std::is_same_v<SlotOp, CopyOp>)
    indices = o.getDstIndices();
  else {
    indices = o.getIndices();
    view = o.getViewAttr();
  }
  auto [slot, slotElems] = slotOf(*this, buffer, indices);
  (void)view;
  std::string place = view ? viewPlacements.lookup(op) : buffers[buffer].placement;
  auto spelled = [&](const RegLayout &l) {
    return "<" + l.spell() + ", " + std::to_string(cols) + ", " + std::to_string(slotElems) + ", " + place + ">";
  };
  const SharedBuffer &b = buffers[buffer];

  if constexpr (std::is_same_v<SlotOp, BufferLoadOp>) {
    if (layoutOf(o.getResult()).kind == RegLayout::Kind::SharedOperand) {
      std::string name = names.unique(nameFor(o.getResult()) + "_at");
      line("const " + storage + " *const " + name + " = " + b.name + " + (" + slot + ") * " +
               std::to_string(slotElems) + ";",
           op, "read in place by wgmma");
      sharedOperands[o.getResult()] = name;
      return success();
    }
    std::string r = declareTile(o.getResult(), op);
    line("ak::loadShared" + spelled(layoutOf(o.getResult())) + "(" + r + ", " + b.name + ", " + slot + ");", op);
  } else if constexpr (std::is_same_v<SlotOp, BufferStoreOp>) {
    line("ak::storeShared" + spelled(layoutOf(o.getValue())) + "(" + b.name + ", " + slot + ", " +
             tile(o.getValue()) + ");",
         op);
  } else {
    // A copy is a load in 16-byte runs and a store of the same registers.
    SmallVector<int64_t> shape(type.getShape().drop_front(indices.size()));
    auto t = TileType::get(op->getContext(), shape, type.getElementType());
    auto [rows, c] = tileRowsCols(shape);
    RegLayout l;
    l.lanes = target.lanes;
    l.family = target.mma;
    l.rows = rows;
    l.cols = c;
    l.run = std::max<int64_t>(1, 16 / std::max<int64_t>(1, t.getElementType().getIntOrFloatBitWidth() / 8));
    while (l.run > 1 && c % l.run)
      l.run /= 2;
    if (o.getAsync() && target.asyncCopies) {
      const std::string cpAsync = "ak::copyAsync<" + l.spell() + ", " + *elementTag(type.getElementType()) + ", " +
                                  std::to_string(cols) + ", " + std::to_string(slotElems) + ", " + place + ", " +
                                  joinInts(shape) + ">(" + b.name + ", " + slot + ", " + scalar(o.getSrc()) + ", " +
                                  indexListOf(o.getSrcOffsets()) + ");";
      auto map = tma.mapOf.find(op);
      if (map == tma.mapOf.end()) {
        line(cpAsync, op);
        return success();
      }
      line("if constexpr (kTmaCopies)", op);
      line("  ak::copyTma<" + std::to_string(shape[0]) + ", " + target.laneGroup + ">(" + tmaRing + ", " + b.name +
           " + (" + slot + ") * " + std::to_string(slotElems) + ", p." + tma.maps[map->second].field + ", " +
           indexListOf(o.getSrcOffsets()) + ");");
      line("else");
      line("  " + cpAsync);
      return success();
    }
    std::string staged = names.unique("staged");
    line("{", op, o.getAsync() ? "copy async: synchronous here" : "copy");
    indent();
    line(storage + " " + staged + "[" + std::to_string(l.perLane()) + "];");
    line("ak::loadGlobal<" + l.spell() + ", " + *elementTag(type.getElementType()) + ", " + joinInts(shape) +
         ">(" + staged + ", " + scalar(o.getSrc()) + ", " + indexListOf(o.getSrcOffsets()) + ", 0.0f);");
    line("ak::storeShared" + spelled(l) + "(" + b.name + ", " + slot + ", " + staged + ");");
    dedent();
    line("}");
  }
  return success();
}

std::string LaneEmitter::indexListOf(ValueRange values) {
  std::string s;
  for (Value v : values)
    s += (s.empty() ? "" : ", ") + scalar(v);
  return "{" + s + "}";
}

} // namespace argus::codegen::lanes
