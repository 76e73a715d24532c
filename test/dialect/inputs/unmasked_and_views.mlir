// Unmasked global accesses and per-access slot views, in every position the
// syntax allows them.
module {
  func.func @k(%X: !argus.tensor<?x64xbf16>, %Y: !argus.tensor<?x64xbf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %sa = argus.alloc : !argus.buffer<2x16x64xbf16, shared, #argus.swizzle<3, 3, 3>>
    %sb = argus.alloc : !argus.buffer<2x16x64xbf16, shared>
    argus.copy async unmasked %X[%c0, %c0], %sa[%c0] : !argus.tensor<?x64xbf16>, !argus.buffer<2x16x64xbf16, shared, #argus.swizzle<3, 3, 3>>
    argus.copy unmasked %X[%c0, %c0], %sb[%c1] : !argus.tensor<?x64xbf16>, !argus.buffer<2x16x64xbf16, shared>
    argus.wait 0
    %a = argus.buffer_load %sa[%c0] view(#argus.swizzle<2, 3, 3>) : !argus.buffer<2x16x64xbf16, shared, #argus.swizzle<3, 3, 3>> -> !argus.tile<16x64xbf16>
    %b = argus.buffer_load %sb[%c1] view(#argus.layout<(16, 64):(64, 1)>) {note = "kept"} : !argus.buffer<2x16x64xbf16, shared> -> !argus.tile<16x64xbf16>
    argus.buffer_store %a, %sb[%c0] view(#argus.layout<((2, 8), 64):((8, 1), 16)>) : !argus.tile<16x64xbf16>, !argus.buffer<2x16x64xbf16, shared>
    %l = argus.load unmasked %X[%c0, %c0] : !argus.tensor<?x64xbf16> -> !argus.tile<16x64xbf16>
    argus.store unmasked %l, %Y[%c0, %c0] : !argus.tile<16x64xbf16>, !argus.tensor<?x64xbf16>
    argus.store %b, %Y[%c1, %c0] : !argus.tile<16x64xbf16>, !argus.tensor<?x64xbf16>
    return
  }
}
