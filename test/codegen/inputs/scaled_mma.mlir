// Attention's scores, s = mma(q, k, zeros) * scale: a product from zeros
// whose only use multiplies it by a scalar argument (folded into
// ak::mma_scaled), and the same product also stored unscaled (two uses: a
// product and a multiply of their own). S and U must be equal.
module {
  func.func @smma__grid(%Q: !argus.tensor<?x?xf32>, %K: !argus.tensor<?x?xf32>, %S: !argus.tensor<?x?xf32>,
                        %T: !argus.tensor<?x?xf32>, %U: !argus.tensor<?x?xf32>, %scale: f32)
      -> (index, index, index) attributes {argus.grid_of = @smma} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @smma(%Q: !argus.tensor<?x?xf32>, %K: !argus.tensor<?x?xf32>, %S: !argus.tensor<?x?xf32>,
                  %T: !argus.tensor<?x?xf32>, %U: !argus.tensor<?x?xf32>, %scale: f32)
      attributes {argus.kernel, argus.grid = @smma__grid, argus.threads = 1 : i64,
                  argus.arg_names = ["Q", "K", "S", "T", "U", "scale"]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %z = argus.full %zero : f32 -> !argus.tile<64x40xf32>
    %q = argus.load %Q[%c0, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<64x48xf32>
    %k = argus.load %K[%c0, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<40x48xf32>
    %p = argus.mma %q, %k, %z : !argus.tile<64x48xf32>, !argus.tile<40x48xf32>, !argus.tile<64x40xf32>
    %s = argus.binary mul %p, %scale : !argus.tile<64x40xf32>, f32 -> !argus.tile<64x40xf32>
    argus.store %s, %S[%c0, %c0] : !argus.tile<64x40xf32>, !argus.tensor<?x?xf32>
    %t = argus.mma %q, %k, %z : !argus.tile<64x48xf32>, !argus.tile<40x48xf32>, !argus.tile<64x40xf32>
    argus.store %t, %T[%c0, %c0] : !argus.tile<64x40xf32>, !argus.tensor<?x?xf32>
    %u = argus.binary mul %t, %scale : !argus.tile<64x40xf32>, f32 -> !argus.tile<64x40xf32>
    argus.store %u, %U[%c0, %c0] : !argus.tile<64x40xf32>, !argus.tensor<?x?xf32>
    return
  }
}
