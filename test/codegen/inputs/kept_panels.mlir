// Which products keep b's packed panels for the launch (ak::pack_reuse).
// Instances differ along grid axis 1 (%p1). %k walks K at offsets that only
// the loop and axis 0 move: consecutive instances read the same tiles (kept).
// %w's offsets move with axis 1: a new tile each instance (not kept). %o is
// a tensor the kernel also stores to (not kept). %kf walks KF as %k walks K,
// in f32 (kept too).
module {
  func.func @kp__grid(%Q: !argus.tensor<?x?xbf16>, %K: !argus.tensor<?x?xbf16>, %W: !argus.tensor<?x?xbf16>,
                      %O: !argus.tensor<?x?xbf16>, %QF: !argus.tensor<?x?xf32>, %KF: !argus.tensor<?x?xf32>,
                      %S: !argus.tensor<?x?xf32>)
      -> (index, index, index) attributes {argus.grid_of = @kp} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    return %c2, %c2, %c1 : index, index, index
  }
  func.func @kp(%Q: !argus.tensor<?x?xbf16>, %K: !argus.tensor<?x?xbf16>, %W: !argus.tensor<?x?xbf16>,
                %O: !argus.tensor<?x?xbf16>, %QF: !argus.tensor<?x?xf32>, %KF: !argus.tensor<?x?xf32>,
                %S: !argus.tensor<?x?xf32>)
      attributes {argus.kernel, argus.grid = @kp__grid, argus.threads = 1 : i64,
                  argus.arg_names = ["Q", "K", "W", "O", "QF", "KF", "S"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %p0 = argus.program_id 0
    %p1 = argus.program_id 1
    %zero = arith.constant 0.0 : f32
    %z = argus.full %zero : f32 -> !argus.tile<32x32xf32>
    %qrow = arith.muli %p1, %c32 : index
    %q = argus.load %Q[%qrow, %c0] : !argus.tensor<?x?xbf16> -> !argus.tile<32x64xbf16>
    %qf = argus.load %QF[%qrow, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<32x64xf32>
    %col = arith.muli %p0, %c32 : index
    scf.for %kt = %c0 to %c4 step %c1 {
      %row = arith.muli %kt, %c32 : index
      %k = argus.load %K[%row, %col] : !argus.tensor<?x?xbf16> -> !argus.tile<32x64xbf16>
      %s = argus.mma %q, %k, %z : !argus.tile<32x64xbf16>, !argus.tile<32x64xbf16>, !argus.tile<32x32xf32>
      argus.store %s, %S[%qrow, %row] : !argus.tile<32x32xf32>, !argus.tensor<?x?xf32>
      %w = argus.load %W[%qrow, %row] : !argus.tensor<?x?xbf16> -> !argus.tile<32x64xbf16>
      %t = argus.mma %q, %w, %z : !argus.tile<32x64xbf16>, !argus.tile<32x64xbf16>, !argus.tile<32x32xf32>
      argus.store %t, %S[%row, %qrow] : !argus.tile<32x32xf32>, !argus.tensor<?x?xf32>
      %o = argus.load %O[%row, %c0] : !argus.tensor<?x?xbf16> -> !argus.tile<32x64xbf16>
      %u = argus.mma %q, %o, %z : !argus.tile<32x64xbf16>, !argus.tile<32x64xbf16>, !argus.tile<32x32xf32>
      argus.store %u, %S[%c0, %row] : !argus.tile<32x32xf32>, !argus.tensor<?x?xf32>
      %kf = argus.load %KF[%row, %c0] : !argus.tensor<?x?xf32> -> !argus.tile<32x64xf32>
      %v = argus.mma %qf, %kf, %z : !argus.tile<32x64xf32>, !argus.tile<32x64xf32>, !argus.tile<32x32xf32>
      argus.store %v, %S[%row, %c0] : !argus.tile<32x32xf32>, !argus.tensor<?x?xf32>
    }
    argus.store %q, %O[%qrow, %c0] : !argus.tile<32x64xbf16>, !argus.tensor<?x?xbf16>
    return
  }
}
