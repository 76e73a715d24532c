//===- ArgusTypes.cpp - argus types and attributes: syntax and checks ------===//
//
// Tensors, tiles and buffers print their shape like builtin shaped types
// (`?x4096xbf16`); buffers add their memory space and optional layout.
//
//===----------------------------------------------------------------------===//
#include "argus/Dialect/Argus.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace argus;

#define GET_TYPEDEF_CLASSES
#include "argus/Dialect/ArgusTypes.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "argus/Dialect/ArgusAttrs.cpp.inc"

void ArgusDialect::registerTypesAndAttributes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "argus/Dialect/ArgusTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "argus/Dialect/ArgusAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

static bool isSupportedElementType(Type t) {
  return t.isF32() || t.isF16() || t.isBF16() || t.isF64() || t.isInteger(1) ||
         t.isInteger(8) || t.isInteger(32) || t.isInteger(64) ||
         isa<Float8E4M3FNType, Float8E4M3FNUZType>(t);
}

/// Parses `<dims x elementType` (the caller parses the closing `>`).
static ParseResult parseShapeAndElement(AsmParser &parser, bool allowDynamic,
                                          SmallVectorImpl<int64_t> &shape, Type &elementType) {
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, allowDynamic, /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printShapeAndElement(AsmPrinter &printer, ArrayRef<int64_t> shape, Type elementType) {
  printer << "<";
  for (int64_t d : shape) {
    if (d == ShapedType::kDynamic)
      printer << "?";
    else
      printer << d;
    printer << "x";
  }
  printer << elementType;
}

static LogicalResult verifyShapeAndElement(function_ref<InFlightDiagnostic()> emitError,
                                           StringRef what, ArrayRef<int64_t> shape,
                                           Type elementType, bool allowDynamic) {
  if (shape.empty())
    return emitError() << what << " must have rank >= 1";
  for (int64_t d : shape) {
    if (d == ShapedType::kDynamic && allowDynamic)
      continue;
    if (d <= 0)
      return emitError() << what << " dimensions must be positive, got " << d;
  }
  if (!isSupportedElementType(elementType))
    return emitError() << what << " element type must be f32, f16, bf16, f64, f8E4M3FN or i1/i8/i32/i64, got "
                       << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// GlobalTensorType / TileType
//===----------------------------------------------------------------------===//

Type GlobalTensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parseShapeAndElement(parser, /*allowDynamic=*/true, shape, elementType) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<GlobalTensorType>(parser.getContext(), shape, elementType);
}

void GlobalTensorType::print(AsmPrinter &printer) const {
  printShapeAndElement(printer, getShape(), getElementType());
  printer << ">";
}

LogicalResult GlobalTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType) {
  return verifyShapeAndElement(emitError, "tensor", shape, elementType, /*allowDynamic=*/true);
}

Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parseShapeAndElement(parser, /*allowDynamic=*/false, shape, elementType) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<TileType>(parser.getContext(), shape, elementType);
}

void TileType::print(AsmPrinter &printer) const {
  printShapeAndElement(printer, getShape(), getElementType());
  printer << ">";
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType) {
  return verifyShapeAndElement(emitError, "tile", shape, elementType, /*allowDynamic=*/false);
}

//===----------------------------------------------------------------------===//
// BufferType: !argus.buffer<3x64x64xbf16, shared[, #layout]>
//===----------------------------------------------------------------------===//

Type BufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parseShapeAndElement(parser, /*allowDynamic=*/false, shape, elementType) ||
      parser.parseComma())
    return {};
  StringRef spaceName;
  SMLoc spaceLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&spaceName))
    return {};
  std::optional<MemorySpace> space = symbolizeMemorySpace(spaceName);
  if (!space) {
    parser.emitError(spaceLoc, "expected memory space 'shared' or 'local', got '")
        << spaceName << "'";
    return {};
  }
  Attribute layout;
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(layout))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<BufferType>(parser.getContext(), shape, elementType, *space, layout);
}

