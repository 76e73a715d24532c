// bf16 GEMM C = alpha * A·Bᵀ + beta * C (+ bias) with f32 accumulation and a
// 2-stage software pipeline: the tiles of step kt+1 are copied asynchronously
// into swizzled shared memory while step kt is computed. `argus.wait 2` leaves
// the two copies just issued in flight and completes those of step kt.
module {
  func.func @gemm_tn_bf16__grid(%A: !argus.tensor<?x?xbf16>, %B: !argus.tensor<?x?xbf16>,
                                %C: !argus.tensor<?x?xbf16>, %bias: !argus.tensor<?xbf16>,
                                %alpha: f32, %beta: f32, %has_bias: i32)
      -> (index, index, index) attributes {argus.grid_of = @gemm_tn_bf16} {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %m = argus.dim %A, 0 : !argus.tensor<?x?xbf16>
    %n = argus.dim %B, 0 : !argus.tensor<?x?xbf16>
    %g0 = arith.ceildivsi %m, %c16 : index
    %g1 = arith.ceildivsi %n, %c16 : index
    return %g0, %g1, %c1 : index, index, index
  }
  func.func @gemm_tn_bf16(%A: !argus.tensor<?x?xbf16>, %B: !argus.tensor<?x?xbf16>,
                          %C: !argus.tensor<?x?xbf16>, %bias: !argus.tensor<?xbf16>,
                          %alpha: f32, %beta: f32, %has_bias: i32)
      attributes {argus.kernel, argus.grid = @gemm_tn_bf16__grid, argus.threads = 1 : i64,
                  argus.arg_names = ["A", "B", "C", "bias", "alpha", "beta", "has_bias"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %izero = arith.constant 0 : i32
    %k = argus.dim %A, 1 : !argus.tensor<?x?xbf16>
    %p0 = argus.program_id 0
    %p1 = argus.program_id 1
    %row = arith.muli %p0, %c16 : index
    %col = arith.muli %p1, %c16 : index
    %kt_n = arith.ceildivsi %k, %c32 : index
    %sa = argus.alloc : !argus.buffer<2x16x32xbf16, shared, #argus.swizzle<2,3,3>>
    %sb = argus.alloc : !argus.buffer<2x16x32xbf16, shared>
    argus.copy async %A[%row, %c0], %sa[%c0] : !argus.tensor<?x?xbf16>, !argus.buffer<2x16x32xbf16, shared, #argus.swizzle<2,3,3>>
    argus.copy async %B[%col, %c0], %sb[%c0] : !argus.tensor<?x?xbf16>, !argus.buffer<2x16x32xbf16, shared>
    %acc0 = argus.full %zero : f32 -> !argus.tile<16x16xf32>
    %acc = scf.for %kt = %c0 to %kt_n step %c1 iter_args(%acc_i = %acc0) -> (!argus.tile<16x16xf32>) {
      %next = arith.addi %kt, %c1 : index
      %snext = arith.remsi %next, %c2 : index
      %knext = arith.muli %next, %c32 : index
      argus.copy async %A[%row, %knext], %sa[%snext] : !argus.tensor<?x?xbf16>, !argus.buffer<2x16x32xbf16, shared, #argus.swizzle<2,3,3>>
      argus.copy async %B[%col, %knext], %sb[%snext] : !argus.tensor<?x?xbf16>, !argus.buffer<2x16x32xbf16, shared>
      argus.wait 2
      %s = arith.remsi %kt, %c2 : index
      %a = argus.buffer_load %sa[%s] : !argus.buffer<2x16x32xbf16, shared, #argus.swizzle<2,3,3>> -> !argus.tile<16x32xbf16>
      %b = argus.buffer_load %sb[%s] : !argus.buffer<2x16x32xbf16, shared> -> !argus.tile<16x32xbf16>
      %nacc = argus.mma %a, %b, %acc_i : !argus.tile<16x32xbf16>, !argus.tile<16x32xbf16>, !argus.tile<16x16xf32>
      scf.yield %nacc : !argus.tile<16x16xf32>
    } {argus.pipeline_stages = 2 : i64}
    argus.wait 0
    argus.reset_tags %sa : !argus.buffer<2x16x32xbf16, shared, #argus.swizzle<2,3,3>>
    %scaled = argus.binary mul %alpha, %acc : f32, !argus.tile<16x16xf32> -> !argus.tile<16x16xf32>
    %bz = arith.cmpf one, %beta, %zero : f32
    %with_c = scf.if %bz -> (!argus.tile<16x16xf32>) {
      %old = argus.load %C[%row, %col] : !argus.tensor<?x?xbf16> -> !argus.tile<16x16xbf16>
      %oldf = argus.cast %old : !argus.tile<16x16xbf16> to !argus.tile<16x16xf32>
      %bo = argus.binary mul %beta, %oldf : f32, !argus.tile<16x16xf32> -> !argus.tile<16x16xf32>
      %sum = argus.binary add %scaled, %bo : !argus.tile<16x16xf32>, !argus.tile<16x16xf32> -> !argus.tile<16x16xf32>
      scf.yield %sum : !argus.tile<16x16xf32>
    } else {
      scf.yield %scaled : !argus.tile<16x16xf32>
    }
    %hb = arith.cmpi ne, %has_bias, %izero : i32
    %out = scf.if %hb -> (!argus.tile<16x16xf32>) {
      %bv = argus.load %bias[%col] : !argus.tensor<?xbf16> -> !argus.tile<16xbf16>
      %bvf = argus.cast %bv : !argus.tile<16xbf16> to !argus.tile<16xf32>
      %sum = argus.binary add %with_c, %bvf : !argus.tile<16x16xf32>, !argus.tile<16xf32> -> !argus.tile<16x16xf32>
      scf.yield %sum : !argus.tile<16x16xf32>
    } else {
      scf.yield %with_c : !argus.tile<16x16xf32>
    }
    %outb = argus.cast %out : !argus.tile<16x16xf32> to !argus.tile<16x16xbf16>
    argus.store %outb, %C[%row, %col] : !argus.tile<16x16xbf16>, !argus.tensor<?x?xbf16>
    return
  }
}
