//===- EmitTileOps.cpp - argus ops as calls and loops ---------------------===//
//
// Memory ops and mma become calls into argus_cpu_kernel.h (they need masking,
// packing or intrinsics); elementwise ops become a plain loop over the tile
// that g++ vectorises, reading operands through their broadcast index:
//
//   for (int64_t ix = 0; ix < 16 * 16; ++ix) scaled[ix] = alpha * acc[ix];
//   for (int64_t ix0 = 0; ix0 < 16; ++ix0)
//     for (int64_t ix1 = 0; ix1 < 16; ++ix1)
//       s[ix0 * 16 + ix1] = with_c[ix0 * 16 + ix1] + bv[ix1];
//
// bf16/f16 elements are widened to float for the arithmetic and rounded back
// on the store (ak::bf16::load / ak::bf16::store, i.e. argus_numerics.h).
//
//===----------------------------------------------------------------------===//
#include "CpuEmitter.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace argus::codegen::cpu {
namespace {

std::string joinDims(ArrayRef<int64_t> shape, StringRef sep) {
  std::string s;
  for (int64_t d : shape)
    s += (s.empty() ? "" : sep.str()) + std::to_string(d);
  return s;
}

std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

} // namespace

/// Element in memory -> value in arithmetic.
std::string loadConv(Type elem, const std::string &e) {
  if (elem.isBF16())
    return "ak::bf16::load(" + e + ")";
  if (elem.isF16())
    return "ak::f16::load(" + e + ")";
  if (elem.isInteger(1))
    return "(" + e + " != 0)";
  return e;
}

/// Value in arithmetic -> element in memory.
std::string storeConv(Type elem, const std::string &e) {
  if (elem.isBF16())
    return "ak::bf16::store(" + e + ")";
  if (elem.isF16())
    return "ak::f16::store(" + e + ")";
  if (elem.isInteger(1))
    return "uint8_t(" + e + ")";
  return e;
}

