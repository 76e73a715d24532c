//===- ArgusOps.cpp - semantic checks of argus operations -----------------===//
//
// Cheap constraints live in ODS; this file holds the checks that relate
// operand and result shapes. Each diagnostic says what was expected and what
// was found.
//
//===----------------------------------------------------------------------===//
#include "argus/Dialect/Argus.h"

#include "llvm/ADT/StringSwitch.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;
using namespace argus;

// Custom assembly directives of the generated ops, defined below.
static void printSizesOrWhole(OpAsmPrinter &p, Operation *op, DenseI64ArrayAttr sizes);
static ParseResult parseSizesOrWhole(OpAsmParser &parser, DenseI64ArrayAttr &sizes);

#define GET_OP_CLASSES
#include "argus/Dialect/ArgusOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static ArrayRef<int64_t> shapeOf(Type t) {
  if (auto tile = dyn_cast<TileType>(t))
    return tile.getShape();
  return {};
}

static Type elementOf(Type t) {
  if (auto tile = dyn_cast<TileType>(t))
    return tile.getElementType();
  return t;
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// The trailing `tileShape.size()` dims of `bufferShape` after `numIndices`
/// leading indices must equal `tileShape`.
static LogicalResult verifySlot(Operation *op, BufferType buffer, size_t numIndices,
                                ArrayRef<int64_t> tileShape) {
  if (numIndices + tileShape.size() != static_cast<size_t>(buffer.getRank()))
    return op->emitOpError() << "expected " << buffer.getRank() - tileShape.size()
                             << " buffer indices for a rank-" << tileShape.size()
                             << " tile in a rank-" << buffer.getRank() << " buffer, got "
                             << numIndices;
  ArrayRef<int64_t> slot = buffer.getShape().drop_front(numIndices);
  if (slot != tileShape)
    return op->emitOpError() << "expected tile shape " << shapeString(slot)
                             << " to match the buffer slot, got " << shapeString(tileShape);
  return success();
}

/// Largest offset of a layout: sum of (mode - 1) * stride over its modes.
static int64_t layoutMaxOffset(Attribute shape, Attribute stride) {
  if (auto i = dyn_cast<IntegerAttr>(shape))
    return (i.getInt() - 1) * cast<IntegerAttr>(stride).getInt();
  int64_t m = 0;
  for (auto [s, d] : llvm::zip(cast<ArrayAttr>(shape), cast<ArrayAttr>(stride)))
    m += layoutMaxOffset(s, d);
  return m;
}

/// The `view` of a buffer_load / buffer_store must map the slot's logical
/// elements into the slot: a layout covers exactly the slot's elements (the
/// rule BufferType applies to its own layout) and reaches no offset past it;
/// a swizzle keeps every index of the slot inside the slot.
static LogicalResult verifyView(Operation *op, BufferType buffer, size_t numIndices,
                                Attribute view) {
  if (!view)
    return success();
  int64_t slotSize = 1;
  for (int64_t d : buffer.getShape().drop_front(std::min<size_t>(numIndices, buffer.getRank())))
    slotSize *= d;
  if (auto layout = dyn_cast<LayoutAttr>(view)) {
    int64_t size = layoutTupleProduct(layout.getShape());
    if (size != slotSize)
      return op->emitOpError() << "view layout size " << size << " does not match the slot's "
                               << slotSize << " elements";
    int64_t reach = layoutMaxOffset(layout.getShape(), layout.getStride());
    if (reach >= slotSize)
      return op->emitOpError() << "view layout reaches offset " << reach
                               << ", outside the slot's " << slotSize << " elements";
    return success();
  }
  auto swizzle = cast<SwizzleAttr>(view);
  int64_t b = swizzle.getBits(), m = swizzle.getBase(), sh = swizzle.getShift();
  int64_t periodBits = b + m + std::abs(sh);
  if (periodBits > 48)
    return op->emitOpError() << "view swizzle spans " << periodBits
                             << " address bits; expected at most 48";
  // Within each aligned block of 2^periodBits indices a swizzle permutes the
  // block, so only a partial last block can leave the slot.
  int64_t period = int64_t(1) << periodBits;
  if (slotSize % period == 0)
    return success();
  int64_t mask = ((int64_t(1) << b) - 1) << (m + std::max<int64_t>(0, sh));
  for (int64_t i = slotSize / period * period; i < slotSize; ++i) {
    int64_t moved = sh >= 0 ? (i & mask) >> sh : (i & mask) << -sh;
    if ((i ^ moved) >= slotSize)
      return op->emitOpError() << "view swizzle maps slot element " << i << " to offset "
                               << (i ^ moved) << ", outside the slot's " << slotSize
                               << " elements";
  }
  return success();
}

static LogicalResult verifyGlobalAccess(Operation *op, GlobalTensorType tensor, size_t numOffsets,
                                        TileType tile) {
  if (numOffsets != static_cast<size_t>(tensor.getRank()))
    return op->emitOpError() << "expected " << tensor.getRank() << " offsets, got " << numOffsets;
  if (tile.getRank() != tensor.getRank())
    return op->emitOpError() << "expected a rank-" << tensor.getRank() << " tile, got rank "
                             << tile.getRank();
  if (tile.getElementType() != tensor.getElementType())
    return op->emitOpError() << "expected element type " << tensor.getElementType()
                             << ", got " << tile.getElementType();
  return success();
}

/// Result of a broadcasting elementwise op: shape = broadcast of operands.
static LogicalResult verifyBroadcast(Operation *op, ArrayRef<Type> operands, TileType result) {
  SmallVector<int64_t> shape;
  for (Type t : operands) {
    SmallVector<int64_t> next;
    if (!broadcastShapes(shape, shapeOf(t), next))
      return op->emitOpError() << "operand shapes " << shapeString(shape) << " and "
                               << shapeString(shapeOf(t)) << " do not broadcast";
    shape = next;
  }
  if (ArrayRef<int64_t>(shape) != result.getShape())
    return op->emitOpError() << "expected result shape " << shapeString(shape) << ", got "
                             << shapeString(result.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Ids and shapes
//===----------------------------------------------------------------------===//

// Note: I64Attr accessors return uint64_t; read them as int64_t so negative
// values are reported as such.

LogicalResult DimOp::verify() {
  int64_t dim = getDim();
  if (dim < 0 || dim >= getTensor().getType().getRank())
    return emitOpError() << "dimension " << dim << " out of range for a rank-"
                         << getTensor().getType().getRank() << " tensor";
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  int64_t d = getTensor().getType().getShape()[getDim()];
  if (d == ShapedType::kDynamic)
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), d);
}

LogicalResult SegmentOp::verify() {
  GlobalTensorType tensor = getTensor().getType(), offsets = getOffsets().getType(), result = getType();
  if (offsets.getRank() != 1 || !offsets.getElementType().isSignlessInteger())
    return emitOpError() << "expected offsets of rank 1 and an integer type (cumulative lengths), got " << offsets;
  if (tensor.getRank() < 1 || result.getRank() != tensor.getRank() ||
      result.getElementType() != tensor.getElementType() || !result.isDynamicDim(0) ||
      result.getShape().drop_front() != tensor.getShape().drop_front())
    return emitOpError() << "expected the result to be " << tensor << " with a dynamic first dimension, got "
                         << result;
  return success();
}

static LogicalResult verifyAxis(Operation *op, int64_t axis) {
  if (axis < 0 || axis > 2)
    return op->emitOpError() << "grid axis must be 0, 1 or 2, got " << axis;
  return success();
}
LogicalResult ProgramIdOp::verify() { return verifyAxis(*this, getAxis()); }
LogicalResult NumProgramsOp::verify() { return verifyAxis(*this, getAxis()); }

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (failed(verifyGlobalAccess(*this, getTensor().getType(), getOffsets().size(), getType())))
    return failure();
  double padding = getPadding().convertToDouble();
  if (isa<IntegerType>(getType().getElementType()) &&
      (!std::isfinite(padding) || padding != std::trunc(padding) || std::fabs(padding) > 9.0e15))
    return emitOpError() << "padding " << padding << " is not an integer an "
                         << getType().getElementType() << " tile can hold";
  if (getUnmasked() && padding != 0.0)
    return emitOpError() << "an unmasked load reads no padding, got padding " << padding;
  return success();
}

