// Row softmax Y = exp(X - max) / sum(exp(X - max)) over rows of up to 64
// columns, 4 rows per program instance. Columns past N read -inf, so they add
// exp(-inf) = 0 to the sum; rows past M are never stored.
module {
  func.func @softmax_rows__grid(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>)
      -> (index, index, index) attributes {argus.grid_of = @softmax_rows} {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %m = argus.dim %X, 0 : !argus.tensor<?x?xf32>
    %g0 = arith.ceildivsi %m, %c4 : index
    return %g0, %c1, %c1 : index, index, index
  }
  func.func @softmax_rows(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>)
      attributes {argus.kernel, argus.grid = @softmax_rows__grid,
                  argus.arg_names = ["X", "Y"]} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %p = argus.program_id 0
    %row = arith.muli %p, %c4 : index
    %x = argus.load %X[%row, %c0] {padding = 0xFFF0000000000000 : f64} : !argus.tensor<?x?xf32> -> !argus.tile<4x64xf32>
    %mx = argus.reduce max %x, 1 : !argus.tile<4x64xf32> -> !argus.tile<4x1xf32>
    %s = argus.binary sub %x, %mx : !argus.tile<4x64xf32>, !argus.tile<4x1xf32> -> !argus.tile<4x64xf32>
    %e = argus.unary exp %s : !argus.tile<4x64xf32>
    %sum = argus.reduce sum %e, 1 : !argus.tile<4x64xf32> -> !argus.tile<4x1xf32>
    %inv = argus.unary recip %sum : !argus.tile<4x1xf32>
    %y = argus.binary mul %e, %inv : !argus.tile<4x64xf32>, !argus.tile<4x1xf32> -> !argus.tile<4x64xf32>
    argus.store %y, %Y[%row, %c0] : !argus.tile<4x64xf32>, !argus.tensor<?x?xf32>
    return
  }
}