namespace {

enum class Access { Compute, Storage };

//===----------------------------------------------------------------------===//
// Slot views (buffer_load / buffer_store `view`)
//===----------------------------------------------------------------------===//

/// Where element `ix` of a slot accessed through `view` lives in the CPU's
/// row-major buffer, relative to the slot: the CPU stores logical element j
/// of a buffer at j whatever its own layout, so the interpreter's physical
/// offset `view(ix)` must be mapped back through the buffer's own layout.
/// That is done for buffers without a layout and for a swizzle (an
/// involution) whose period divides the slot; "" otherwise, with `why` set.
/// `plain` is set when the view is the identity on the CPU (a view equal to
/// the buffer's own swizzle): the access is then an ordinary one.
std::string slotViewIndex(BufferType buffer, int64_t slotElems, Attribute view, bool &plain,
                          std::string &why) {
  plain = false;
  Attribute own = buffer.getLayout();
  if (!own)
    return layoutExpr(view, "ix");
  auto swizzle = dyn_cast<SwizzleAttr>(own);
  int64_t periodBits =
      swizzle ? swizzle.getBits() + swizzle.getBase() + std::abs(swizzle.getShift()) : 0;
  if (!swizzle || periodBits > 48 || slotElems % (int64_t(1) << periodBits) != 0) {
    llvm::raw_string_ostream(why)
        << "the CPU backend stores buffers row-major and cannot place a slot view " << view
        << " on a buffer with its own layout " << own
        << " (supported: no buffer layout, or a buffer swizzle whose period divides the slot)";
    return "";
  }
  if (view == own) {
    plain = true;
    return "ix";
  }
  return layoutExpr(own, layoutExpr(view, "ix"));
}

/// The dimensions of `shape` other than 1.
SmallVector<int64_t> nonUnitDims(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> dims;
  for (int64_t d : shape)
    if (d != 1)
      dims.push_back(d);
  return dims;
}

/// True when a reshape only drops or adds dimensions of size 1.
bool dropsUnitDimsOnly(ReshapeOp r) {
  return nonUnitDims(r.getOperand().getType().getShape()) == nonUnitDims(r.getType().getShape());
}

/// True when transpose `t` need not be materialised: it is 2-D and only read
/// as the b operand of mma ops of its block, which read its operand in place
/// instead (ak::mma_kn).
bool isFoldedIntoMma(TransposeOp t) {
  if (t.getType().getRank() != 2 || t->use_empty())
    return false;
  for (OpOperand &use : t->getUses()) {
    auto mma = dyn_cast<MmaOp>(use.getOwner());
    if (!mma || mma->getBlock() != t->getBlock() || use.getOperandNumber() != 1)
      return false;
  }
  return true;
}

/// The shape in which `m` reads its b operand: N x K, or K x N when b is a
/// transpose folded into it (ak::mma_kn reads the transpose's operand).
ArrayRef<int64_t> bReadShape(MmaOp m) {
  if (auto t = m.getB().getDefiningOp<TransposeOp>(); t && isFoldedIntoMma(t))
    return t.getOperand().getType().getShape();
  return m.getB().getType().getShape();
}

/// The mma ops after prefetch `p` in its block, at any depth, that read b as
/// a tile of the prefetched shape (unit dimensions aside) and element type:
/// the products that can fetch its lines as they read b (ak::tile_shadow).
/// Tiles of run-time sizes have none.
SmallVector<MmaOp> shadowingProducts(PrefetchOp p) {
  SmallVector<MmaOp> products;
  if (llvm::any_of(p.getShape(), ShapedType::isDynamic))
    return products;
  const SmallVector<int64_t> tile = nonUnitDims(p.getShape());
  Type elem = p.getTensor().getType().getElementType();
  for (Operation *next = p->getNextNode(); next; next = next->getNextNode())
    next->walk([&](MmaOp m) {
      if (m.getB().getType().getElementType() == elem && nonUnitDims(bReadShape(m)) == tile)
        products.push_back(m);
    });
  return products;
}

/// The mma whose accumulator is `mul`'s result, when `mul` scales an M x N
/// f32 tile by an M x 1 one (each row by its own factor) just before that mma
/// reads it: attention's acc * alpha + p v. Only reshapes and transposes
/// folded into an mma (no code) may lie between, so the factors still sit
/// in their slot when the mma runs.
MmaOp rowScaledProduct(BinaryOp mul) {
  if (mul.getKind() != BinaryKind::mul || !mul->hasOneUse())
    return {};
  auto mma = dyn_cast<MmaOp>(*mul->getUsers().begin());
  if (!mma || mma.getAcc() != mul.getResult() || mma->getBlock() != mul->getBlock())
    return {};
  TileType out = mul.getType();
  auto rowFactors = [&](Value v) {
    auto t = dyn_cast<TileType>(v.getType());
    return t && t.getRank() == 2 && t.getShape()[0] == out.getShape()[0] && t.getShape()[1] == 1 &&
           t.getElementType().isF32();
  };
  if (!out.getElementType().isF32() || out.getRank() != 2 ||
      !((mul.getLhs().getType() == out && rowFactors(mul.getRhs())) ||
        (mul.getRhs().getType() == out && rowFactors(mul.getLhs()))))
    return {};
  for (Operation *between = mul->getNextNode(); between != mma.getOperation(); between = between->getNextNode()) {
    auto transpose = dyn_cast<TransposeOp>(between);
    if (!isa<ReshapeOp>(between) && !(transpose && isFoldedIntoMma(transpose)))
      return {};
  }
  return mma;
}

/// Whether every use of a constant tile is the accumulator a product starts
/// from (not its a or b): each product then fills its own tile.
bool onlyStartsProducts(FullOp full) {
  return !full->use_empty() && llvm::all_of(full->getUses(), [](OpOperand &use) {
    auto mma = dyn_cast<MmaOp>(use.getOwner());
    return mma && use.get() == mma.getAcc() && mma.getA() != use.get() && mma.getB() != use.get();
  });
}

/// The multiply by an f32 scalar that is the only use of `mma`'s product,
/// when that product starts from +0 (a constant start): ak::mma_scaled
/// computes both, its register blocks starting from zeros and scaling as
/// they store (attention's scores, s = mma(q, k, zeros) * scale: bf16
/// prefill 1.01-1.03x). The factor must be defined before the product.
BinaryOp scaledProductMul(MmaOp mma) {
  auto full = mma.getAcc().getDefiningOp<FullOp>();
  if (!full || !onlyStartsProducts(full) || !matchPattern(full.getValue(), m_PosZeroFloat()) || !mma->hasOneUse())
    return {};
  auto mul = dyn_cast<BinaryOp>(*mma->getUsers().begin());
  if (!mul || mul.getKind() != BinaryKind::mul || mul->getBlock() != mma->getBlock() ||
      mul.getType() != mma.getType())
    return {};
  Value factor = mul.getLhs() == mma.getResult() ? mul.getRhs() : mul.getLhs();
  if (isa<TileType>(factor.getType()) || !factor.getType().isF32())
    return {};
  Operation *def = factor.getDefiningOp();
  if (def && def->getBlock() == mma->getBlock() && !def->isBeforeInBlock(mma))
    return {};
  return mul;
}

/// The store that puts a buffer slot's loaded tile back, when the slot can
/// hold the tile while it is updated (ak::mma adding to it, attention's
/// accumulator per head): a store later in the load's block to the same
/// slot (the same index values), every use of the load before it, and
/// nothing else touching the buffer in between.
BufferStoreOp storedBackInPlace(BufferLoadOp load) {
  if (load.getViewAttr())
    return {};
  Block *block = load->getBlock();
  BufferStoreOp back;
  for (Operation *it = load->getNextNode(); it && !back; it = it->getNextNode()) {
    if (auto s = dyn_cast<BufferStoreOp>(it); s && s.getBuffer() == load.getBuffer()) {
      if (s.getViewAttr() || s.getIndices() != load.getIndices() || s.getValue().getType() != load.getType())
        return {};
      back = s;
      break;
    }
    bool touches = false;
    it->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        touches = touches || operand == load.getBuffer();
    });
    if (touches)
      return {};
  }
  if (!back)
    return {};
  for (Operation *user : load->getUsers()) {
    Operation *top = user;
    while (top && top->getBlock() != block)
      top = top->getParentOp();
    if (!top || !top->isBeforeInBlock(back))
      return {};
  }
  return back;
}

