// Async copies land at the `argus.wait` that leaves at most N younger copies
// in flight; a buffer_load before that reads the slot's old contents. Copies
// are masked: the tail copy reads zeros past the end of X.
//   Y[0:8]   = slot 0 before its async copy completes   -> X[0:8] (sync copy)
//   Y[8:16]  = slot 0 after `wait 1`                    -> X[8:16]
//   Y[16:24] = slot 1 after `wait 1` (its copy pending)  -> poison (NaN)
//   Y[24:32] = slot 1 after `wait 0`                    -> X[16:24]
//   Y[32:40] = slot 0 after a copy from X[tail]         -> X[tail:], then 0
module {
  func.func @async_copy_wait__grid(%X: !argus.tensor<?xf32>, %Y: !argus.tensor<?xf32>, %tail: index)
      -> (index, index, index) attributes {argus.grid_of = @async_copy_wait} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @async_copy_wait(%X: !argus.tensor<?xf32>, %Y: !argus.tensor<?xf32>, %tail: index)
      attributes {argus.kernel, argus.grid = @async_copy_wait__grid,
                  argus.arg_names = ["X", "Y", "tail"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c24 = arith.constant 24 : index
    %c32 = arith.constant 32 : index
    %buf = argus.alloc : !argus.buffer<2x8xf32, shared>
    argus.copy %X[%c0], %buf[%c0] : !argus.tensor<?xf32>, !argus.buffer<2x8xf32, shared>
    argus.copy async %X[%c8], %buf[%c0] : !argus.tensor<?xf32>, !argus.buffer<2x8xf32, shared>
    %r0 = argus.buffer_load %buf[%c0] : !argus.buffer<2x8xf32, shared> -> !argus.tile<8xf32>
    argus.copy async %X[%c16], %buf[%c1] : !argus.tensor<?xf32>, !argus.buffer<2x8xf32, shared>
    argus.wait 1
    %r1 = argus.buffer_load %buf[%c0] : !argus.buffer<2x8xf32, shared> -> !argus.tile<8xf32>
    %r2 = argus.buffer_load %buf[%c1] : !argus.buffer<2x8xf32, shared> -> !argus.tile<8xf32>
    argus.wait 0
    %r3 = argus.buffer_load %buf[%c1] : !argus.buffer<2x8xf32, shared> -> !argus.tile<8xf32>
    argus.copy async %X[%tail], %buf[%c0] : !argus.tensor<?xf32>, !argus.buffer<2x8xf32, shared>
    argus.wait 0
    %r4 = argus.buffer_load %buf[%c0] : !argus.buffer<2x8xf32, shared> -> !argus.tile<8xf32>
    argus.store %r0, %Y[%c0] : !argus.tile<8xf32>, !argus.tensor<?xf32>
    argus.store %r1, %Y[%c8] : !argus.tile<8xf32>, !argus.tensor<?xf32>
    argus.store %r2, %Y[%c16] : !argus.tile<8xf32>, !argus.tensor<?xf32>
    argus.store %r3, %Y[%c24] : !argus.tile<8xf32>, !argus.tensor<?xf32>
    argus.store %r4, %Y[%c32] : !argus.tile<8xf32>, !argus.tensor<?xf32>
    return
  }
}