LogicalResult ReadOp::verify() {
  GlobalTensorType type = getTensor().getType();
  if (getIndices().size() != static_cast<size_t>(type.getRank()))
    return emitOpError() << "expected " << type.getRank() << " indices, got " << getIndices().size();
  if (getType() != type.getElementType())
    return emitOpError() << "expected result type " << type.getElementType() << " (the tensor's element type), got "
                         << getType();
  return success();
}

/// `[1, ?, 128]`: tile sizes where `?` (ShapedType::kDynamic) spans a whole
/// dimension (argus.prefetch).
static void printSizesOrWhole(OpAsmPrinter &p, Operation *, DenseI64ArrayAttr sizes) {
  p << '[';
  llvm::interleaveComma(sizes.asArrayRef(), p, [&](int64_t d) {
    if (ShapedType::isDynamic(d)) p << '?';
    else p << d;
  });
  p << ']';
}

static ParseResult parseSizesOrWhole(OpAsmParser &parser, DenseI64ArrayAttr &sizes) {
  SmallVector<int64_t> values;
  auto one = [&]() -> ParseResult {
    if (succeeded(parser.parseOptionalQuestion())) {
      values.push_back(ShapedType::kDynamic);
      return success();
    }
    return parser.parseInteger(values.emplace_back());
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, one)) return failure();
  sizes = parser.getBuilder().getDenseI64ArrayAttr(values);
  return success();
}

