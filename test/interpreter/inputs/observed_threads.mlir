// Buffer accesses seen by a run observer in a 2-thread kernel: an async copy
// into slot 1 (seen at issue and at the wait that completes it), a read of
// slot 1, and a per-thread write of slot `tid` of a shared buffer.
module {
  func.func @observed_threads__grid(%X: !argus.tensor<?xf32>, %Y: !argus.tensor<?xf32>) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @observed_threads(%X: !argus.tensor<?xf32>, %Y: !argus.tensor<?xf32>)
      attributes {argus.kernel, argus.grid = @observed_threads__grid, argus.threads = 2 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = argus.thread_id
    %buf = argus.alloc : !argus.buffer<2x8xf32, shared>
    argus.copy async %X[%c0], %buf[%c1] : !argus.tensor<?xf32>, !argus.buffer<2x8xf32, shared>
    argus.wait 0
    %v = argus.buffer_load %buf[%c1] : !argus.buffer<2x8xf32, shared> -> !argus.tile<8xf32>
    argus.buffer_store %v, %buf[%tid] : !argus.tile<8xf32>, !argus.buffer<2x8xf32, shared>
    argus.store %v, %Y[%c0] : !argus.tile<8xf32>, !argus.tensor<?xf32>
    return
  }
}
