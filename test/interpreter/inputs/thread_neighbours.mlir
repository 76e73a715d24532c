// 32 threads per program instance. Each thread stores its element of X into a
// shared buffer and into its own local buffer, waits at the barrier, then
// reads its right neighbour's slot (wrapping at 32):
//   Y[i] = 2 * X[neighbour(i)] + X[i]   (X past its end reads 0)
// Right only if shared memory is one buffer per instance seen by all threads,
// local memory one buffer per thread, and the barrier orders the accesses.
module {
  func.func @thread_neighbours__grid(%X: !argus.tensor<?xf32>, %Y: !argus.tensor<?xf32>)
      -> (index, index, index) attributes {argus.grid_of = @thread_neighbours} {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %n = argus.dim %X, 0 : !argus.tensor<?xf32>
    %g = arith.ceildivsi %n, %c32 : index
    return %g, %c1, %c1 : index, index, index
  }
  func.func @thread_neighbours(%X: !argus.tensor<?xf32>, %Y: !argus.tensor<?xf32>)
      attributes {argus.kernel, argus.grid = @thread_neighbours__grid, argus.threads = 32 : i64,
                  argus.arg_names = ["X", "Y"]} {
    %c1 = arith.constant 1 : index
    %two = arith.constant 2.0 : f32
    %nt = argus.num_threads
    %t = argus.thread_id
    %p = argus.program_id 0
    %base = arith.muli %p, %nt : index
    %i = arith.addi %base, %t : index
    %shared = argus.alloc : !argus.buffer<32x1xf32, shared>
    %local = argus.alloc : !argus.buffer<1xf32, local>
    %v = argus.load %X[%i] : !argus.tensor<?xf32> -> !argus.tile<1xf32>
    argus.buffer_store %v, %shared[%t] : !argus.tile<1xf32>, !argus.buffer<32x1xf32, shared>
    argus.buffer_store %v, %local[] : !argus.tile<1xf32>, !argus.buffer<1xf32, local>
    argus.barrier
    %t1 = arith.addi %t, %c1 : index
    %nb = arith.remsi %t1, %nt : index
    %w = argus.buffer_load %shared[%nb] : !argus.buffer<32x1xf32, shared> -> !argus.tile<1xf32>
    %own = argus.buffer_load %local[] : !argus.buffer<1xf32, local> -> !argus.tile<1xf32>
    %w2 = argus.binary mul %two, %w : f32, !argus.tile<1xf32> -> !argus.tile<1xf32>
    %r = argus.binary add %w2, %own : !argus.tile<1xf32>, !argus.tile<1xf32> -> !argus.tile<1xf32>
    argus.store %r, %Y[%i] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    return
  }
}
