//===- ArgusAttrs.td - argus enums and attributes ---------*- tablegen -*-===//
#ifndef ARGUS_ATTRS
#define ARGUS_ATTRS

include "argus/Dialect/ArgusDialect.td"

def Argus_MemorySpace : I32EnumAttr<"MemorySpace", "where a buffer lives", [
    I32EnumAttrCase<"shared", 0>,   // per program instance, visible to all its threads
    I32EnumAttrCase<"local", 1>     // per thread (registers / stack)
  ]> {
  let cppNamespace = "::argus";
  let genSpecializedAttr = 0;
}
def Argus_MemorySpaceAttr : EnumAttr<Argus_Dialect, Argus_MemorySpace, "space">;

def Argus_BinaryKind : I32EnumAttr<"BinaryKind", "elementwise binary operator", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>, I32EnumAttrCase<"mul", 2>,
    I32EnumAttrCase<"div", 3>, I32EnumAttrCase<"max", 4>, I32EnumAttrCase<"min", 5>,
    I32EnumAttrCase<"pow", 6>
  ]> {
  let cppNamespace = "::argus";
}

def Argus_UnaryKind : I32EnumAttr<"UnaryKind", "elementwise unary operator", [
    I32EnumAttrCase<"neg", 0>, I32EnumAttrCase<"abs", 1>, I32EnumAttrCase<"exp", 2>,
    I32EnumAttrCase<"exp2", 3>, I32EnumAttrCase<"log", 4>, I32EnumAttrCase<"sqrt", 5>,
    I32EnumAttrCase<"rsqrt", 6>, I32EnumAttrCase<"tanh", 7>, I32EnumAttrCase<"sigmoid", 8>,
    I32EnumAttrCase<"silu", 9>, I32EnumAttrCase<"recip", 10>
  ]> {
  let cppNamespace = "::argus";
}

def Argus_ReduceKind : I32EnumAttr<"ReduceKind", "reduction operator", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>, I32EnumAttrCase<"min", 2>
  ]> {
  let cppNamespace = "::argus";
}

def Argus_CmpPredicate : I32EnumAttr<"CmpPredicate", "elementwise comparison", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>, I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>, I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
  ]> {
  let cppNamespace = "::argus";
}

// A CuTe-style layout: a nested shape and stride of equal profile,
// e.g. #argus.layout<(4,(2,8)):(16,(1,2))>. Each of `shape` and `stride` is an
// IntegerAttr (a mode) or an ArrayAttr of such (a nested tuple).
def Argus_LayoutAttr : AttrDef<Argus_Dialect, "Layout"> {
  let mnemonic = "layout";
  let summary = "shape:stride layout mapping coordinates to offsets";
  let parameters = (ins "::mlir::Attribute":$shape, "::mlir::Attribute":$stride);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

// XOR swizzle Swizzle<B,M,S>: offset ^ ((offset >> S) & (2^B-1) << M).
//   0bxxxxYYYxxxZZZxxxx  with B bits YYY shifted down S onto ZZZ starting at bit M.
def Argus_SwizzleAttr : AttrDef<Argus_Dialect, "Swizzle"> {
  let mnemonic = "swizzle";
  let summary = "XOR swizzle functor Swizzle<bits, base, shift>";
  let parameters = (ins "int64_t":$bits, "int64_t":$base, "int64_t":$shift);
  let assemblyFormat = "`<` $bits `,` $base `,` $shift `>`";
  let genVerifyDecl = 1;
}

#endif // ARGUS_ATTRS
