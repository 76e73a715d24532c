// Masked edges: each 8x16 program tile reads In at (row - 1, col + 3), so the
// first tile row and the last columns fall outside In and read the padding
// 7.5; iota/cmp/select pick x below the tile's diagonal (col < row) and -x
// elsewhere. Out is written with masking (ragged shapes, strided rows).
module {
  func.func @edges__grid(%In: !argus.tensor<?x?xf32>, %Out: !argus.tensor<?x?xf32>)
      -> (index, index, index) attributes {argus.grid_of = @edges} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %m = argus.dim %Out, 0 : !argus.tensor<?x?xf32>
    %n = argus.dim %Out, 1 : !argus.tensor<?x?xf32>
    %g0 = arith.ceildivsi %m, %c8 : index
    %g1 = arith.ceildivsi %n, %c16 : index
    return %g0, %g1, %c1 : index, index, index
  }
  func.func @edges(%In: !argus.tensor<?x?xf32>, %Out: !argus.tensor<?x?xf32>)
      attributes {argus.kernel, argus.grid = @edges__grid, argus.arg_names = ["In", "Out"]} {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %p0 = argus.program_id 0
    %p1 = argus.program_id 1
    %row = arith.muli %p0, %c8 : index
    %col = arith.muli %p1, %c16 : index
    %r = arith.subi %row, %c1 : index
    %c = arith.addi %col, %c3 : index
    %x = argus.load %In[%r, %c] {padding = 7.5 : f64} : !argus.tensor<?x?xf32> -> !argus.tile<8x16xf32>
    %ri = argus.iota 0 : !argus.tile<8x16xi32>
    %ci = argus.iota 1 : !argus.tile<8x16xi32>
    %below = argus.cmp lt %ci, %ri : !argus.tile<8x16xi32>, !argus.tile<8x16xi32> -> !argus.tile<8x16xi1>
    %neg = argus.unary neg %x : !argus.tile<8x16xf32>
    %y = argus.select %below, %x, %neg : !argus.tile<8x16xi1>, !argus.tile<8x16xf32>, !argus.tile<8x16xf32> -> !argus.tile<8x16xf32>
    argus.store %y, %Out[%row, %col] : !argus.tile<8x16xf32>, !argus.tensor<?x?xf32>
    return
  }
}
