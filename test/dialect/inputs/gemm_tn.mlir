// A tile-level GEMM C = alpha * A·Bᵀ + beta * C (+ bias) as the DSL lowers it.
module {
  func.func @gemm_tn__grid(%A: !argus.tensor<?x?xf32>, %B: !argus.tensor<?x?xf32>, %C: !argus.tensor<?x?xf32>,
                           %bias: !argus.tensor<?xf32>, %alpha: f32, %beta: f32, %has_bias: i32)
      -> (index, index, index) attributes {argus.grid_of = @gemm_tn} {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %m = argus.dim %A, 0 : !argus.tensor<?x?xf32>
    %n = argus.dim %B, 0 : !argus.tensor<?x?xf32>
    %g0 = arith.ceildivsi %m, %c16 : index
    %g1 = arith.ceildivsi %n, %c16 : index
    return %g0, %g1, %c1 : index, index, index
  }
  func.func @gemm_tn(%A: !argus.tensor<?x?xf32>, %B: !argus.tensor<?x?xf32>, %C: !argus.tensor<?x?xf32>,
                     %bias: !argus.tensor<?xf32>, %alpha: f32, %beta: f32, %has_bias: i32)
      attributes {argus.kernel, argus.grid = @gemm_tn__grid, argus.threads = 1 : i64,
                  argus.reference = "gemm_tn",
                  argus.arg_names = ["A", "B", "C", "bias", "alpha", "beta", "has_bias"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %izero = arith.constant 0 : i32
    argus.tag %A names ["m", "k"] : !argus.tensor<?x?xf32> {
    ^bb0(%i: index, %j: index):
      argus.yield %i, %j : index, index
    }
    argus.tag %B names ["n", "k"] : !argus.tensor<?x?xf32> {
    ^bb0(%i: index, %j: index):
      argus.yield %i, %j : index, index
    }
    %k = argus.dim %A, 1 : !argus.tensor<?x?xf32>
    %p0 = argus.program_id 0
    %p1 = argus.program_id 1
    %row = arith.muli %p0, %c16 : index
    %col = arith.muli %p1, %c16 : index
    %kt_n = arith.ceildivsi %k, %c32 : index
    %acc0 = argus.full %zero : f32 -> !argus.tile<16x16xf32>
    %acc = scf.for %kt = %c0 to %kt_n step %c1 iter_args(%acc_i = %acc0) -> (!argus.tile<16x16xf32>) {
      %koff = arith.muli %kt, %c32 : index
      %a = argus.load %A[%row, %koff] : !argus.tensor<?x?xf32> -> !argus.tile<16x32xf32>
      %b = argus.load %B[%col, %koff] : !argus.tensor<?x?xf32> -> !argus.tile<16x32xf32>
      argus.assert_tag %a, %b : !argus.tile<16x32xf32>, !argus.tile<16x32xf32> {
      ^bb0(%ta: !argus.tag, %tb: !argus.tag):
        %ka = argus.tag_get %ta["k"]
        %kb = argus.tag_get %tb["k"]
        %eq = arith.cmpi eq, %ka, %kb : index
        argus.yield %eq : i1
      }
      %next = argus.mma %a, %b, %acc_i : !argus.tile<16x32xf32>, !argus.tile<16x32xf32>, !argus.tile<16x16xf32>
      scf.yield %next : !argus.tile<16x16xf32>
    } {argus.pipeline_stages = 1 : i64}
    %scaled = argus.binary mul %alpha, %acc : f32, !argus.tile<16x16xf32> -> !argus.tile<16x16xf32>
    %bz = arith.cmpf one, %beta, %zero : f32
    %with_c = scf.if %bz -> (!argus.tile<16x16xf32>) {
      %old = argus.load %C[%row, %col] : !argus.tensor<?x?xf32> -> !argus.tile<16x16xf32>
      %bo = argus.binary mul %beta, %old : f32, !argus.tile<16x16xf32> -> !argus.tile<16x16xf32>
      %s = argus.binary add %scaled, %bo : !argus.tile<16x16xf32>, !argus.tile<16x16xf32> -> !argus.tile<16x16xf32>
      scf.yield %s : !argus.tile<16x16xf32>
    } else {
      scf.yield %scaled : !argus.tile<16x16xf32>
    }
    %hb = arith.cmpi ne, %has_bias, %izero : i32
    %out = scf.if %hb -> (!argus.tile<16x16xf32>) {
      %bv = argus.load %bias[%col] : !argus.tensor<?xf32> -> !argus.tile<16xf32>
      %s = argus.binary add %with_c, %bv : !argus.tile<16x16xf32>, !argus.tile<16xf32> -> !argus.tile<16x16xf32>
      scf.yield %s : !argus.tile<16x16xf32>
    } else {
      scf.yield %with_c : !argus.tile<16x16xf32>
    }
    argus.store %out, %C[%row, %col] : !argus.tile<16x16xf32>, !argus.tensor<?x?xf32>
    return
  }
}
