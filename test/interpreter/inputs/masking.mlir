// Masked global access at arbitrary (also negative) offsets:
//   Y[r1.., c1..] <- load X[r0.., c0..] with padding 7.5   (8x8 tile)
//   Z[r1.., c1..] <- copy X[r0.., c0..] into shared memory  (padding 0)
// Out-of-bounds source elements read the padding; out-of-bounds destination
// elements are skipped.
module {
  func.func @masking__grid(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>,
                           %Z: !argus.tensor<?x?xf32>, %r0: index, %c0: index,
                           %r1: index, %c1: index)
      -> (index, index, index) attributes {argus.grid_of = @masking} {
    %one = arith.constant 1 : index
    return %one, %one, %one : index, index, index
  }
  func.func @masking(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>,
                     %Z: !argus.tensor<?x?xf32>, %r0: index, %c0: index,
                     %r1: index, %c1: index)
      attributes {argus.kernel, argus.grid = @masking__grid,
                  argus.arg_names = ["X", "Y", "Z", "r0", "c0", "r1", "c1"]} {
    %t = argus.load %X[%r0, %c0] {padding = 7.5 : f64} : !argus.tensor<?x?xf32> -> !argus.tile<8x8xf32>
    argus.store %t, %Y[%r1, %c1] : !argus.tile<8x8xf32>, !argus.tensor<?x?xf32>
    %buf = argus.alloc : !argus.buffer<8x8xf32, shared>
    argus.copy %X[%r0, %c0], %buf[] : !argus.tensor<?x?xf32>, !argus.buffer<8x8xf32, shared>
    %u = argus.buffer_load %buf[] : !argus.buffer<8x8xf32, shared> -> !argus.tile<8x8xf32>
    argus.store %u, %Z[%r1, %c1] : !argus.tile<8x8xf32>, !argus.tensor<?x?xf32>
    return
  }
}
