// Scalar arith semantics: one program instance computes integer and float
// results from its scalar arguments and stores each as a 1-element tile:
// Ints[i] and Floats[i]. Expected values follow the documented conventions
// (truncating division, shifts >= width give 0, saturating fptosi, NaN-
// propagating maximumf, bf16 round-to-nearest-even).
module {
  func.func @scalars__grid(%Ints: !argus.tensor<?xi64>, %Floats: !argus.tensor<?xf32>,
                           %a: i64, %b: i64, %x: f32, %y: f32) -> (index, index, index)
      attributes {argus.grid_of = @scalars} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @scalars(%Ints: !argus.tensor<?xi64>, %Floats: !argus.tensor<?xf32>,
                     %a: i64, %b: i64, %x: f32, %y: f32)
      attributes {argus.kernel, argus.grid = @scalars__grid,
                  argus.arg_names = ["Ints", "Floats", "a", "b", "x", "y"]} {
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i2 = arith.constant 2 : index
    %i3 = arith.constant 3 : index
    %i4 = arith.constant 4 : index
    %i5 = arith.constant 5 : index
    %i6 = arith.constant 6 : index
    %i7 = arith.constant 7 : index
    %i8 = arith.constant 8 : index
    %i9 = arith.constant 9 : index
    %i10 = arith.constant 10 : index
    %i11 = arith.constant 11 : index
    %i12 = arith.constant 12 : index
    %i13 = arith.constant 13 : index
    %k3 = arith.constant 3 : i64
    %k60 = arith.constant 60 : i64
    %k64 = arith.constant 64 : i64
    %big = arith.constant 1.0e30 : f32
    %nan = arith.constant 0x7FC00000 : f32
    %one = arith.constant 1.0 : f32
    %fzero = arith.constant 0.0 : f32

    %v0 = arith.divsi %a, %b : i64
    %t0 = argus.full %v0 : i64 -> !argus.tile<1xi64>
    argus.store %t0, %Ints[%i0] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %v1 = arith.remsi %a, %b : i64
    %t1 = argus.full %v1 : i64 -> !argus.tile<1xi64>
    argus.store %t1, %Ints[%i1] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %v2 = arith.ceildivsi %a, %b : i64
    %t2 = argus.full %v2 : i64 -> !argus.tile<1xi64>
    argus.store %t2, %Ints[%i2] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %v3 = arith.floordivsi %a, %b : i64
    %t3 = argus.full %v3 : i64 -> !argus.tile<1xi64>
    argus.store %t3, %Ints[%i3] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %v4 = arith.divui %a, %b : i64
    %t4 = argus.full %v4 : i64 -> !argus.tile<1xi64>
    argus.store %t4, %Ints[%i4] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %v5 = arith.shli %a, %k3 : i64
    %t5 = argus.full %v5 : i64 -> !argus.tile<1xi64>
    argus.store %t5, %Ints[%i5] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %v6 = arith.shrsi %a, %k3 : i64
    %t6 = argus.full %v6 : i64 -> !argus.tile<1xi64>
    argus.store %t6, %Ints[%i6] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %v7 = arith.shrui %a, %k60 : i64
    %t7 = argus.full %v7 : i64 -> !argus.tile<1xi64>
    argus.store %t7, %Ints[%i7] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %v8 = arith.shli %a, %k64 : i64
    %t8 = argus.full %v8 : i64 -> !argus.tile<1xi64>
    argus.store %t8, %Ints[%i8] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %lt = arith.cmpi slt, %a, %b : i64
    %v9 = arith.select %lt, %a, %b : i64
    %t9 = argus.full %v9 : i64 -> !argus.tile<1xi64>
    argus.store %t9, %Ints[%i9] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %xb = arith.mulf %x, %big : f32
    %v10 = arith.fptosi %xb : f32 to i64
    %t10 = argus.full %v10 : i64 -> !argus.tile<1xi64>
    argus.store %t10, %Ints[%i10] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %a8 = arith.trunci %a : i64 to i8
    %v11 = arith.extui %a8 : i8 to i64
    %t11 = argus.full %v11 : i64 -> !argus.tile<1xi64>
    argus.store %t11, %Ints[%i11] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %v12 = arith.maxui %a, %b : i64
    %t12 = argus.full %v12 : i64 -> !argus.tile<1xi64>
    argus.store %t12, %Ints[%i12] : !argus.tile<1xi64>, !argus.tensor<?xi64>
    %a32 = arith.trunci %a : i64 to i32
    %ai = arith.index_cast %a32 : i32 to index
    %v13 = arith.index_cast %ai : index to i64
    %t13 = argus.full %v13 : i64 -> !argus.tile<1xi64>
    argus.store %t13, %Ints[%i13] : !argus.tile<1xi64>, !argus.tensor<?xi64>

    %f0 = arith.maximumf %x, %nan : f32
    %u0 = argus.full %f0 : f32 -> !argus.tile<1xf32>
    argus.store %u0, %Floats[%i0] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    %f1 = arith.maxnumf %x, %nan : f32
    %u1 = argus.full %f1 : f32 -> !argus.tile<1xf32>
    argus.store %u1, %Floats[%i1] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    %f2 = arith.remf %x, %y : f32
    %u2 = argus.full %f2 : f32 -> !argus.tile<1xf32>
    argus.store %u2, %Floats[%i2] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    %f3 = arith.sitofp %a : i64 to f32
    %u3 = argus.full %f3 : f32 -> !argus.tile<1xf32>
    argus.store %u3, %Floats[%i3] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    %xh = arith.truncf %x : f32 to bf16
    %f4 = arith.extf %xh : bf16 to f32
    %u4 = argus.full %f4 : f32 -> !argus.tile<1xf32>
    argus.store %u4, %Floats[%i4] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    %isnan = arith.cmpf une, %f0, %f0 : f32
    %f5 = arith.select %isnan, %one, %fzero : f32
    %u5 = argus.full %f5 : f32 -> !argus.tile<1xf32>
    argus.store %u5, %Floats[%i5] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    %f6 = arith.divf %x, %y : f32
    %u6 = argus.full %f6 : f32 -> !argus.tile<1xf32>
    argus.store %u6, %Floats[%i6] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    %yh = arith.truncf %y : f32 to bf16
    %p = arith.mulf %xh, %yh : bf16
    %f7 = arith.extf %p : bf16 to f32
    %u7 = argus.full %f7 : f32 -> !argus.tile<1xf32>
    argus.store %u7, %Floats[%i7] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    return
  }
}
