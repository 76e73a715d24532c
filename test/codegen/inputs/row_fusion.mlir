// Row pipelines (EmitRowFusion.cpp) on the edge values: 4 rows x 32 columns
// per program instance. Lanes ops (maximum, minimum, a lanes mask, selects on
// a lanes mask and on a row's i1, silu, a bf16 cast), row reductions with NaN
// in a row, and row scalars between them, across three phases:
//   mx = max(x, y), mn = min(x, y), rmax = reduce_max(x), rmin = reduce_min(y)
//   gt = rmax > rmin (a row's i1), pick = gt ? mx : mn
//   sel = x < y ? pick : -0.0, e = silu(sel), sum = reduce_sum(e)
//   out = bf16(pick); E = e - sum (phase 2), O = out, RM = rmax, S = sum.
module {
  func.func @row_fusion__grid(%X: !argus.tensor<?x32xf32>, %Y: !argus.tensor<?x32xf32>,
                              %E: !argus.tensor<?x32xf32>, %O: !argus.tensor<?x32xbf16>,
                              %RM: !argus.tensor<?x1xf32>, %S: !argus.tensor<?x1xf32>)
      -> (index, index, index) attributes {argus.grid_of = @row_fusion} {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %m = argus.dim %X, 0 : !argus.tensor<?x32xf32>
    %g = arith.ceildivsi %m, %c4 : index
    return %g, %c1, %c1 : index, index, index
  }
  func.func @row_fusion(%X: !argus.tensor<?x32xf32>, %Y: !argus.tensor<?x32xf32>,
                        %E: !argus.tensor<?x32xf32>, %O: !argus.tensor<?x32xbf16>,
                        %RM: !argus.tensor<?x1xf32>, %S: !argus.tensor<?x1xf32>)
      attributes {argus.kernel, argus.grid = @row_fusion__grid,
                  argus.arg_names = ["X", "Y", "E", "O", "RM", "S"]} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %negzero = arith.constant -0.0 : f32
    %p = argus.program_id 0
    %row = arith.muli %p, %c4 : index
    %x = argus.load %X[%row, %c0] : !argus.tensor<?x32xf32> -> !argus.tile<4x32xf32>
    %y = argus.load %Y[%row, %c0] : !argus.tensor<?x32xf32> -> !argus.tile<4x32xf32>
    %mx = argus.binary max %x, %y : !argus.tile<4x32xf32>, !argus.tile<4x32xf32> -> <4x32xf32>
    %mn = argus.binary min %x, %y : !argus.tile<4x32xf32>, !argus.tile<4x32xf32> -> <4x32xf32>
    %rmax = argus.reduce max %x, 1 : <4x32xf32> -> <4x1xf32>
    %rmin = argus.reduce min %y, 1 : <4x32xf32> -> <4x1xf32>
    %gt = argus.cmp gt %rmax, %rmin : !argus.tile<4x1xf32>, !argus.tile<4x1xf32> -> <4x1xi1>
    %pick = argus.select %gt, %mx, %mn : <4x1xi1>, !argus.tile<4x32xf32>, !argus.tile<4x32xf32> -> <4x32xf32>
    %lt = argus.cmp lt %x, %y : !argus.tile<4x32xf32>, !argus.tile<4x32xf32> -> <4x32xi1>
    %sel = argus.select %lt, %pick, %negzero : <4x32xi1>, !argus.tile<4x32xf32>, f32 -> <4x32xf32>
    %e = argus.unary silu %sel : <4x32xf32>
    %sum = argus.reduce sum %e, 1 : <4x32xf32> -> <4x1xf32>
    %out = argus.cast %pick : <4x32xf32> to <4x32xbf16>
    %d = argus.binary sub %e, %sum : !argus.tile<4x32xf32>, !argus.tile<4x1xf32> -> <4x32xf32>
    argus.store %d, %E[%row, %c0] : !argus.tile<4x32xf32>, !argus.tensor<?x32xf32>
    argus.store %out, %O[%row, %c0] : !argus.tile<4x32xbf16>, !argus.tensor<?x32xbf16>
    argus.store %rmax, %RM[%row, %c0] : !argus.tile<4x1xf32>, !argus.tensor<?x1xf32>
    argus.store %sum, %S[%row, %c0] : !argus.tile<4x1xf32>, !argus.tensor<?x1xf32>
    return
  }
}
