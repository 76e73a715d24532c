// Unmasked accesses promise that every element is in bounds:
//   Y[rs + i][j] = X[rl + i][j] + Z[rc + i][j]   (4x8 tiles, X and Z 6x8, Y 7x8)
// The load of X, the copy of Z and the store to Y are all unmasked, so an
// offset that puts an element outside its tensor is an error, reported before
// anything is written.
module {
  func.func @unmasked__grid(%X: !argus.tensor<?x8xf32>, %Y: !argus.tensor<?x8xf32>, %Z: !argus.tensor<?x8xf32>,
                            %rl: index, %rs: index, %rc: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @unmasked(%X: !argus.tensor<?x8xf32>, %Y: !argus.tensor<?x8xf32>, %Z: !argus.tensor<?x8xf32>,
                      %rl: index, %rs: index, %rc: index)
      attributes {argus.kernel, argus.grid = @unmasked__grid, argus.arg_names = ["X", "Y", "Z", "rl", "rs", "rc"]} {
    %c0 = arith.constant 0 : index
    %x = argus.load unmasked %X[%rl, %c0] : !argus.tensor<?x8xf32> -> !argus.tile<4x8xf32>
    %buf = argus.alloc : !argus.buffer<2x4x8xf32, shared>
    argus.copy async unmasked %Z[%rc, %c0], %buf[%c0] : !argus.tensor<?x8xf32>, !argus.buffer<2x4x8xf32, shared>
    argus.wait 0
    %z = argus.buffer_load %buf[%c0] : !argus.buffer<2x4x8xf32, shared> -> !argus.tile<4x8xf32>
    %s = argus.binary add %x, %z : !argus.tile<4x8xf32>, !argus.tile<4x8xf32> -> !argus.tile<4x8xf32>
    argus.store unmasked %s, %Y[%rs, %c0] : !argus.tile<4x8xf32>, !argus.tensor<?x8xf32>
    return
  }
}
