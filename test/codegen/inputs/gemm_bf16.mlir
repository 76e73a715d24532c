// bf16 GEMM C = alpha * A·Bᵀ + beta * C (+ bias): tiles 32x64, BK 128, A and
// B staged through two-slot shared buffers (copy async / wait / buffer_load),
// f32 accumulation, bf16 output. A few values carry DSL names (NameLoc).
module {
  func.func @gemm_bf16__grid(%A: !argus.tensor<?x?xbf16>, %B: !argus.tensor<?x?xbf16>, %C: !argus.tensor<?x?xbf16>,
                             %bias: !argus.tensor<?xbf16>, %alpha: f32, %beta: f32, %has_bias: i32)
      -> (index, index, index) attributes {argus.grid_of = @gemm_bf16} {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %m = argus.dim %A, 0 : !argus.tensor<?x?xbf16>
    %n = argus.dim %B, 0 : !argus.tensor<?x?xbf16>
    %g0 = arith.ceildivsi %m, %c32 : index
    %g1 = arith.ceildivsi %n, %c64 : index
    return %g0, %g1, %c1 : index, index, index
  }
  func.func @gemm_bf16(%A: !argus.tensor<?x?xbf16>, %B: !argus.tensor<?x?xbf16>, %C: !argus.tensor<?x?xbf16>,
                       %bias: !argus.tensor<?xbf16>, %alpha: f32, %beta: f32, %has_bias: i32)
      attributes {argus.kernel, argus.grid = @gemm_bf16__grid, argus.threads = 1 : i64,
                  argus.reference = "gemm_tn",
                  argus.arg_names = ["A", "B", "C", "bias", "alpha", "beta", "has_bias"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %izero = arith.constant 0 : i32
    argus.tag %A names ["m", "k"] : !argus.tensor<?x?xbf16> {
    ^bb0(%i: index, %j: index):
      argus.yield %i, %j : index, index
    }
    %k = argus.dim %A, 1 : !argus.tensor<?x?xbf16>
    %p0 = argus.program_id 0
    %p1 = argus.program_id 1
    %row = arith.muli %p0, %c32 : index loc("row"("gemm_bf16.argus":10:5))
    %col = arith.muli %p1, %c64 : index loc("col"("gemm_bf16.argus":11:5))
    %kt_n = arith.ceildivsi %k, %c128 : index
    %sa = argus.alloc : !argus.buffer<2x32x128xbf16, shared, #argus.swizzle<3,3,3>> loc("sa"("gemm_bf16.argus":12:5))
    %sb = argus.alloc : !argus.buffer<2x64x128xbf16, shared, #argus.swizzle<3,3,3>> loc("sb"("gemm_bf16.argus":13:5))
    %acc0 = argus.full %zero : f32 -> !argus.tile<32x64xf32> loc("acc"("gemm_bf16.argus":14:5))
    %acc = scf.for %kt = %c0 to %kt_n step %c1 iter_args(%acc_i = %acc0) -> (!argus.tile<32x64xf32>) {
      %koff = arith.muli %kt, %c128 : index loc("koff"("gemm_bf16.argus":16:9))
      %s = arith.remsi %kt, %c2 : index loc("stage"("gemm_bf16.argus":17:9))
      argus.copy async %A[%row, %koff], %sa[%s] : !argus.tensor<?x?xbf16>, !argus.buffer<2x32x128xbf16, shared, #argus.swizzle<3,3,3>>
      argus.copy async %B[%col, %koff], %sb[%s] : !argus.tensor<?x?xbf16>, !argus.buffer<2x64x128xbf16, shared, #argus.swizzle<3,3,3>>
      argus.wait 0
      %a = argus.buffer_load %sa[%s] : !argus.buffer<2x32x128xbf16, shared, #argus.swizzle<3,3,3>> -> !argus.tile<32x128xbf16> loc("a"("gemm_bf16.argus":21:9))
      %b = argus.buffer_load %sb[%s] : !argus.buffer<2x64x128xbf16, shared, #argus.swizzle<3,3,3>> -> !argus.tile<64x128xbf16> loc("b"("gemm_bf16.argus":21:12))
      argus.assert_tag %a, %b : !argus.tile<32x128xbf16>, !argus.tile<64x128xbf16> {
      ^bb0(%ta: !argus.tag, %tb: !argus.tag):
        %ka = argus.tag_get %ta["k"]
        %kb = argus.tag_get %tb["k"]
        %eq = arith.cmpi eq, %ka, %kb : index
        argus.yield %eq : i1
      }
      %next = argus.mma %a, %b, %acc_i : !argus.tile<32x128xbf16>, !argus.tile<64x128xbf16>, !argus.tile<32x64xf32>
      scf.yield %next : !argus.tile<32x64xf32>
    } {argus.pipeline_stages = 2 : i64}
    %scaled = argus.binary mul %alpha, %acc : f32, !argus.tile<32x64xf32> -> !argus.tile<32x64xf32>
    %bz = arith.cmpf one, %beta, %zero : f32
    %with_c = scf.if %bz -> (!argus.tile<32x64xf32>) {
      %old16 = argus.load %C[%row, %col] : !argus.tensor<?x?xbf16> -> !argus.tile<32x64xbf16>
      %old = argus.cast %old16 : !argus.tile<32x64xbf16> to !argus.tile<32x64xf32>
      %bo = argus.binary mul %beta, %old : f32, !argus.tile<32x64xf32> -> !argus.tile<32x64xf32>
      %s = argus.binary add %scaled, %bo : !argus.tile<32x64xf32>, !argus.tile<32x64xf32> -> !argus.tile<32x64xf32>
      scf.yield %s : !argus.tile<32x64xf32>
    } else {
      scf.yield %scaled : !argus.tile<32x64xf32>
    }
    %hb = arith.cmpi ne, %has_bias, %izero : i32
    %out = scf.if %hb -> (!argus.tile<32x64xf32>) {
      %bv16 = argus.load %bias[%col] : !argus.tensor<?xbf16> -> !argus.tile<64xbf16>
      %bv = argus.cast %bv16 : !argus.tile<64xbf16> to !argus.tile<64xf32>
      %s = argus.binary add %with_c, %bv : !argus.tile<32x64xf32>, !argus.tile<64xf32> -> !argus.tile<32x64xf32>
      scf.yield %s : !argus.tile<32x64xf32>
    } else {
      scf.yield %with_c : !argus.tile<32x64xf32>
    }
    %o16 = argus.cast %out : !argus.tile<32x64xf32> to !argus.tile<32x64xbf16>
    argus.store %o16, %C[%row, %col] : !argus.tile<32x64xbf16>, !argus.tensor<?x?xbf16>
    return
  }
}
