// Row softmax, 4 rows x 64 columns per program instance (N <= 64): masked
// columns read -inf so they contribute exp(-inf) = 0. An f32 kernel and a
// bf16 one (widened to f32 for the arithmetic, rounded on the way out), and
// the numerators exp(x - max) rounded to bf16 as attention's p is (a cast
// of exp: stored without the denormal check) with their f32 row sums.
module {
  func.func @softmax__grid(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>)
      -> (index, index, index) attributes {argus.grid_of = @softmax} {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %m = argus.dim %X, 0 : !argus.tensor<?x?xf32>
    %g = arith.ceildivsi %m, %c4 : index
    return %g, %c1, %c1 : index, index, index
  }
  func.func @softmax(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>)
      attributes {argus.kernel, argus.grid = @softmax__grid, argus.arg_names = ["X", "Y"]} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %p = argus.program_id 0
    %row = arith.muli %p, %c4 : index
    %x = argus.load %X[%row, %c0] {padding = 0xFFF0000000000000 : f64} : !argus.tensor<?x?xf32> -> !argus.tile<4x64xf32>
    %mx = argus.reduce max %x, 1 : !argus.tile<4x64xf32> -> !argus.tile<4x1xf32>
    %s = argus.binary sub %x, %mx : !argus.tile<4x64xf32>, !argus.tile<4x1xf32> -> !argus.tile<4x64xf32>
    %e = argus.unary exp %s : !argus.tile<4x64xf32>
    %sum = argus.reduce sum %e, 1 : !argus.tile<4x64xf32> -> !argus.tile<4x1xf32>
    %y = argus.binary div %e, %sum : !argus.tile<4x64xf32>, !argus.tile<4x1xf32> -> !argus.tile<4x64xf32>
    argus.store %y, %Y[%row, %c0] : !argus.tile<4x64xf32>, !argus.tensor<?x?xf32>
    return
  }

  func.func @softmax_bf16__grid(%X: !argus.tensor<?x?xbf16>, %Y: !argus.tensor<?x?xbf16>)
      -> (index, index, index) attributes {argus.grid_of = @softmax_bf16} {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %m = argus.dim %X, 0 : !argus.tensor<?x?xbf16>
    %g = arith.ceildivsi %m, %c4 : index
    return %g, %c1, %c1 : index, index, index
  }
  func.func @softmax_bf16(%X: !argus.tensor<?x?xbf16>, %Y: !argus.tensor<?x?xbf16>)
      attributes {argus.kernel, argus.grid = @softmax_bf16__grid, argus.arg_names = ["X", "Y"]} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %p = argus.program_id 0
    %row = arith.muli %p, %c4 : index
    %x16 = argus.load %X[%row, %c0] {padding = 0xFFF0000000000000 : f64} : !argus.tensor<?x?xbf16> -> !argus.tile<4x64xbf16>
    %x = argus.cast %x16 : !argus.tile<4x64xbf16> to !argus.tile<4x64xf32>
    %mx = argus.reduce max %x, 1 : !argus.tile<4x64xf32> -> !argus.tile<4x1xf32>
    %s = argus.binary sub %x, %mx : !argus.tile<4x64xf32>, !argus.tile<4x1xf32> -> !argus.tile<4x64xf32>
    %e = argus.unary exp %s : !argus.tile<4x64xf32>
    %sum = argus.reduce sum %e, 1 : !argus.tile<4x64xf32> -> !argus.tile<4x1xf32>
    %y = argus.binary div %e, %sum : !argus.tile<4x64xf32>, !argus.tile<4x1xf32> -> !argus.tile<4x64xf32>
    %y16 = argus.cast %y : !argus.tile<4x64xf32> to !argus.tile<4x64xbf16>
    argus.store %y16, %Y[%row, %c0] : !argus.tile<4x64xbf16>, !argus.tensor<?x?xbf16>
    return
  }

  func.func @numerators_bf16__grid(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xbf16>,
                                   %S: !argus.tensor<?x1xf32>)
      -> (index, index, index) attributes {argus.grid_of = @numerators_bf16} {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %m = argus.dim %X, 0 : !argus.tensor<?x?xf32>
    %g = arith.ceildivsi %m, %c4 : index
    return %g, %c1, %c1 : index, index, index
  }
  func.func @numerators_bf16(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xbf16>, %S: !argus.tensor<?x1xf32>)
      attributes {argus.kernel, argus.grid = @numerators_bf16__grid, argus.arg_names = ["X", "Y", "S"]} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %p = argus.program_id 0
    %row = arith.muli %p, %c4 : index
    %x = argus.load %X[%row, %c0] {padding = 0xFFF0000000000000 : f64} : !argus.tensor<?x?xf32> -> !argus.tile<4x64xf32>
    %mx = argus.reduce max %x, 1 : !argus.tile<4x64xf32> -> !argus.tile<4x1xf32>
    %s = argus.binary sub %x, %mx : !argus.tile<4x64xf32>, !argus.tile<4x1xf32> -> !argus.tile<4x64xf32>
    %e = argus.unary exp %s : !argus.tile<4x64xf32>
    %e16 = argus.cast %e : !argus.tile<4x64xf32> to !argus.tile<4x64xbf16>
    %sum = argus.reduce sum %e, 1 : !argus.tile<4x64xf32> -> !argus.tile<4x1xf32>
    argus.store %e16, %Y[%row, %c0] : !argus.tile<4x64xbf16>, !argus.tensor<?x?xbf16>
    argus.store %sum, %S[%row, %c0] : !argus.tile<4x1xf32>, !argus.tensor<?x1xf32>
    return
  }
}
