// Local buffer slots loaded, updated and stored back (attention's per-head
// accumulators, updated in a branch): slot 0 is updated in its own storage;
// slot 1 is loaded again before its store, so its first load is a copy; the
// final reads are views, one of them read by a fused elementwise run.
// Y[0:4] = exp(X[0:4])^2, Y[4:8] = 2 X[4:8].
// @live: a value computed before a slot's store back and read after it must
// not live in the slot (the store copies another value in):
// Y = (2 X)^2 + 2 X.
module {
  func.func @inplace__grid(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>) -> (index, index, index)
      attributes {argus.grid_of = @inplace} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @inplace(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>)
      attributes {argus.kernel, argus.grid = @inplace__grid, argus.threads = 1 : i64, argus.arg_names = ["X", "Y"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %acc = argus.alloc : !argus.buffer<2x4x16xf32, local>
    %z = argus.full %zero : f32 -> !argus.tile<4x16xf32>
    %x0 = argus.load %X[%c0, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<4x16xf32>
    %x1 = argus.load %X[%c4, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<4x16xf32>
    argus.buffer_store %z, %acc[%c0] : !argus.tile<4x16xf32>, !argus.buffer<2x4x16xf32, local>
    argus.buffer_store %x1, %acc[%c1] : !argus.tile<4x16xf32>, !argus.buffer<2x4x16xf32, local>
    %taken = arith.cmpi ult, %c0, %c1 : index
    %a = argus.buffer_load %acc[%c0] : !argus.buffer<2x4x16xf32, local> -> !argus.tile<4x16xf32>
    %s = scf.if %taken -> (!argus.tile<4x16xf32>) {
      %u = argus.binary add %a, %x0 : !argus.tile<4x16xf32>, !argus.tile<4x16xf32> -> !argus.tile<4x16xf32>
      scf.yield %u : !argus.tile<4x16xf32>
    } else {
      %w = argus.binary sub %a, %x0 : !argus.tile<4x16xf32>, !argus.tile<4x16xf32> -> !argus.tile<4x16xf32>
      scf.yield %w : !argus.tile<4x16xf32>
    }
    argus.buffer_store %s, %acc[%c0] : !argus.tile<4x16xf32>, !argus.buffer<2x4x16xf32, local>
    %b = argus.buffer_load %acc[%c1] : !argus.buffer<2x4x16xf32, local> -> !argus.tile<4x16xf32>
    %r = argus.buffer_load %acc[%c1] : !argus.buffer<2x4x16xf32, local> -> !argus.tile<4x16xf32>
    %t = scf.if %taken -> (!argus.tile<4x16xf32>) {
      %u = argus.binary add %b, %r : !argus.tile<4x16xf32>, !argus.tile<4x16xf32> -> !argus.tile<4x16xf32>
      scf.yield %u : !argus.tile<4x16xf32>
    } else {
      scf.yield %b : !argus.tile<4x16xf32>
    }
    argus.buffer_store %t, %acc[%c1] : !argus.tile<4x16xf32>, !argus.buffer<2x4x16xf32, local>
    %f0 = argus.buffer_load %acc[%c0] : !argus.buffer<2x4x16xf32, local> -> !argus.tile<4x16xf32>
    %e = argus.unary exp %f0 : !argus.tile<4x16xf32>
    %g = argus.binary mul %e, %e : !argus.tile<4x16xf32>, !argus.tile<4x16xf32> -> !argus.tile<4x16xf32>
    argus.store %g, %Y[%c0, %c0] : !argus.tile<4x16xf32>, !argus.tensor<?x?xf32>
    %f1 = argus.buffer_load %acc[%c1] : !argus.buffer<2x4x16xf32, local> -> !argus.tile<4x16xf32>
    argus.store %f1, %Y[%c4, %c0] : !argus.tile<4x16xf32>, !argus.tensor<?x?xf32>
    return
  }
  func.func @live__grid(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>) -> (index, index, index)
      attributes {argus.grid_of = @live} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @live(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>)
      attributes {argus.kernel, argus.grid = @live__grid, argus.threads = 1 : i64, argus.arg_names = ["X", "Y"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %acc = argus.alloc : !argus.buffer<1x4x16xf32, local>
    %x = argus.load %X[%c0, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<4x16xf32>
    argus.buffer_store %x, %acc[%c0] : !argus.tile<4x16xf32>, !argus.buffer<1x4x16xf32, local>
    %taken = arith.cmpi ult, %c0, %c1 : index
    %a = argus.buffer_load %acc[%c0] : !argus.buffer<1x4x16xf32, local> -> !argus.tile<4x16xf32>
    %u = scf.if %taken -> (!argus.tile<4x16xf32>) {
      %t = argus.binary add %a, %a : !argus.tile<4x16xf32>, !argus.tile<4x16xf32> -> !argus.tile<4x16xf32>
      scf.yield %t : !argus.tile<4x16xf32>
    } else {
      scf.yield %a : !argus.tile<4x16xf32>
    }
    %s = argus.binary mul %u, %u : !argus.tile<4x16xf32>, !argus.tile<4x16xf32> -> !argus.tile<4x16xf32>
    argus.buffer_store %s, %acc[%c0] : !argus.tile<4x16xf32>, !argus.buffer<1x4x16xf32, local>
    %f = argus.buffer_load %acc[%c0] : !argus.buffer<1x4x16xf32, local> -> !argus.tile<4x16xf32>
    %o = argus.binary add %f, %u : !argus.tile<4x16xf32>, !argus.tile<4x16xf32> -> !argus.tile<4x16xf32>
    argus.store %o, %Y[%c0, %c0] : !argus.tile<4x16xf32>, !argus.tensor<?x?xf32>
    return
  }
}
