// Both forms of argus.prefetch: a tile of static shape (into L1) and a whole
// slice X[i] whatever its run-time sizes (`?`, into L2), between a load and a
// store that use the same tensor.
module {
  func.func @pf__grid(%X: !argus.tensor<?x?xf32>) -> (index, index, index) attributes {argus.grid_of = @pf} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @pf(%X: !argus.tensor<?x?xf32>) attributes {argus.kernel, argus.grid = @pf__grid, argus.threads = 1 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    argus.prefetch %X[%c1, %c0] [1, 16] : !argus.tensor<?x?xf32>
    argus.prefetch %X[%c1, %c0] [1, ?] {level = 2 : i64} : !argus.tensor<?x?xf32>
    %v = argus.load %X[%c0, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<1x16xf32>
    argus.store %v, %X[%c1, %c0] : !argus.tile<1x16xf32>, !argus.tensor<?x?xf32>
    return
  }
}
