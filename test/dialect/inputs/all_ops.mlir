// Every argus op, type and attribute at least once (a thread-level kernel).
module {
  func.func @all__grid(%X: !argus.tensor<?x64xbf16>, %Y: !argus.tensor<?x64xf32>, %s: f32) -> (index, index, index)
      attributes {argus.grid_of = @all} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @all(%X: !argus.tensor<?x64xbf16>, %Y: !argus.tensor<?x64xf32>, %s: f32)
      attributes {argus.kernel, argus.grid = @all__grid, argus.threads = 32 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = argus.dim %X, 0 : !argus.tensor<?x64xbf16>
    %p = argus.program_id 0
    %g = argus.num_programs 1
    %t = argus.thread_id
    %nt = argus.num_threads
    %sa = argus.alloc : !argus.buffer<2x16x64xbf16, shared, #argus.swizzle<3, 3, 3>>
    %sl = argus.alloc : !argus.buffer<16x64xf32, local, #argus.layout<(16, (8, 8)):(64, (1, 8))>>
    argus.tag %sa names ["m", "k"] : !argus.buffer<2x16x64xbf16, shared, #argus.swizzle<3, 3, 3>> {
    ^bb0(%s0: index, %i: index, %j: index):
      argus.yield %i, %j : index, index
    }
    argus.copy async %X[%p, %c0], %sa[%c0] : !argus.tensor<?x64xbf16>, !argus.buffer<2x16x64xbf16, shared, #argus.swizzle<3, 3, 3>>
    argus.copy %X[%p, %c0], %sa[%c1] : !argus.tensor<?x64xbf16>, !argus.buffer<2x16x64xbf16, shared, #argus.swizzle<3, 3, 3>>
    argus.wait 0
    argus.barrier
    %a = argus.buffer_load %sa[%c0] : !argus.buffer<2x16x64xbf16, shared, #argus.swizzle<3, 3, 3>> -> !argus.tile<16x64xbf16>
    %b = argus.load %X[%c0, %c0] {padding = 1.0 : f64} : !argus.tensor<?x64xbf16> -> !argus.tile<8x64xbf16>
    %elem = argus.read %X[%c1, %c0] : !argus.tensor<?x64xbf16> -> bf16
    argus.prefetch %X[%c1, %c0] [8, 64] : !argus.tensor<?x64xbf16>
    argus.prefetch %X[%c1, %c0] [1, ?] {level = 2 : i64} : !argus.tensor<?x64xbf16>
    argus.assert_tag %a, %b {message = "operands pair the same k"} : !argus.tile<16x64xbf16>, !argus.tile<8x64xbf16> {
    ^bb0(%ta: !argus.tag, %tb: !argus.tag):
      %ka = argus.tag_get %ta["k"]
      %kb = argus.tag_get %tb["1"]
      %eq = arith.cmpi eq, %ka, %kb : index
      argus.yield %eq : i1
    }
    %zero = arith.constant 0.0 : f32
    %acc0 = argus.full %zero : f32 -> !argus.tile<16x8xf32>
    %acc = argus.mma %a, %b, %acc0 : !argus.tile<16x64xbf16>, !argus.tile<8x64xbf16>, !argus.tile<16x8xf32>
    %e = argus.unary exp %acc : !argus.tile<16x8xf32>
    %mx = argus.reduce max %e, 1 : !argus.tile<16x8xf32> -> !argus.tile<16x1xf32>
    %d = argus.binary sub %e, %mx : !argus.tile<16x8xf32>, !argus.tile<16x1xf32> -> !argus.tile<16x8xf32>
    %sc = argus.binary mul %s, %d : f32, !argus.tile<16x8xf32> -> !argus.tile<16x8xf32>
    %rows = argus.iota 0 : !argus.tile<16x8xi32>
    %cols = argus.iota 1 : !argus.tile<16x8xi32>
    %mask = argus.cmp le %cols, %rows : !argus.tile<16x8xi32>, !argus.tile<16x8xi32> -> !argus.tile<16x8xi1>
    %sel = argus.select %mask, %sc, %zero : !argus.tile<16x8xi1>, !argus.tile<16x8xf32>, f32 -> !argus.tile<16x8xf32>
    %tr = argus.transpose %sel : !argus.tile<16x8xf32> -> !argus.tile<8x16xf32>
    %rs = argus.reshape %tr : !argus.tile<8x16xf32> -> !argus.tile<128xf32>
    %back = argus.reshape %rs : !argus.tile<128xf32> -> !argus.tile<16x8xf32>
    %bf = argus.cast %back : !argus.tile<16x8xf32> to !argus.tile<16x8xbf16>
    %wide = argus.cast %bf : !argus.tile<16x8xbf16> to !argus.tile<16x8xf32>
    %loc = argus.full %zero : f32 -> !argus.tile<16x64xf32>
    argus.buffer_store %loc, %sl[] : !argus.tile<16x64xf32>, !argus.buffer<16x64xf32, local, #argus.layout<(16, (8, 8)):(64, (1, 8))>>
    argus.reset_tags %sa : !argus.buffer<2x16x64xbf16, shared, #argus.swizzle<3, 3, 3>>
    %pad = argus.full %zero : f32 -> !argus.tile<16x56xf32>
    argus.store %wide, %Y[%p, %c0] : !argus.tile<16x8xf32>, !argus.tensor<?x64xf32>
    return
  }
}
