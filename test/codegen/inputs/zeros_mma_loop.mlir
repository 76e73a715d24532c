// Attention's scores step in a loop over key blocks: each step's product
// starts from zeros defined once outside the loop (as hoisting leaves them),
// and its result is stored; a second product reads the same zeros, and a
// third tile of zeros is also stored itself (so it keeps a tile of its own).
module {
  func.func @zmma__grid(%Q: !argus.tensor<?x?xf32>, %K: !argus.tensor<?x?xf32>, %S: !argus.tensor<?x?xf32>)
      -> (index, index, index) attributes {argus.grid_of = @zmma} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @zmma(%Q: !argus.tensor<?x?xf32>, %K: !argus.tensor<?x?xf32>, %S: !argus.tensor<?x?xf32>)
      attributes {argus.kernel, argus.grid = @zmma__grid, argus.threads = 1 : i64,
                  argus.arg_names = ["Q", "K", "S"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %z = argus.full %zero : f32 -> !argus.tile<8x8xf32>
    %kept = argus.full %zero : f32 -> !argus.tile<8x8xf32>
    %q = argus.load %Q[%c0, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<8x16xf32>
    scf.for %kt = %c0 to %c4 step %c1 {
      %row = arith.muli %kt, %c8 : index
      %k = argus.load %K[%row, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<8x16xf32>
      %s = argus.mma %q, %k, %z : !argus.tile<8x16xf32>, !argus.tile<8x16xf32>, !argus.tile<8x8xf32>
      argus.store %s, %S[%c0, %row] : !argus.tile<8x8xf32>, !argus.tensor<?x?xf32>
      %t = argus.mma %q, %k, %z : !argus.tile<8x16xf32>, !argus.tile<8x16xf32>, !argus.tile<8x8xf32>
      argus.store %t, %S[%c8, %row] : !argus.tile<8x8xf32>, !argus.tensor<?x?xf32>
      %u = argus.mma %q, %k, %kept : !argus.tile<8x16xf32>, !argus.tile<8x16xf32>, !argus.tile<8x8xf32>
      argus.store %u, %S[%c0, %c0] : !argus.tile<8x8xf32>, !argus.tensor<?x?xf32>
    }
    argus.store %kept, %S[%c8, %c0] : !argus.tile<8x8xf32>, !argus.tensor<?x?xf32>
    return
  }
}