namespace {

/// x + mma(a, b, zeros) -> mma(a, b, x) when x has the product's type (no
/// broadcast) and the sum is the product's only use. Equal up to rounding
/// order; every backend and the interpreter see the rewritten form.
struct AccumulateIntoMma : OpRewritePattern<BinaryOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool isZeroTile(Value v) {
    auto full = v.getDefiningOp<FullOp>();
    if (!full) return false;
    FloatAttr value;
    return matchPattern(full.getValue(), m_Constant(&value)) && value.getValue().isPosZero();
  }

  LogicalResult matchAndRewrite(BinaryOp op, PatternRewriter &rewriter) const override {
    if (op.getKind() != BinaryKind::add) return failure();
    for (auto [product, other] : {std::pair(op.getLhs(), op.getRhs()), std::pair(op.getRhs(), op.getLhs())}) {
      auto mma = product.getDefiningOp<MmaOp>();
      if (!mma || !mma->hasOneUse() || !isZeroTile(mma.getAcc()) || other.getType() != op.getType() ||
          mma.getType() != op.getType())
        continue;
      rewriter.replaceOpWithNewOp<MmaOp>(op, op.getType(), mma.getA(), mma.getB(), other);
      rewriter.eraseOp(mma);
      return success();
    }
    return failure();
  }
};

} // namespace

void BinaryOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<AccumulateIntoMma>(context);
}

LogicalResult PriorityOp::verify() {
  if (getLevel() < 0 || getLevel() > 3)
    return emitOpError() << "level must be 0 to 3 (s_setprio's range), got " << getLevel();
  return success();
}

int64_t ScheduleGroupOp::maskOf(StringRef kind) {
  return llvm::StringSwitch<int64_t>(kind)
      .Case("valu", 0x2)
      .Case("salu", 0x4)
      .Case("mfma", 0x8)
      .Case("vmem_read", 0x20)
      .Case("vmem_write", 0x40)
      .Case("ds_read", 0x100)
      .Case("ds_write", 0x200)
      .Default(0);
}

