// A kernel for the run observer: a 3x2 grid; instance (p0, p1) sums the
// three 4x4 tiles X[4*p0, kt] (kt = 0, 1, 2; masked, X is ragged) and
// stores the sum at Y[4*p0, 4*p1]. Each iteration asserts on the loaded
// tile and the running sum.
module {
  func.func @observed__grid(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    return %c3, %c2, %c1 : index, index, index
  }
  func.func @observed(%X: !argus.tensor<?x?xf32>, %Y: !argus.tensor<?x?xf32>)
      attributes {argus.kernel, argus.grid = @observed__grid, argus.arg_names = ["X", "Y"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %p0 = argus.program_id 0
    %p1 = argus.program_id 1
    %r = arith.muli %p0, %c4 : index
    %c = arith.muli %p1, %c4 : index
    %acc0 = argus.full %zero : f32 -> !argus.tile<4x4xf32>
    %acc = scf.for %kt = %c0 to %c3 step %c1 iter_args(%a = %acc0) -> (!argus.tile<4x4xf32>) {
      %t = argus.load %X[%r, %kt] : !argus.tensor<?x?xf32> -> !argus.tile<4x4xf32>
      argus.assert_tag %t, %a, %kt : !argus.tile<4x4xf32>, !argus.tile<4x4xf32>, index {
      ^bb0(%tt: !argus.tag, %ta: !argus.tag, %tk: !argus.tag):
        %b = arith.constant true
        argus.yield %b : i1
      }
      %n = argus.binary add %a, %t : !argus.tile<4x4xf32>, !argus.tile<4x4xf32> -> !argus.tile<4x4xf32>
      scf.yield %n : !argus.tile<4x4xf32>
    }
    argus.store %acc, %Y[%r, %c] : !argus.tile<4x4xf32>, !argus.tensor<?x?xf32>
    return
  }
}
