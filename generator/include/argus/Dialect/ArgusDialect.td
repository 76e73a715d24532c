//===- ArgusDialect.td - the argus kernel dialect ---------*- tablegen -*-===//
//
// The argus dialect is the IR of Argus kernels: tile-level programs over
// global tensors, shared/local buffers, register tiles and tag annotations.
// DSL files (*.argus) lower into it (plus arith/scf/func); the verifier, the
// interpreter and every backend consume it.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT
#define ARGUS_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Argus_Dialect : Dialect {
  let name = "argus";
  let cppNamespace = "::argus";
  let summary = "Tile-level kernels with data-flow tags";
  let description = [{
    A kernel is a `func.func` carrying the `argus.kernel` unit attribute. Its
    arguments are global tensors (`!argus.tensor`) and scalars; its grid is
    computed by a companion function named in `argus.grid`. Each program
    instance (and, for thread-level kernels, each of `argus.threads` threads)
    executes the body once. Tags (`argus.tag`, `argus.assert_tag`,
    `argus.reset_tags`) describe what each element is; they have no run-time
    effect and are erased before code generation.
  }];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Defined beside the generated storage classes (ArgusTypes.cpp).
    void registerTypesAndAttributes();
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect"];
}

class Argus_Op<string mnemonic, list<Trait> traits = []>
    : Op<Argus_Dialect, mnemonic, traits>;

#endif // ARGUS_DIALECT