void BufferType::print(AsmPrinter &printer) const {
  printShapeAndElement(printer, getShape(), getElementType());
  printer << ", " << stringifyMemorySpace(getSpace());
  if (getLayout())
    printer << ", " << getLayout();
  printer << ">";
}

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType, MemorySpace,
                                 Attribute layout) {
  if (failed(verifyShapeAndElement(emitError, "buffer", shape, elementType, false)))
    return failure();
  if (layout && !isa<LayoutAttr, SwizzleAttr>(layout))
    return emitError() << "buffer layout must be #argus.layout or #argus.swizzle, got " << layout;
  if (auto l = dyn_cast_or_null<LayoutAttr>(layout)) {
    int64_t size = 1;
    for (int64_t d : shape)
      size *= d;
    // The layout maps the buffer's row-major element index; it must cover it.
    if (layoutTupleProduct(l.getShape()) != size)
      return emitError() << "buffer layout size " << layoutTupleProduct(l.getShape())
                         << " does not match the buffer's " << size << " elements";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LayoutAttr: #argus.layout<(4,(2,8)):(16,(1,2))>
//===----------------------------------------------------------------------===//

static ParseResult parseIntTuple(AsmParser &parser, Attribute &out) {
  Builder b(parser.getContext());
  if (succeeded(parser.parseOptionalLParen())) {
    SmallVector<Attribute> elems;
    auto parseElem = [&]() -> ParseResult {
      Attribute e;
      if (parseIntTuple(parser, e))
        return failure();
      elems.push_back(e);
      return success();
    };
    if (parser.parseCommaSeparatedList(parseElem) || parser.parseRParen())
      return failure();
    out = b.getArrayAttr(elems);
    return success();
  }
  int64_t v;
  if (parser.parseInteger(v))
    return failure();
  out = b.getI64IntegerAttr(v);
  return success();
}

static void printIntTuple(AsmPrinter &printer, Attribute a) {
  if (auto i = dyn_cast<IntegerAttr>(a)) {
    printer << i.getInt();
    return;
  }
  printer << "(";
  llvm::interleaveComma(cast<ArrayAttr>(a), printer, [&](Attribute e) { printIntTuple(printer, e); });
  printer << ")";
}

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  Attribute shape, stride;
  if (parser.parseLess() || parseIntTuple(parser, shape) || parser.parseColon() ||
      parseIntTuple(parser, stride) || parser.parseGreater())
    return {};
  return parser.getChecked<LayoutAttr>(parser.getContext(), shape, stride);
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printIntTuple(printer, getShape());
  printer << ":";
  printIntTuple(printer, getStride());
  printer << ">";
}

/// Checks that `shape` and `stride` have the same nesting and positive sizes.
static LogicalResult verifyCongruent(function_ref<InFlightDiagnostic()> emitError, Attribute shape,
                                     Attribute stride) {
  auto si = dyn_cast<IntegerAttr>(shape);
  auto di = dyn_cast<IntegerAttr>(stride);
  if (si || di) {
    if (!si || !di)
      return emitError() << "layout shape and stride must have the same nesting";
    if (si.getInt() <= 0)
      return emitError() << "layout shape modes must be positive, got " << si.getInt();
    if (di.getInt() < 0)
      return emitError() << "layout strides must be non-negative, got " << di.getInt();
    return success();
  }
  auto sa = cast<ArrayAttr>(shape), da = cast<ArrayAttr>(stride);
  if (sa.size() != da.size())
    return emitError() << "layout shape has " << sa.size() << " modes but stride has " << da.size();
  for (auto [s, d] : llvm::zip(sa, da))
    if (failed(verifyCongruent(emitError, s, d)))
      return failure();
  return success();
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, Attribute shape,
                                 Attribute stride) {
  return verifyCongruent(emitError, shape, stride);
}

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t bits,
                                  int64_t base, int64_t shift) {
  if (bits < 0 || base < 0 || bits > 16 || base > 16)
    return emitError() << "swizzle bits and base must lie in [0, 16], got " << bits << ", " << base;
  if (std::abs(shift) < bits)
    return emitError() << "swizzle |shift| must be >= bits (" << bits << "), got " << shift;
  return success();
}

int64_t argus::layoutTupleProduct(Attribute tuple) {
  if (auto i = dyn_cast<IntegerAttr>(tuple))
    return i.getInt();
  int64_t p = 1;
  for (Attribute e : cast<ArrayAttr>(tuple))
    p *= layoutTupleProduct(e);
  return p;
}
