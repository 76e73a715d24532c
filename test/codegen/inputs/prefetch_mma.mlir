// Decode attention's shape of work on one head: the next page of keys and of
// values prefetched before the products over this one (q k^T, then p v with
// v read as it lies, added to the output scaled a row at a time), and a
// prefetch no product of its shape follows.
module {
  func.func @pfmma__grid(%Q: !argus.tensor<?x?xbf16>, %K: !argus.tensor<?x?xbf16>, %V: !argus.tensor<?x?xbf16>,
                         %O: !argus.tensor<?x?xf32>) -> (index, index, index) attributes {argus.grid_of = @pfmma} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @pfmma(%Q: !argus.tensor<?x?xbf16>, %K: !argus.tensor<?x?xbf16>, %V: !argus.tensor<?x?xbf16>,
                   %O: !argus.tensor<?x?xf32>)
      attributes {argus.kernel, argus.grid = @pfmma__grid, argus.threads = 1 : i64,
                  argus.arg_names = ["Q", "K", "V", "O"]} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %q = argus.load %Q[%c0, %c0] : !argus.tensor<?x?xbf16> -> !argus.tile<4x128xbf16>
    argus.prefetch %K[%c16, %c0] [16, 128] {level = 2 : i64} : !argus.tensor<?x?xbf16>
    %k = argus.load %K[%c0, %c0] : !argus.tensor<?x?xbf16> -> !argus.tile<16x128xbf16>
    %s0 = argus.full %zero : f32 -> !argus.tile<4x16xf32>
    %s = argus.mma %q, %k, %s0 : !argus.tile<4x128xbf16>, !argus.tile<16x128xbf16>, !argus.tile<4x16xf32>
    argus.prefetch %V[%c16, %c0] [16, 128] {level = 2 : i64} : !argus.tensor<?x?xbf16>
    argus.prefetch %V[%c16, %c0] [8, 128] {level = 2 : i64} : !argus.tensor<?x?xbf16>
    %v = argus.load %V[%c0, %c0] : !argus.tensor<?x?xbf16> -> !argus.tile<16x128xbf16>
    %vt = argus.transpose %v : !argus.tile<16x128xbf16> -> !argus.tile<128x16xbf16>
    %p = argus.cast %s : !argus.tile<4x16xf32> to !argus.tile<4x16xbf16>
    %o0 = argus.load %O[%c0, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<4x128xf32>
    %half = arith.constant 0.5 : f32
    %alpha = argus.full %half : f32 -> !argus.tile<4x1xf32>
    %o0s = argus.binary mul %o0, %alpha : !argus.tile<4x128xf32>, !argus.tile<4x1xf32> -> !argus.tile<4x128xf32>
    %o = argus.mma %p, %vt, %o0s : !argus.tile<4x16xbf16>, !argus.tile<128x16xbf16>, !argus.tile<4x128xf32>
    argus.store %o, %O[%c0, %c0] : !argus.tile<4x128xf32>, !argus.tensor<?x?xf32>
    return
  }
}
