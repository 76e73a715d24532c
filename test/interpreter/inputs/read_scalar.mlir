// argus.read: Y[p][:] = X[Idx[p]][:] (a gather through an index tensor, as a
// paged KV cache reads its block table). One instance per row of Y; Idx may
// be shorter than Y, so rows past its end read out of bounds.
module {
  func.func @gather__grid(%X: !argus.tensor<?x8xf32>, %Idx: !argus.tensor<?xi32>, %Y: !argus.tensor<?x8xf32>)
      -> (index, index, index) {
    %c1 = arith.constant 1 : index
    %rows = argus.dim %Y, 0 : !argus.tensor<?x8xf32>
    return %rows, %c1, %c1 : index, index, index
  }
  func.func @gather(%X: !argus.tensor<?x8xf32>, %Idx: !argus.tensor<?xi32>, %Y: !argus.tensor<?x8xf32>)
      attributes {argus.kernel, argus.grid = @gather__grid, argus.arg_names = ["X", "Idx", "Y"]} {
    %c0 = arith.constant 0 : index
    %p = argus.program_id 0
    %i = argus.read %Idx[%p] : !argus.tensor<?xi32> -> i32
    %row = arith.index_cast %i : i32 to index
    %x = argus.load %X[%row, %c0] : !argus.tensor<?x8xf32> -> !argus.tile<1x8xf32>
    argus.store %x, %Y[%p, %c0] : !argus.tile<1x8xf32>, !argus.tensor<?x8xf32>
    return
  }
}
