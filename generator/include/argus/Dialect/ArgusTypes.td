//===- ArgusTypes.td - argus types ------------------------*- tablegen -*-===//
#ifndef ARGUS_TYPES
#define ARGUS_TYPES

include "argus/Dialect/ArgusAttrs.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Argus_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Argus_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

// A global tensor passed to the kernel: row-major by default, with run-time
// strides. Dimensions are `?` when symbolic, a number when specialised.
//   !argus.tensor<?x4096xbf16>
def Argus_TensorType : Argus_Type<"GlobalTensor", "tensor"> {
  let summary = "global tensor argument";
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    bool isDynamicDim(unsigned i) const { return getShape()[i] == ::mlir::ShapedType::kDynamic; }
  }];
}

// A register tile: a value of static shape, owned by one program instance
// (or one thread of a thread-level kernel).
//   !argus.tile<64x256xbf16>
def Argus_TileType : Argus_Type<"Tile", "tile"> {
  let summary = "register tile value";
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    int64_t getNumElements() const {
      int64_t n = 1; for (int64_t d : getShape()) n *= d; return n;
    }
  }];
}

// A memory buffer in shared or local space, with an optional layout or
// swizzle giving the physical position of each logical element.
//   !argus.buffer<3x64x64xbf16, shared, #argus.swizzle<3,3,3>>
def Argus_BufferType : Argus_Type<"Buffer", "buffer"> {
  let summary = "shared or local memory buffer";
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType,
                        "::argus::MemorySpace":$space,
                        OptionalParameter<"::mlir::Attribute">:$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    int64_t getNumElements() const {
      int64_t n = 1; for (int64_t d : getShape()) n *= d; return n;
    }
  }];
}

// One element's tag tuple inside an assert_tag region.
def Argus_TagType : Argus_Type<"Tag", "tag"> {
  let summary = "a tag tuple (symbolic identity of one element)";
}

#endif // ARGUS_TYPES
