// Per-access views of buffer slots. X (32 elements) is an 8x4 tile x; every
// access uses slot 1 (slot base 32) unless noted, so the slot base matters.
//   Y1 = load through view swizzle<2,0,2> of a slot of a buffer swizzled by
//        the same swizzle (period 16 divides the 32-element slot): Y1 = x
//   Y2 = store through that view into slot 0, load without view:  Y2 = x
//   Y3 = plain buffer, plain store, load through layout (8,4):(4,1):
//        Y3[i] = x[V(i)], V(i) = (i % 8) * 4 + i / 8 (a transposition)
//   Y4 = plain buffer, store through swizzle<1,0,1> into slot 0, plain load:
//        Y4[S(i)] = x[i]
//   Y5 = swizzle<2,0,2> buffer, plain store, load through swizzle<1,0,2>:
//        element i is at physical 32 + V(i), which holds logical
//        own^-1(32 + V(i)) = 32 + own(V(i)):   Y5[i] = x[own(V(i))]
module {
  func.func @slot_views__grid(%X: !argus.tensor<32xf32>, %Y1: !argus.tensor<32xf32>, %Y2: !argus.tensor<32xf32>,
                              %Y3: !argus.tensor<32xf32>, %Y4: !argus.tensor<32xf32>, %Y5: !argus.tensor<32xf32>)
      -> (index, index, index) {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @slot_views(%X: !argus.tensor<32xf32>, %Y1: !argus.tensor<32xf32>, %Y2: !argus.tensor<32xf32>,
                        %Y3: !argus.tensor<32xf32>, %Y4: !argus.tensor<32xf32>, %Y5: !argus.tensor<32xf32>)
      attributes {argus.kernel, argus.grid = @slot_views__grid} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x1 = argus.load %X[%c0] : !argus.tensor<32xf32> -> !argus.tile<32xf32>
    %x = argus.reshape %x1 : !argus.tile<32xf32> -> !argus.tile<8x4xf32>
    %sw = argus.alloc : !argus.buffer<2x8x4xf32, shared, #argus.swizzle<2,0,2>>
    %pl = argus.alloc : !argus.buffer<2x8x4xf32, shared>
    // Y1
    argus.buffer_store %x, %sw[%c1] : !argus.tile<8x4xf32>, !argus.buffer<2x8x4xf32, shared, #argus.swizzle<2,0,2>>
    %l1 = argus.buffer_load %sw[%c1] view(#argus.swizzle<2,0,2>) : !argus.buffer<2x8x4xf32, shared, #argus.swizzle<2,0,2>> -> !argus.tile<8x4xf32>
    // Y2
    argus.buffer_store %x, %sw[%c0] view(#argus.swizzle<2,0,2>) : !argus.tile<8x4xf32>, !argus.buffer<2x8x4xf32, shared, #argus.swizzle<2,0,2>>
    %l2 = argus.buffer_load %sw[%c0] : !argus.buffer<2x8x4xf32, shared, #argus.swizzle<2,0,2>> -> !argus.tile<8x4xf32>
    // Y3
    argus.buffer_store %x, %pl[%c1] : !argus.tile<8x4xf32>, !argus.buffer<2x8x4xf32, shared>
    %l3 = argus.buffer_load %pl[%c1] view(#argus.layout<(8,4):(4,1)>) : !argus.buffer<2x8x4xf32, shared> -> !argus.tile<8x4xf32>
    // Y4
    argus.buffer_store %x, %pl[%c0] view(#argus.swizzle<1,0,1>) : !argus.tile<8x4xf32>, !argus.buffer<2x8x4xf32, shared>
    %l4 = argus.buffer_load %pl[%c0] : !argus.buffer<2x8x4xf32, shared> -> !argus.tile<8x4xf32>
    // Y5 (slot 1 of %sw still holds x, stored without a view)
    %l5 = argus.buffer_load %sw[%c1] view(#argus.swizzle<1,0,2>) : !argus.buffer<2x8x4xf32, shared, #argus.swizzle<2,0,2>> -> !argus.tile<8x4xf32>
    %y1 = argus.reshape %l1 : !argus.tile<8x4xf32> -> !argus.tile<32xf32>
    %y2 = argus.reshape %l2 : !argus.tile<8x4xf32> -> !argus.tile<32xf32>
    %y3 = argus.reshape %l3 : !argus.tile<8x4xf32> -> !argus.tile<32xf32>
    %y4 = argus.reshape %l4 : !argus.tile<8x4xf32> -> !argus.tile<32xf32>
    %y5 = argus.reshape %l5 : !argus.tile<8x4xf32> -> !argus.tile<32xf32>
    argus.store %y1, %Y1[%c0] : !argus.tile<32xf32>, !argus.tensor<32xf32>
    argus.store %y2, %Y2[%c0] : !argus.tile<32xf32>, !argus.tensor<32xf32>
    argus.store %y3, %Y3[%c0] : !argus.tile<32xf32>, !argus.tensor<32xf32>
    argus.store %y4, %Y4[%c0] : !argus.tile<32xf32>, !argus.tensor<32xf32>
    argus.store %y5, %Y5[%c0] : !argus.tile<32xf32>, !argus.tensor<32xf32>
    return
  }
}
