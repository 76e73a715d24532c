// Rank-3 masked load, a reduction over the leading axis (column-wise, POST >
// 1), reshape, transpose, a column max and a broadcast subtraction, in one
// program instance: y = t - max_rows(t), t = transpose(sum_b In[b, r+i, c+j]).
module {
  func.func @shapes__grid(%In: !argus.tensor<?x?x?xf32>, %Out: !argus.tensor<?x?xf32>, %r: index, %c: index)
      -> (index, index, index) attributes {argus.grid_of = @shapes} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @shapes(%In: !argus.tensor<?x?x?xf32>, %Out: !argus.tensor<?x?xf32>, %r: index, %c: index)
      attributes {argus.kernel, argus.grid = @shapes__grid, argus.arg_names = ["In", "Out", "r", "c"]} {
    %c0 = arith.constant 0 : index
    %x = argus.load %In[%c0, %r, %c] {padding = 2.0 : f64} : !argus.tensor<?x?x?xf32> -> !argus.tile<2x4x8xf32>
    %s = argus.reduce sum %x, 0 : !argus.tile<2x4x8xf32> -> !argus.tile<1x4x8xf32>
    %m = argus.reshape %s : !argus.tile<1x4x8xf32> -> !argus.tile<4x8xf32>
    %t = argus.transpose %m : !argus.tile<4x8xf32> -> !argus.tile<8x4xf32>
    %mx = argus.reduce max %t, 0 : !argus.tile<8x4xf32> -> !argus.tile<1x4xf32>
    %y = argus.binary sub %t, %mx : !argus.tile<8x4xf32>, !argus.tile<1x4xf32> -> !argus.tile<8x4xf32>
    argus.store %y, %Out[%c0, %c0] : !argus.tile<8x4xf32>, !argus.tensor<?x?xf32>
    return
  }
}