LogicalResult ScheduleGroupOp::verify() {
  if (maskOf(getKind()) == 0)
    return emitOpError() << "kind must be mfma, valu, salu, vmem_read, vmem_write, ds_read or ds_write, got '"
                         << getKind() << "'";
  if (getCount() < 1 || getCount() > 64)
    return emitOpError() << "count must be 1 to 64, got " << getCount();
  return success();
}

LogicalResult PrefetchOp::verify() {
  GlobalTensorType type = getTensor().getType();
  if (getOffsets().size() != static_cast<size_t>(type.getRank()) || getShape().size() != getOffsets().size())
    return emitOpError() << "expected " << type.getRank() << " offsets and a shape of rank " << type.getRank() << ", got "
                         << getOffsets().size() << " offsets and rank " << getShape().size();
  for (int64_t d : getShape())
    if (d < 1 && !ShapedType::isDynamic(d))
      return emitOpError() << "shape dimensions must be positive or ? (the whole dimension), got " << d;
  if (getLevel() < 1 || getLevel() > 3)
    return emitOpError() << "level must be 1, 2 or 3 (a cache level), got " << getLevel();
  return success();
}

LogicalResult StoreOp::verify() {
  return verifyGlobalAccess(*this, getTensor().getType(), getOffsets().size(),
                            getValue().getType());
}

LogicalResult CopyOp::verify() {
  GlobalTensorType src = getSrc().getType();
  BufferType dst = getDst().getType();
  if (getSrcOffsets().size() != static_cast<size_t>(src.getRank()))
    return emitOpError() << "expected " << src.getRank() << " source offsets, got "
                         << getSrcOffsets().size();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "expected buffer element type " << src.getElementType() << ", got "
                         << dst.getElementType();
  if (getDstIndices().size() + src.getRank() != static_cast<size_t>(dst.getRank()))
    return emitOpError() << "expected " << dst.getRank() - src.getRank()
                         << " buffer indices to copy a rank-" << src.getRank()
                         << " tile, got " << getDstIndices().size();
  return success();
}

LogicalResult WaitOp::verify() {
  int64_t pending = getPending();
  if (pending < 0)
    return emitOpError() << "pending count must be >= 0, got " << pending;
  return success();
}

LogicalResult BufferLoadOp::verify() {
  if (getType().getElementType() != getBuffer().getType().getElementType())
    return emitOpError() << "expected element type " << getBuffer().getType().getElementType()
                         << ", got " << getType().getElementType();
  if (failed(verifySlot(*this, getBuffer().getType(), getIndices().size(), getType().getShape())))
    return failure();
  return verifyView(*this, getBuffer().getType(), getIndices().size(), getViewAttr());
}

LogicalResult BufferStoreOp::verify() {
  TileType v = getValue().getType();
  if (v.getElementType() != getBuffer().getType().getElementType())
    return emitOpError() << "expected element type " << getBuffer().getType().getElementType()
                         << ", got " << v.getElementType();
  if (failed(verifySlot(*this, getBuffer().getType(), getIndices().size(), v.getShape())))
    return failure();
  return verifyView(*this, getBuffer().getType(), getIndices().size(), getViewAttr());
}

//===----------------------------------------------------------------------===//
// Tile computation
//===----------------------------------------------------------------------===//

LogicalResult FullOp::verify() {
  if (getValue().getType() != getType().getElementType())
    return emitOpError() << "expected a scalar of type " << getType().getElementType() << ", got "
                         << getValue().getType();
  return success();
}

LogicalResult IotaOp::verify() {
  int64_t dim = getDim();
  if (dim < 0 || dim >= getType().getRank())
    return emitOpError() << "dimension " << dim << " out of range for a rank-"
                         << getType().getRank() << " tile";
  if (!getType().getElementType().isInteger(32))
    return emitOpError() << "expected an i32 tile, got " << getType().getElementType();
  return success();
}

