// argus.segment: Y = X + 1 over a varlen batch packed as [rows, 8], sequence
// b being rows [Cu[b], Cu[b + 1]) kept to `max` rows. One instance per 2-row
// tile of one sequence; the grid has one key past the last sequence (no rows).
module {
  func.func @varlen__grid(%X: !argus.tensor<?x8xf32>, %Cu: !argus.tensor<?xi32>, %Y: !argus.tensor<?x8xf32>,
                          %max: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %keys = argus.dim %Cu, 0 : !argus.tensor<?xi32>
    %tiles = arith.ceildivsi %max, %c2 : index
    return %tiles, %keys, %c1 : index, index, index
  }
  func.func @varlen(%X: !argus.tensor<?x8xf32>, %Cu: !argus.tensor<?xi32>, %Y: !argus.tensor<?x8xf32>, %max: index)
      attributes {argus.kernel, argus.grid = @varlen__grid, argus.arg_names = ["X", "Cu", "Y", "max"]} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    %b = argus.program_id 1
    %xs = argus.segment %X, %Cu[%b] limit %max : !argus.tensor<?x8xf32>, !argus.tensor<?xi32> -> !argus.tensor<?x8xf32>
    %ys = argus.segment %Y, %Cu[%b] limit %max : !argus.tensor<?x8xf32>, !argus.tensor<?xi32> -> !argus.tensor<?x8xf32>
    %t = argus.program_id 0
    %row = arith.muli %t, %c2 : index
    %x = argus.load %xs[%row, %c0] : !argus.tensor<?x8xf32> -> !argus.tile<2x8xf32>
    %y = argus.binary add %x, %one : !argus.tile<2x8xf32>, f32 -> !argus.tile<2x8xf32>
    argus.store %y, %ys[%row, %c0] : !argus.tile<2x8xf32>, !argus.tensor<?x8xf32>
    return
  }
}
