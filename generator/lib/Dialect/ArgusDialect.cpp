//===- ArgusDialect.cpp - dialect registration ----------------------------===//
#include "argus/Dialect/Argus.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace argus;

#include "argus/Dialect/ArgusDialect.cpp.inc"
#include "argus/Dialect/ArgusEnums.cpp.inc"

void ArgusDialect::initialize() {
  registerTypesAndAttributes();
  addOperations<
#define GET_OP_LIST
#include "argus/Dialect/ArgusOps.cpp.inc"
      >();
}

void argus::registerArgusDialects(DialectRegistry &registry) {
  registry.insert<ArgusDialect, arith::ArithDialect, scf::SCFDialect, func::FuncDialect>();
}

bool argus::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                            SmallVectorImpl<int64_t> &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}
