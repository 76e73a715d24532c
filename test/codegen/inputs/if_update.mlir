// Both branches of an scf.if update a loop-carried tile and yield it (the
// else branch computes its result from ops of its own, where the emitter once
// read a name before it existed). The if's result takes the storage of the
// dying iter_arg, so either branch updates it in place. Lowered from:
//   acc = load(X.tile((0,), (16,)))
//   for i in range(3):
//       if flag + i != 1: acc = acc * 2.0 + 1.0
//       else:             acc = where(iota((16,), 0) < i + 8, acc * 3.0, acc) - 1.0
//   store(Y.tile((0,), (16,)), acc)
module {
  func.func @if_update__grid(%arg0: !argus.tensor<16xf32>, %arg1: !argus.tensor<16xf32>, %arg2: i32) -> (index, index, index) attributes {argus.grid_of = @if_update} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @if_update(%arg0: !argus.tensor<16xf32>, %arg1: !argus.tensor<16xf32>, %arg2: i32) attributes {argus.arg_names = ["X", "Y", "flag"], argus.constants = {N = 16 : i64}, argus.grid = @if_update__grid, argus.kernel, argus.symbols = {}, argus.threads = 1 : i64} {
    %cst = arith.constant 3.000000e+00 : f32
    %c8 = arith.constant 8 : index
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 2.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c0 = arith.constant 0 : index
    %0 = argus.load %arg0[%c0] : <16xf32> -> <16xf32>
    %1 = arith.index_cast %arg2 : i32 to index
    %2 = scf.for %arg3 = %c0 to %c3 step %c1 iter_args(%arg4 = %0) -> (!argus.tile<16xf32>) {
      %3 = arith.addi %1, %arg3 : index
      %4 = arith.cmpi ne, %3, %c1 : index
      %5 = scf.if %4 -> (!argus.tile<16xf32>) {
        %6 = argus.binary mul %arg4, %cst_1 : !argus.tile<16xf32>, f32 -> <16xf32>
        %7 = argus.binary add %6, %cst_0 : !argus.tile<16xf32>, f32 -> <16xf32>
        scf.yield %7 : !argus.tile<16xf32>
      } else {
        %6 = argus.iota 0 : <16xi32>
        %7 = arith.addi %arg3, %c8 : index
        %8 = arith.index_cast %7 : index to i32
        %9 = argus.cmp lt %6, %8 : !argus.tile<16xi32>, i32 -> <16xi1>
        %10 = argus.binary mul %arg4, %cst : !argus.tile<16xf32>, f32 -> <16xf32>
        %11 = argus.select %9, %10, %arg4 : <16xi1>, !argus.tile<16xf32>, !argus.tile<16xf32> -> <16xf32>
        %12 = argus.binary sub %11, %cst_0 : !argus.tile<16xf32>, f32 -> <16xf32>
        scf.yield %12 : !argus.tile<16xf32>
      }
      scf.yield %5 : !argus.tile<16xf32>
    }
    argus.store %2, %arg1[%c0] : <16xf32>, <16xf32>
    return
  }
}

