// A rank-1 tile minus its own max (shape [1]): the [1] operand must be read
// at index 0, never past its end.
module {
  func.func @bc__grid(%X: !argus.tensor<?xf32>) -> (index, index, index) attributes {argus.grid_of = @bc} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @bc(%X: !argus.tensor<?xf32>) attributes {argus.kernel, argus.grid = @bc__grid, argus.threads = 1 : i64} {
    %c0 = arith.constant 0 : index
    %v = argus.load %X[%c0] : !argus.tensor<?xf32> -> !argus.tile<64xf32>
    %m = argus.reduce max %v, 0 : !argus.tile<64xf32> -> !argus.tile<1xf32>
    %d = argus.binary sub %v, %m : !argus.tile<64xf32>, !argus.tile<1xf32> -> !argus.tile<64xf32>
    argus.store %d, %X[%c0] : !argus.tile<64xf32>, !argus.tensor<?xf32>
    return
  }
}