LogicalResult MmaOp::verify() {
  TileType a = getA().getType(), b = getB().getType(), acc = getAcc().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError() << "expected rank-2 operands";
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "expected operands of one element type, got " << a.getElementType()
                         << " and " << b.getElementType();
  if (!acc.getElementType().isF32())
    return emitOpError() << "expected an f32 accumulator, got " << acc.getElementType();
  if (a.getShape()[1] != b.getShape()[1])
    return emitOpError() << "expected a (M x K) and b (N x K) to share K, got " << a.getShape()[1]
                         << " and " << b.getShape()[1];
  if (acc.getShape()[0] != a.getShape()[0] || acc.getShape()[1] != b.getShape()[0])
    return emitOpError() << "expected accumulator shape [" << a.getShape()[0] << ", "
                         << b.getShape()[0] << "], got " << shapeString(acc.getShape());
  return success();
}

/// Booleans (i1) are not numbers: there is no agreed order or sum of them.
static LogicalResult rejectBoolean(Operation *op, Type element, StringRef hint) {
  if (element.isInteger(1))
    return op->emitOpError() << "is not defined on i1 (boolean) elements; " << hint;
  return success();
}

LogicalResult BinaryOp::verify() {
  Type le = elementOf(getLhs().getType()), re = elementOf(getRhs().getType());
  if (failed(rejectBoolean(*this, le, "choose between values with select")))
    return failure();
  if (le != re || le != getType().getElementType())
    return emitOpError() << "expected one element type, got " << le << ", " << re << " -> "
                         << getType().getElementType();
  return verifyBroadcast(*this, {getLhs().getType(), getRhs().getType()}, getType());
}

LogicalResult UnaryOp::verify() {
  Type e = getType().getElementType();
  if (!isa<FloatType>(e) && getKind() != UnaryKind::neg && getKind() != UnaryKind::abs)
    return emitOpError() << "'" << stringifyUnaryKind(getKind())
                         << "' needs a floating-point tile, got " << e;
  return success();
}

LogicalResult CmpOp::verify() {
  if (elementOf(getLhs().getType()) != elementOf(getRhs().getType()))
    return emitOpError() << "expected operands of one element type, got "
                         << elementOf(getLhs().getType()) << " and " << elementOf(getRhs().getType());
  if (!getType().getElementType().isInteger(1))
    return emitOpError() << "expected an i1 result, got " << getType().getElementType();
  if (getPredicate() != CmpPredicate::eq && getPredicate() != CmpPredicate::ne &&
      failed(rejectBoolean(*this, elementOf(getLhs().getType()), "compare booleans with eq or ne")))
    return failure();
  return verifyBroadcast(*this, {getLhs().getType(), getRhs().getType()}, getType());
}

LogicalResult SelectOp::verify() {
  if (!getCondition().getType().getElementType().isInteger(1))
    return emitOpError() << "expected an i1 condition, got "
                         << getCondition().getType().getElementType();
  Type te = elementOf(getTrueValue().getType()), fe = elementOf(getFalseValue().getType());
  if (te != fe || te != getType().getElementType())
    return emitOpError() << "expected one element type, got " << te << ", " << fe << " -> "
                         << getType().getElementType();
  return verifyBroadcast(
      *this, {getCondition().getType(), getTrueValue().getType(), getFalseValue().getType()},
      getType());
}

LogicalResult ReduceOp::verify() {
  TileType in = getOperand().getType();
  if (failed(rejectBoolean(*this, in.getElementType(), "reduce a cast of it instead")))
    return failure();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= in.getRank())
    return emitOpError() << "axis " << axis << " out of range for a rank-" << in.getRank() << " tile";
  SmallVector<int64_t> expected(in.getShape());
  expected[axis] = 1;
  if (getType().getShape() != ArrayRef<int64_t>(expected) ||
      getType().getElementType() != in.getElementType())
    return emitOpError() << "expected result " << TileType::get(getContext(), expected, in.getElementType())
                         << ", got " << getType();
  return success();
}

