// A 32-element vector round-trips through three 8x4 shared buffers:
//   Y1: layout (4,8):(8,1)  a bijection (a transposition): Y1 = X
//   Y2: swizzle <2,0,2>     a bijection on [0, 32):        Y2 = X
//   Y3: layout (4,8):(0,1)  aliasing: the 4 elements of each row share one
//       physical slot, so the last one written wins: Y3[i] = X[i/4*4 + 3]
module {
  func.func @buffer_layouts__grid(%X: !argus.tensor<32xf32>, %Y1: !argus.tensor<32xf32>,
                                  %Y2: !argus.tensor<32xf32>, %Y3: !argus.tensor<32xf32>)
      -> (index, index, index) attributes {argus.grid_of = @buffer_layouts} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @buffer_layouts(%X: !argus.tensor<32xf32>, %Y1: !argus.tensor<32xf32>,
                            %Y2: !argus.tensor<32xf32>, %Y3: !argus.tensor<32xf32>)
      attributes {argus.kernel, argus.grid = @buffer_layouts__grid} {
    %c0 = arith.constant 0 : index
    %x = argus.load %X[%c0] : !argus.tensor<32xf32> -> !argus.tile<32xf32>
    %x2 = argus.reshape %x : !argus.tile<32xf32> -> !argus.tile<8x4xf32>
    %b1 = argus.alloc : !argus.buffer<8x4xf32, shared, #argus.layout<(4,8):(8,1)>>
    %b2 = argus.alloc : !argus.buffer<8x4xf32, shared, #argus.swizzle<2,0,2>>
    %b3 = argus.alloc : !argus.buffer<8x4xf32, shared, #argus.layout<(4,8):(0,1)>>
    argus.buffer_store %x2, %b1[] : !argus.tile<8x4xf32>, !argus.buffer<8x4xf32, shared, #argus.layout<(4,8):(8,1)>>
    argus.buffer_store %x2, %b2[] : !argus.tile<8x4xf32>, !argus.buffer<8x4xf32, shared, #argus.swizzle<2,0,2>>
    argus.buffer_store %x2, %b3[] : !argus.tile<8x4xf32>, !argus.buffer<8x4xf32, shared, #argus.layout<(4,8):(0,1)>>
    %l1 = argus.buffer_load %b1[] : !argus.buffer<8x4xf32, shared, #argus.layout<(4,8):(8,1)>> -> !argus.tile<8x4xf32>
    %l2 = argus.buffer_load %b2[] : !argus.buffer<8x4xf32, shared, #argus.swizzle<2,0,2>> -> !argus.tile<8x4xf32>
    %l3 = argus.buffer_load %b3[] : !argus.buffer<8x4xf32, shared, #argus.layout<(4,8):(0,1)>> -> !argus.tile<8x4xf32>
    %y1 = argus.reshape %l1 : !argus.tile<8x4xf32> -> !argus.tile<32xf32>
    %y2 = argus.reshape %l2 : !argus.tile<8x4xf32> -> !argus.tile<32xf32>
    %y3 = argus.reshape %l3 : !argus.tile<8x4xf32> -> !argus.tile<32xf32>
    argus.store %y1, %Y1[%c0] : !argus.tile<32xf32>, !argus.tensor<32xf32>
    argus.store %y2, %Y2[%c0] : !argus.tile<32xf32>, !argus.tensor<32xf32>
    argus.store %y3, %Y3[%c0] : !argus.tile<32xf32>, !argus.tensor<32xf32>
    return
  }
}