/// True when every read of tile `v` is by an mma of `block` as its a or b
/// operand: directly, through unit-dimension reshapes, or through a folded
/// transpose. `last` is moved to the latest of those mma ops.
bool readOnlyAsMmaOperand(Value v, Block *block, Operation *&last) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (user->getBlock() != block)
      return false;
    if (auto mma = dyn_cast<MmaOp>(user)) {
      if (use.getOperandNumber() == 2) // the accumulator is written
        return false;
      if (last->isBeforeInBlock(mma))
        last = mma;
    } else if (auto reshape = dyn_cast<ReshapeOp>(user)) {
      if (!dropsUnitDimsOnly(reshape) || !readOnlyAsMmaOperand(reshape, block, last))
        return false;
    } else if (auto transpose = dyn_cast<TransposeOp>(user)) {
      if (!isFoldedIntoMma(transpose) || !readOnlyAsMmaOperand(transpose, block, last))
        return false;
    } else {
      return false;
    }
  }
  return true;
}

/// True when a global load may be read where it lies (ak::load_ref) instead
/// of copied: its tile is rows x columns (every other dimension 1), only mma
/// reads it (see readOnlyAsMmaOperand), and nothing stores to the tensor
/// before the last of those mma ops.
bool isReadInPlaceByMma(LoadOp load) {
  ArrayRef<int64_t> shape = load.getType().getShape();
  if (shape.empty() || load->use_empty() ||
      llvm::count_if(shape.drop_back(), [](int64_t d) { return d != 1; }) > 1)
    return false;
  Operation *last = load;
  if (!readOnlyAsMmaOperand(load, load->getBlock(), last))
    return false;
  bool stored = false;
  for (Operation *it = load->getNextNode(); it != last; it = it->getNextNode())
    it->walk([&](StoreOp s) { stored = stored || s.getTensor() == load.getTensor(); });
  return !stored;
}

/// The load that `m` reads its b operand from in place (through reshapes
/// and a transpose folded into it), or null.
LoadOp bLoadReadInPlace(MmaOp m) {
  Value v = m.getB();
  if (auto t = v.getDefiningOp<TransposeOp>(); t && isFoldedIntoMma(t))
    v = t.getOperand();
  while (auto r = v.getDefiningOp<ReshapeOp>())
    v = r.getOperand();
  auto load = v.getDefiningOp<LoadOp>();
  return load && isReadInPlaceByMma(load) ? load : LoadOp();
}