LogicalResult CastOp::verify() {
  if (getOperand().getType().getShape() != getType().getShape())
    return emitOpError() << "expected result shape " << shapeString(getOperand().getType().getShape())
                         << ", got " << shapeString(getType().getShape());
  return success();
}

LogicalResult TransposeOp::verify() {
  TileType in = getOperand().getType();
  if (in.getRank() != 2)
    return emitOpError() << "expected a rank-2 tile, got rank " << in.getRank();
  SmallVector<int64_t> expected{in.getShape()[1], in.getShape()[0]};
  if (getType().getShape() != ArrayRef<int64_t>(expected) ||
      getType().getElementType() != in.getElementType())
    return emitOpError() << "expected result " << TileType::get(getContext(), expected, in.getElementType())
                         << ", got " << getType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (getOperand().getType().getNumElements() != getType().getNumElements())
    return emitOpError() << "expected " << getOperand().getType().getNumElements()
                         << " elements, got " << getType().getNumElements();
  if (getOperand().getType().getElementType() != getType().getElementType())
    return emitOpError() << "reshape cannot change the element type";
  return success();
}

//===----------------------------------------------------------------------===//
// Tags
//===----------------------------------------------------------------------===//

LogicalResult TagOp::verifyRegions() {
  Type t = getTarget().getType();
  int64_t rank;
  if (auto tensor = dyn_cast<GlobalTensorType>(t))
    rank = tensor.getRank();
  else if (auto buffer = dyn_cast<BufferType>(t))
    rank = buffer.getRank();
  else
    return emitOpError() << "expected a tensor or buffer to tag, got " << t;
  Block &body = getBody().front();
  if (body.getNumArguments() != static_cast<unsigned>(rank))
    return emitOpError() << "expected " << rank << " coordinate arguments, got "
                         << body.getNumArguments();
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError() << "coordinate arguments must be index, got " << arg.getType();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().empty())
    return emitOpError() << "tag function must yield at least one field";
  if (getNames().size() != yield.getValues().size())
    return emitOpError() << "expected " << yield.getValues().size() << " field names, got "
                         << getNames().size();
  for (Value v : yield.getValues())
    if (!v.getType().isIndex())
      return emitOpError() << "tag fields must be index, got " << v.getType();
  return success();
}

LogicalResult AssertTagOp::verifyRegions() {
  if (getOperands().empty())
    return emitOpError() << "expected at least one operand";
  Block &body = getBody().front();
  const size_t tagged = getOperands().size() - (getMask() ? 1 : 0);
  if (body.getNumArguments() != tagged)
    return emitOpError() << "expected " << tagged << " tag arguments, got " << body.getNumArguments();
  if (getMask()) {
    auto a = dyn_cast<TileType>(getOperands()[0].getType());
    auto b = getOperands().size() == 3 ? dyn_cast<TileType>(getOperands()[1].getType()) : TileType();
    auto m = dyn_cast<TileType>(getOperands().back().getType());
    if (!a || !b || !m || a.getShape().size() != 2 || b.getShape().size() != 2 || m.getShape().size() != 2 ||
        !m.getElementType().isInteger(1))
      return emitOpError() << "a mask assertion takes tiles a (M x K), b (N x K) and an i1 mask (M x N)";
    if (a.getShape()[1] != b.getShape()[1] || m.getShape()[0] != a.getShape()[0] ||
        m.getShape()[1] != b.getShape()[0])
      return emitOpError() << "mask assertion shapes do not pair: " << a << ", " << b << ", " << m;
  }
  for (BlockArgument arg : body.getArguments())
    if (!isa<TagType>(arg.getType()))
      return emitOpError() << "region arguments must be !argus.tag, got " << arg.getType();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != 1 || !yield.getValues()[0].getType().isInteger(1))
    return emitOpError() << "assertion must yield exactly one i1";
  return success();
}