/// True when `v` is computed from the program id of an axis past 0. Loop
/// counters count as their own: a tile of the walk is the same tile whoever
/// walks to it.
bool usesInnerProgramIds(Value v) {
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    Operation *def = x.getDefiningOp();
    if (!seen.insert(x).second || !def)
      continue;
    if (auto pid = dyn_cast<ProgramIdOp>(def); pid && pid.getAxis() != 0)
      return true;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// True when consecutive program instances read the same tiles as `m`'s b,
/// an f32 or bf16 product's (the operands whose packed panels the runtime
/// keeps): a
/// kernel argument read in place, which the kernel never stores to, at
/// offsets that no program id but axis 0's moves (the CPU grid's outer loop:
/// consecutive instances differ in the inner axes), in a kernel whose
/// instances do differ along an inner axis. Prefill attention's keys and
/// values (one KV head's for all its query blocks and heads), not a GEMM's
/// weights (a new column tile each instance). The thread then keeps the
/// panels it packs for the launch (ak::pack_reuse).
bool reusesPackedB(MmaOp m) {
  LoadOp load = bLoadReadInPlace(m);
  Type element = m.getA().getType().getElementType();
  if (!load || !(element.isBF16() || element.isF32()) || !isa<BlockArgument>(load.getTensor()))
    return false;
  bool stored = false, innerAxes = false;
  m->getParentOfType<func::FuncOp>().walk([&](Operation *op) {
    if (auto s = dyn_cast<StoreOp>(op))
      stored = stored || s.getTensor() == load.getTensor();
    if (auto pid = dyn_cast<ProgramIdOp>(op))
      innerAxes = innerAxes || pid.getAxis() != 0;
  });
  return !stored && innerAxes && llvm::none_of(load.getOffsets(), usesInnerProgramIds);
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise loops
//===----------------------------------------------------------------------===//

/// dst = combine(operands) over the result's shape, with numpy broadcasting.
static void emitElementwise(CpuEmitter &em, Operation *op, TileType result, const std::string &dst,
                            ArrayRef<std::pair<Value, Access>> operands,
                            llvm::function_ref<std::string(ArrayRef<std::string>)> combine,
                            bool resultIsStorage) {
  ArrayRef<int64_t> shape = result.getShape();
  bool flat = llvm::all_of(operands, [&](auto &o) {
    auto t = dyn_cast<TileType>(o.first.getType());
    return !t || t.getShape() == shape;
  });
  int64_t rank = static_cast<int64_t>(shape.size());

  auto access = [&](Value v, Access mode, const std::string &index) -> std::string {
    if (auto t = dyn_cast<TileType>(v.getType())) {
      std::string e = em.slots.nameOf(v) + "[" + index + "]";
      return mode == Access::Compute ? loadConv(t.getElementType(), e) : e;
    }
    std::string s = em.scalar(v);
    return mode == Access::Compute ? s : storeConv(v.getType(), s);
  };
  auto finish = [&](const std::string &e) {
    return resultIsStorage ? e : storeConv(result.getElementType(), e);
  };

  if (flat) {
    SmallVector<std::string> args;
    for (auto [v, mode] : operands)
      args.push_back(access(v, mode, "ix"));
    em.line("for (int64_t ix = 0; ix < " + joinDims(shape, " * ") + "; ++ix) " + dst +
                "[ix] = " + finish(combine(args)) + ";",
            op);
    return;
  }
  // Row-major index of the result and broadcast index of each operand.
  auto indexOf = [&](ArrayRef<int64_t> opShape) {
    std::string idx;
    int64_t offset = rank - static_cast<int64_t>(opShape.size());
    int64_t stride = 1;
    for (int64_t j = static_cast<int64_t>(opShape.size()) - 1; j >= 0; --j) {
      if (opShape[j] != 1) {
        std::string term = "ix" + std::to_string(j + offset);
        if (stride != 1)
          term += " * " + std::to_string(stride);
        idx = idx.empty() ? term : term + " + " + idx;
      }
      stride *= opShape[j];
    }
    return idx.empty() ? std::string("0") : idx;
  };
  SmallVector<std::string> args;
  for (auto [v, mode] : operands) {
    auto t = dyn_cast<TileType>(v.getType());
    args.push_back(access(v, mode, t ? indexOf(t.getShape()) : ""));
  }
  for (int64_t d = 0; d < rank; ++d) {
    std::string ix = "ix" + std::to_string(d);
    em.line(std::string(2 * d, ' ') + "for (int64_t " + ix + " = 0; " + ix + " < " +
                std::to_string(shape[d]) + "; ++" + ix + ")",
            d == 0 ? op : nullptr);
  }
  em.line(std::string(2 * rank, ' ') + dst + "[" + indexOf(shape) + "] = " + finish(combine(args)) +
          ";");
}

std::string binaryExpr(BinaryKind kind, Type elem, const std::string &x, const std::string &y) {
  if (elem.isInteger(1)) {
    switch (kind) {
    case BinaryKind::add:
    case BinaryKind::sub: return x + " != " + y;
    case BinaryKind::mul:
    case BinaryKind::min: return x + " && " + y;
    case BinaryKind::max: return x + " || " + y;
    default: return "";
    }
  }
  switch (kind) {
  case BinaryKind::add: return x + " + " + y;
  case BinaryKind::sub: return x + " - " + y;
  case BinaryKind::mul: return x + " * " + y;
  case BinaryKind::div: return isa<FloatType>(elem) ? x + " / " + y : "ak::div(" + x + ", " + y + ")";
  case BinaryKind::max: return "ak::maximum(" + x + ", " + y + ")";
  case BinaryKind::min: return "ak::minimum(" + x + ", " + y + ")";
  case BinaryKind::pow: return "ak::pow(" + x + ", " + y + ")";
  }
  return "";
}

std::string unaryExpr(UnaryKind kind, const std::string &x) {
  switch (kind) {
  case UnaryKind::neg: return "-" + x;
  default: return "ak::" + stringifyUnaryKind(kind).str() + "(" + x + ")";
  }
}

/// The runtime's whole-tile form of a unary op on f32 tiles, a vector
/// register at a time (a loop calling the scalar function would not
/// vectorise: softmax's exp, MoE's silu), or null.
static const char *vectorTileFunction(UnaryKind kind) {
  switch (kind) {
  case UnaryKind::exp: return "exp_tile";
  case UnaryKind::silu: return "silu_tile";
  case UnaryKind::sigmoid: return "sigmoid_tile";
  default: return nullptr;
  }
}

std::string cmpExpr(CmpPredicate p, const std::string &x, const std::string &y) {
  switch (p) {
  case CmpPredicate::eq: return x + " == " + y;
  case CmpPredicate::ne: return x + " != " + y;
  case CmpPredicate::lt: return x + " < " + y;
  case CmpPredicate::le: return x + " <= " + y;
  case CmpPredicate::gt: return x + " > " + y;
  case CmpPredicate::ge: return x + " >= " + y;
  }
  return "false";
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool CpuEmitter::foldRowScale(BinaryOp mul) {
  MmaOp mma = rowScaledProduct(mul);
  if (!mma)
    return false;
  const bool lhsIsTile = mul.getLhs().getType() == mul.getType();
  Value tile = lhsIsTile ? mul.getLhs() : mul.getRhs(), factors = lhsIsTile ? mul.getRhs() : mul.getLhs();
  SlotTable::Id id = slots.of(tile);
  if (id < 0 || !slots.canOverwrite(id, mul, "float", mul.getType().getNumElements()))
    return false;
  slots.place(mul, id);
  rowScaleOf[mma] = slots.nameOf(factors);
  line("// " + slots.nameOf(mul) + " scaled by " + slots.nameOf(factors) + " in the next product's epilogue", mul);
  return true;
}

LogicalResult CpuEmitter::emitArgusOp(Operation *op) {
  if (fusedOps.contains(op))
    return success();
  if (auto mul = dyn_cast<BinaryOp>(op); mul && foldRowScale(mul))
    return success();
  if (bool fused = false; failed(emitRowPipeline(op, fused)))
    return failure();
  else if (fused)
    return success();
  // Every tile this op touches must have an element type the backend stores.
  auto checkTile = [&](Type t) -> LogicalResult {
    auto tile = dyn_cast<TileType>(t);
    if (!tile)
      return success();
    if (!dtypeTag(tile.getElementType()))
      return fail(op, "the CPU backend has no storage type for tile elements of type " +
                          typeStr(tile.getElementType()));
    if (tile.getRank() < 1)
      return fail(op, "expected a tile of rank >= 1, got " + typeStr(tile));
    return success();
  };
  for (Type t : op->getOperandTypes())
    if (failed(checkTile(t)))
      return failure();
  for (Type t : op->getResultTypes())
    if (failed(checkTile(t)))
      return failure();

  auto offsets = [&](ValueRange vs) {
    std::string s;
    for (Value v : vs)
      s += (s.empty() ? "" : ", ") + scalar(v);
    return "{" + s + "}";
  };
  auto tagOf = [](Type elem) { return *dtypeTag(elem); };
  auto elemsOf = [](TileType t) { return std::to_string(t.getNumElements()); };
  /// `buf + (flattened leading indices) * slot size`, and the slot's shape.
  auto bufferSlot = [&](Value buffer, ValueRange indices) -> std::string {
    auto type = cast<BufferType>(buffer.getType());
    const BufferInfo &info = buffers[buffer];
    if (indices.empty())
      return info.name;
    int64_t slotElems = 1;
    for (int64_t d : type.getShape().drop_front(indices.size()))
      slotElems *= d;
    std::string flat = scalar(indices[0]);
    for (size_t i = 1; i < indices.size(); ++i)
      flat = "(" + flat + ") * " + std::to_string(type.getShape()[i]) + " + " + scalar(indices[i]);
    return info.name + " + (" + flat + ") * " + std::to_string(slotElems);
  };

  LogicalResult ok = success();
  llvm::TypeSwitch<Operation *>(op)
      //===--- ids and shapes ------------------------------------------===//
      .Case([&](DimOp d) {
        ok = defineScalar(d, scalar(d.getTensor()) + ".shape[" + std::to_string(d.getDim()) + "]", op);
      })
      .Case([&](ProgramIdOp p) {
        ok = defineScalar(p, "pid" + std::to_string(p.getAxis()), op, "p" + std::to_string(p.getAxis()));
      })
      .Case([&](NumProgramsOp p) {
        ok = defineScalar(p, "npid" + std::to_string(p.getAxis()), op, "np" + std::to_string(p.getAxis()));
      })
      .Case([&](ThreadIdOp t) { ok = defineScalar(t, "int64_t(0)", op, "tid"); })
      .Case([&](NumThreadsOp t) { ok = defineScalar(t, "int64_t(1)", op, "nthreads"); })
      //===--- global memory -------------------------------------------===//
      .Case([&](PrefetchOp p) {
        std::string offsets, shape;
        for (Value o : p.getOffsets())
          offsets += (offsets.empty() ? "" : ", ") + scalar(o);
        for (int64_t d : p.getShape()) // -1: the whole dimension
          shape += (shape.empty() ? "" : ", ") + std::to_string(ShapedType::isDynamic(d) ? -1 : d);
        std::optional<std::string> tag = dtypeTag(p.getTensor().getType().getElementType());
        if (!tag) {
          ok = fail(op, "the CPU backend cannot prefetch tensors of this element type");
          return;
        }
        const std::string call = "<" + *tag + ", " + std::to_string(p.getLevel()) + ">(" + scalar(p.getTensor()) +
                                 ", {" + offsets + "}, {" + shape + "});";
        SmallVector<MmaOp> products = shadowingProducts(p);
        if (products.empty()) {
          line("ak::prefetch" + call, op);
          return;
        }
        // The product after it fetches the lines as it reads its b: spread
        // over the product rather than in one burst before it.
        const std::string next = names.unique("next_tile");
        line("ak::tile_shadow<" + std::to_string(p.getLevel()) + "> " + next + " = ak::prefetch_shadow" + call, op,
             "fetched by the next product of its shape as it reads b");
        for (MmaOp m : products) // a later prefetch claims the products after it
          shadowOf[m] = next;
      })
      .Case([&](SegmentOp sg) { ok = emitSegment(sg, "argus_cpu_tensor"); })
      .Case([&](ReadOp r) {
        std::string indices;
        for (Value i : r.getIndices())
          indices += (indices.empty() ? "" : ", ") + scalar(i);
        std::optional<std::string> tag = dtypeTag(r.getType());
        if (!tag) {
          ok = fail(op, "the CPU backend cannot read scalars of this element type");
          return;
        }
        ok = defineScalar(r, "ak::read<" + *tag + ">(" + scalar(r.getTensor()) + ", {" + indices + "})", op);
      })
      .Case([&](LoadOp l) {
        TileType t = l.getType();
        std::string pad = floatLiteral(l.getPadding().convertToDouble(), Float64Type::get(op->getContext()));
        std::string call = "<" + tagOf(t.getElementType()) + ", " + joinDims(t.getShape(), ", ") + ">(";
        std::string from = ", " + scalar(l.getTensor()) + ", " + offsets(l.getOffsets()) + ", /*padding=*/" + pad + ");";
        if (isReadInPlaceByMma(l)) {
          std::string storage = *storageCType(t.getElementType());
          std::string name = nameFor(l), scratch = names.unique(name + "_copy");
          if (arenaSlotsTaken < kArenaSlots) {
            // Off the stack: the copy is rarely made and as large as the tile.
            line("const ak::arena_scratch<" + storage + ", " + elemsOf(t) + ", " + std::to_string(arenaSlotsTaken++) +
                     "> " + scratch + "{};",
                 op, "the thread's buffer, used only when the tile is not a plain window of the tensor");
          } else {
            line("alignas(64) " + storage + " " + scratch + "[" + elemsOf(t) + "];", op,
                 "used only when the tile is not a plain window of the tensor");
            slots.create(scratch, storage, t.getNumElements()); // counts towards the stack budget
          }
          line("const ak::tile_ref<" + storage + "> " + name + " = ak::load_ref" + call + scratch + from, op,
               "an mma operand: read in place when in bounds");
          slots.place(l, slots.create(name, storage, t.getNumElements(), /*readOnly=*/true, /*tileRef=*/true));
          return;
        }
        declareTile(l, op, l.getUnmasked() ? "unmasked: in bounds by promise, masked anyway" : "");
        line("ak::load" + call + slots.nameOf(l) + from, op);
      })
      .Case([&](StoreOp s) {
        TileType t = s.getValue().getType();
        line("ak::store<" + tagOf(t.getElementType()) + ", " + joinDims(t.getShape(), ", ") + ">(" +
                 slots.nameOf(s.getValue()) + ", " + scalar(s.getTensor()) + ", " +
                 offsets(s.getOffsets()) + ");",
             op, s.getUnmasked() ? "unmasked: in bounds by promise, masked anyway" : "");
      })
      //===--- buffers -------------------------------------------------===//
      .Case([&](AllocOp a) {
        BufferType t = a.getType();
        std::optional<std::string> storage = storageCType(t.getElementType());
        if (!storage) {
          ok = fail(op, "the CPU backend has no storage type for buffer elements of type " +
                            typeStr(t.getElementType()));
          return;
        }
        std::string name = nameFor(a, "buf");
        std::string note = stringifyMemorySpace(t.getSpace()).str() + " buffer";
        if (t.getLayout())
          note += "; its layout " + [&] { std::string s; llvm::raw_string_ostream(s) << t.getLayout(); return s; }() +
                  " is a GPU bank-conflict detail: row-major on the CPU";
        line("alignas(64) " + *storage + " " + name + "[" + joinDims(t.getShape(), " * ") + "];", op, note);
        buffers[a] = BufferInfo{name, *storage};
      })
      .Case([&](CopyOp c) {
        auto bt = cast<BufferType>(c.getDst().getType());
        ArrayRef<int64_t> tileShape = bt.getShape().drop_front(c.getDstIndices().size());
        line("ak::load<" + tagOf(bt.getElementType()) + ", " + joinDims(tileShape, ", ") + ">(" +
                 bufferSlot(c.getDst(), c.getDstIndices()) + ", " + scalar(c.getSrc()) + ", " +
                 offsets(c.getSrcOffsets()) + ", /*padding=*/0.0);",
             op, std::string(c.getAsync() ? "async copy: synchronous on the CPU" : "") +
                     (c.getAsync() && c.getUnmasked() ? "; " : "") +
                     (c.getUnmasked() ? "unmasked: in bounds by promise, masked anyway" : ""));
      })
      .Case([&](WaitOp w) {
        line("// wait(" + std::to_string(w.getPending()) + "): copies are synchronous on the CPU", op);
      })
      .Case([&](BarrierOp) { line("// barrier: one thread per program instance on the CPU", op); })
      .Case<PriorityOp, ScheduleGroupOp>([&](Operation *) { line("// a GPU scheduling hint: nothing on the CPU", op); })
      .Case([&](BufferLoadOp l) {
        TileType t = l.getType();
        std::string src = bufferSlot(l.getBuffer(), l.getIndices());
        if (Attribute viewAttr = l.getViewAttr()) {
          bool plain;
          std::string why;
          std::string index = slotViewIndex(l.getBuffer().getType(), t.getNumElements(), viewAttr, plain, why);
          if (index.empty()) {
            ok = fail(op, why);
            return;
          }
          if (!plain) {
            declareTile(l, op, "");
            std::string note;
            llvm::raw_string_ostream(note) << "through the view " << viewAttr;
            line("for (int64_t ix = 0; ix < " + elemsOf(t) + "; ++ix) " + slots.nameOf(l) + "[ix] = (" + src +
                     ")[" + index + "];",
                 op, note);
            return;
          }
        }
        // A view into the buffer (no copy) when every use is a plain op of this
        // block and the buffer is not written before the last one.
        Block *block = op->getBlock();
        Operation *last = op;
        bool view = true;
        for (Operation *user : l->getUsers()) {
          if (user->getBlock() != block || user->getNumRegions() || user->hasTrait<OpTrait::IsTerminator>() ||
              isa<ReshapeOp>(user)) {
            view = false;
            break;
          }
          if (last->isBeforeInBlock(user))
            last = user;
        }
        for (Operation *it = op->getNextNode(); view && it && it != last->getNextNode(); it = it->getNextNode())
          it->walk([&](Operation *inner) {
            if (auto c = dyn_cast<CopyOp>(inner); c && c.getDst() == l.getBuffer())
              view = false;
            if (auto s = dyn_cast<BufferStoreOp>(inner); s && s.getBuffer() == l.getBuffer())
              view = false;
          });
        if (view) {
          std::string name = nameFor(l);
          line("const " + *storageCType(t.getElementType()) + " *" + name + " = " + src + ";", op,
               "view of the buffer slot: no copy");
          slots.place(l, slots.create(name, *storageCType(t.getElementType()), t.getNumElements(),
                                      /*readOnly=*/true));
          return;
        }
        if (BufferStoreOp back = storedBackInPlace(l)) {
          std::string name = nameFor(l);
          line(*storageCType(t.getElementType()) + " *" + name + " = " + src + ";", op,
               "the buffer slot itself: updated in place until it is stored back");
          SlotTable::Id id = slots.create(name, *storageCType(t.getElementType()), t.getNumElements());
          slots.setStoreBack(id, back);
          slots.place(l, id);
          return;
        }
        declareTile(l, op, "");
        line("ak::copy<" + elemsOf(t) + ">(" + slots.nameOf(l) + ", " + src + ");", op);
      })
      .Case([&](BufferStoreOp s) {
        TileType t = s.getValue().getType();
        if (Attribute viewAttr = s.getViewAttr()) {
          bool plain;
          std::string why;
          std::string index = slotViewIndex(s.getBuffer().getType(), t.getNumElements(), viewAttr, plain, why);
          if (index.empty()) {
            ok = fail(op, why);
            return;
          }
          if (!plain) {
            std::string note;
            llvm::raw_string_ostream(note) << "through the view " << viewAttr;
            line("for (int64_t ix = 0; ix < " + elemsOf(t) + "; ++ix) (" + bufferSlot(s.getBuffer(), s.getIndices()) +
                     ")[" + index + "] = " + slots.nameOf(s.getValue()) + "[ix];",
                 op, note);
            return;
          }
        }
        if (SlotTable::Id id = slots.of(s.getValue()); id >= 0 && slots.get(id).storeBack == op) {
          line("// " + slots.nameOf(s.getValue()) + " is the buffer slot: stored in place", op);
          return;
        }
        line("ak::copy<" + elemsOf(t) + ">(" + bufferSlot(s.getBuffer(), s.getIndices()) + ", " +
                 slots.nameOf(s.getValue()) + ");",
             op);
      })
      //===--- tiles ---------------------------------------------------===//
      .Case([&](FullOp f) {
        TileType t = f.getType();
        if (onlyStartsProducts(f)) {
          line("// " + std::string(f->hasOneUse() ? "the product" : "each product") + " it starts fills its own", op);
          return;
        }
        declareTile(f, op, "");
        line("ak::fill<" + joinDims(t.getShape(), " * ") + ">(" + slots.nameOf(f) + ", " +
                 storeConv(t.getElementType(), scalar(f.getValue())) + ");",
             op);
      })
      .Case([&](IotaOp i) {
        TileType t = i.getType();
        declareTile(i, op, "");
        line("ak::iota<" + std::to_string(i.getDim()) + ", " + joinDims(t.getShape(), ", ") + ">(" +
                 slots.nameOf(i) + ");",
             op);
      })
      .Case([&](MmaOp m) {
        TileType a = m.getA().getType(), b = m.getB().getType(), acc = m.getAcc().getType();
        auto full = m.getAcc().getDefiningOp<FullOp>();
        auto dims = [&] {
          return std::to_string(a.getShape()[0]) + ", " + std::to_string(b.getShape()[0]) + ", " +
                 std::to_string(a.getShape()[1]);
        };
        // b's panels kept for the launch, for products without a tile to fetch
        auto reuse = [&]() -> std::string {
          if (shadowOf.count(op) || !reusesPackedB(m))
            return "";
          packReuse = true;
          return ", ak::pack_reuse{}";
        };
        if (BinaryOp mul = scaledProductMul(m);
            mul && !foldedTransposes.contains(m.getB()) && !shadowOf.count(op) && !rowScaleOf.count(op)) {
          SlotTable::Id id = declareTile(m, op, "");
          slots.place(mul, id);
          fusedOps.insert(mul);
          Value factor = mul.getLhs() == m.getResult() ? mul.getRhs() : mul.getLhs();
          line("ak::mma_scaled<" + tagOf(a.getElementType()) + ", " + dims() + ">(" + slots.get(id).name + ", " +
                   slots.nameOf(m.getA()) + ", " + slots.nameOf(m.getB()) + ", " + scalar(factor) + reuse() + ");",
               op, "times " + scalar(factor) + " (the multiply after it): a product from zeros");
          return;
        }
        SlotTable::Id id;
        if (full && onlyStartsProducts(full)) {
          // a constant start (attention's zeros, hoisted out of the loop) is written here, not copied from
          // a tile of its own (bf16 prefill's 128 x 64 scores: 1.01-1.02x)
          id = declareTile(m, op, "");
          line("ak::fill<" + elemsOf(acc) + ">(" + slots.get(id).name + ", " +
                   storeConv(acc.getElementType(), scalar(full.getValue())) + ");",
               op);
        } else if (SlotTable::Id accSlot = slots.of(m.getAcc());
                   accSlot != slots.of(m.getA()) && accSlot != slots.of(m.getB()) &&
                   slots.canOverwrite(accSlot, op, "float", acc.getNumElements())) {
          slots.place(m, accSlot); // accumulate in place
          id = accSlot;
        } else {
          id = declareTile(m, op, "");
          line("ak::copy<" + elemsOf(acc) + ">(" + slots.get(id).name + ", " + slots.nameOf(m.getAcc()) +
                   ");",
               op);
        }
        // b = transpose(v) folded: mma_kn reads v (K x N) as it lies.
        bool kn = foldedTransposes.contains(m.getB());
        auto shadow = shadowOf.find(op);
        auto scale = rowScaleOf.find(op);
        line(std::string(kn ? "ak::mma_kn<" : "ak::mma<") + tagOf(a.getElementType()) + ", " + dims() + ">(" +
                 slots.get(id).name + ", " + slots.nameOf(m.getA()) +
                 ", " + slots.nameOf(m.getB()) + (shadow == shadowOf.end() ? "" : ", " + shadow->second) +
                 (scale == rowScaleOf.end() ? "" : ", ak::row_scale{" + scale->second + "}") + reuse() + ");",
             op);
      })
      .Case([&](BinaryOp b) {
        Type elem = b.getType().getElementType();
        if (elem.isInteger(1) && binaryExpr(b.getKind(), elem, "x", "y").empty()) {
          ok = fail(op, "the CPU backend does not lower '" + stringifyBinaryKind(b.getKind()) + "' on i1 tiles");
          return;
        }
        SlotTable::Id id = tileForResult(b, op, {b.getLhs(), b.getRhs()});
        emitElementwise(*this, op, b.getType(), slots.get(id).name,
                        {{b.getLhs(), Access::Compute}, {b.getRhs(), Access::Compute}},
                        [&](ArrayRef<std::string> x) { return binaryExpr(b.getKind(), elem, x[0], x[1]); },
                        false);
      })
      .Case([&](UnaryOp u) {
        SlotTable::Id id = tileForResult(u, op, {u.getOperand()});
        if (const char *tileFn = vectorTileFunction(u.getKind()); tileFn && u.getType().getElementType().isF32()) {
          line(std::string("ak::") + tileFn + "<" + std::to_string(u.getType().getNumElements()) + ">(" +
                   slots.get(id).name + ", " + slots.nameOf(u.getOperand()) + ");",
               op);
          return;
        }
        emitElementwise(*this, op, u.getType(), slots.get(id).name, {{u.getOperand(), Access::Compute}},
                        [&](ArrayRef<std::string> x) { return unaryExpr(u.getKind(), x[0]); }, false);
      })
      .Case([&](CmpOp c) {
        SlotTable::Id id = tileForResult(c, op, {c.getLhs(), c.getRhs()});
        emitElementwise(*this, op, c.getType(), slots.get(id).name,
                        {{c.getLhs(), Access::Compute}, {c.getRhs(), Access::Compute}},
                        [&](ArrayRef<std::string> x) { return cmpExpr(c.getPredicate(), x[0], x[1]); },
                        false);
      })
      .Case([&](SelectOp s) {
        SlotTable::Id id = tileForResult(s, op, {s.getTrueValue(), s.getFalseValue()});
        emitElementwise(*this, op, s.getType(), slots.get(id).name,
                        {{s.getCondition(), Access::Compute},
                         {s.getTrueValue(), Access::Storage},
                         {s.getFalseValue(), Access::Storage}},
                        [&](ArrayRef<std::string> x) { return x[0] + " ? " + x[1] + " : " + x[2]; }, true);
      })
      .Case([&](CastOp c) {
        Type from = c.getOperand().getType().getElementType(), to = c.getType().getElementType();
        if (from == to) {
          slots.alias(c, slots.of(c.getOperand()));
          line("// " + slots.nameOf(c) + ": cast to the same element type is the value itself", op);
          return;
        }
        SlotTable::Id id = tileForResult(c, op, {c.getOperand()});
        emitElementwise(*this, op, c.getType(), slots.get(id).name, {{c.getOperand(), Access::Storage}},
                        [&](ArrayRef<std::string> x) {
                          return "ak::cast<" + tagOf(to) + ", " + tagOf(from) + ">(" + x[0] + ")";
                        },
                        true);
      })
      .Case([&](ReduceOp r) {
        TileType in = r.getOperand().getType();
        int64_t pre = 1, post = 1, axis = r.getAxis();
        for (int64_t d = 0; d < axis; ++d)
          pre *= in.getShape()[d];
        for (int64_t d = axis + 1; d < in.getRank(); ++d)
          post *= in.getShape()[d];
        declareTile(r, op, "");
        line("ak::reduce_" + stringifyReduceKind(r.getKind()).str() + "<" + tagOf(in.getElementType()) + ", " +
                 std::to_string(pre) + ", " + std::to_string(in.getShape()[axis]) + ", " + std::to_string(post) +
                 ">(" + slots.nameOf(r) + ", " + slots.nameOf(r.getOperand()) + ");",
             op);
      })
      .Case([&](TransposeOp t) {
        TileType in = t.getOperand().getType();
        if (isFoldedIntoMma(t)) {
          slots.alias(t, slots.of(t.getOperand()));
          foldedTransposes.insert(t);
          line("// transpose of " + slots.nameOf(t) + " folded into ak::mma_kn: no copy", op);
          return;
        }
        declareTile(t, op, "");
        line("ak::transpose<" + joinDims(in.getShape(), ", ") + ">(" + slots.nameOf(t) + ", " +
                 slots.nameOf(t.getOperand()) + ");",
             op);
      })
      .Case([&](ReshapeOp r) {
        SlotTable::Id source = slots.of(r.getOperand());
        if (Operation *back = source >= 0 ? slots.get(source).storeBack : nullptr; back && isUsedAfter(r, back)) {
          /* read after the buffer slot it views is stored back (maybe another value): its own copy */
          declareTile(r, op, "");
          line("ak::copy<" + elemsOf(r.getType()) + ">(" + slots.nameOf(r) + ", " + slots.nameOf(r.getOperand()) +
                   ");",
               op, "read after its buffer slot is stored back");
          return;
        }
        slots.alias(r, source);
        line("// " + slots.nameOf(r) + " viewed as " + joinDims(r.getType().getShape(), "x") + ": no copy", op);
      })
      .Default([&](Operation *) {
        ok = fail(op, "the CPU backend cannot lower '" + op->getName().getStringRef() + "'");
      });
  return ok;
}

} // namespace argus::codegen::cpu
