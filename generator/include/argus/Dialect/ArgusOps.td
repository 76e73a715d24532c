//===- ArgusOps.td - argus operations ---------------------*- tablegen -*-===//
//
// Operations of the argus dialect. Tile operands are `!argus.tile` values of
// static shape; global tensors are `!argus.tensor`; scratch memory is
// `!argus.buffer`. Indices and offsets are `index` scalars computed with
// `arith`. Out-of-bounds elements of a global tile are masked: loads read the
// padding value, stores skip them, so ragged shapes need no special code.
// An access marked `unmasked` instead promises that every element it touches
// is in bounds (the fast path of kernels whose shapes are multiples of the
// tile); the interpreter reports a broken promise, the verifier proves it.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_OPS
#define ARGUS_OPS

include "argus/Dialect/ArgusTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Argus_Scalar : AnyTypeOf<[AnyFloat, AnySignlessInteger, Index]>;
def Argus_TileOrScalar : AnyTypeOf<[Argus_TileType, AnyFloat, AnySignlessInteger, Index]>;

//===----------------------------------------------------------------------===//
// Ids and shapes
//===----------------------------------------------------------------------===//

def Argus_DimOp : Argus_Op<"dim", [Pure]> {
  let summary = "size of one dimension of a global tensor";
  let description = [{
    Example:
    ```mlir
    %m = argus.dim %A, 0 : !argus.tensor<?x4096xbf16>
    ```
  }];
  let arguments = (ins Argus_TensorType:$tensor, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$tensor `,` $dim attr-dict `:` type($tensor)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Argus_SegmentOp : Argus_Op<"segment", [Pure]> {
  let summary = "the rows of one segment of a packed varlen tensor, as a tensor";
  let description = [{
    Rows [offsets[key], offsets[key + 1]) of `tensor` along its first
    dimension: sequence `key` of a varlen batch packed as [tokens, ...] with
    cumulative lengths `offsets` (cu_seqlens). The result is a tensor whose
    first dimension is the segment's length; loads, stores and `dim` on it
    see that segment alone, so masking stops at the segment's end.

    Total: a key with no segment (key < 0 or key + 1 >= dim(offsets)) gives
    an empty segment, and the bounds clamp to the tensor (start in [0, dim],
    end in [start, dim]). With `limit`, a segment keeps at most its first
    `limit` rows: a grid sized by the longest sequence (max_seqlen) then
    covers every row it keeps. That segments of distinct keys do not overlap
    (offsets nondecreasing) is the caller's contract: the verifier takes
    elements of distinct segments as distinct.
    Example:
    ```mlir
    %q = argus.segment %Q, %cu[%b] limit %max : !argus.tensor<?x32x128xbf16>, !argus.tensor<?xi32>
      -> !argus.tensor<?x32x128xbf16>
    ```
  }];
  let arguments = (ins Argus_TensorType:$tensor, Argus_TensorType:$offsets, Index:$key, Optional<Index>:$limit);
  let results = (outs Argus_TensorType:$result);
  let assemblyFormat = [{
    $tensor `,` $offsets `[` $key `]` (`limit` $limit^)? attr-dict `:` type($tensor) `,` type($offsets) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_ProgramIdOp : Argus_Op<"program_id", [Pure]> {
  let summary = "index of this program instance along a grid axis";
  let description = [{
    Example: `%p = argus.program_id 0`
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
  let hasVerifier = 1;
}

def Argus_NumProgramsOp : Argus_Op<"num_programs", [Pure]> {
  let summary = "grid size along an axis";
  let description = [{
    Example: `%g = argus.num_programs 1`
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
  let hasVerifier = 1;
}

def Argus_ThreadIdOp : Argus_Op<"thread_id", [Pure]> {
  let summary = "thread index inside the program instance";
  let description = [{
    Only meaningful in thread-level kernels (`argus.threads` > 1); 0 otherwise.
    Example: `%t = argus.thread_id`
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
}

def Argus_NumThreadsOp : Argus_Op<"num_threads", [Pure]> {
  let summary = "threads per program instance";
  let description = [{
    Example: `%n = argus.num_threads`
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

def Argus_LoadOp : Argus_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "masked load of a tile from a global tensor";
  let description = [{
    Reads the tile whose first element is at `offsets`; elements past the
    tensor's bounds read `padding`.

    `unmasked` promises that every element of the tile is in bounds, so a
    backend may drop the predicates; reading out of bounds is then undefined
    (the interpreter reports it, the verifier proves it cannot happen). Code
    generators may still mask. An unmasked load takes no `padding`.
    Example:
    ```mlir
    %a = argus.load %A[%r, %c] : !argus.tensor<?x?xbf16> -> !argus.tile<64x256xbf16>
    %b = argus.load unmasked %A[%r, %c] : !argus.tensor<?x?xbf16> -> !argus.tile<64x256xbf16>
    ```
  }];
  let arguments = (ins Argus_TensorType:$tensor, Variadic<Index>:$offsets,
                       DefaultValuedAttr<F64Attr, "0.0">:$padding, UnitAttr:$unmasked);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = [{
    (`unmasked` $unmasked^)? $tensor `[` $offsets `]` attr-dict `:` type($tensor) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_ReadOp : Argus_Op<"read", [MemoryEffects<[MemRead]>]> {
  let summary = "read one element of a global tensor as a scalar";
  let description = [{
    The element at `indices` (one per dimension), which must be in bounds:
    the interpreter reports a read out of bounds, the verifier proves there
    is none. For indirection such as a paged KV cache's block table.
    Example:
    ```mlir
    %page = argus.read %table[%b, %p] : !argus.tensor<?x?xi32> -> i32
    ```
  }];
  let arguments = (ins Argus_TensorType:$tensor, Variadic<Index>:$indices);
  let results = (outs Argus_Scalar:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` attr-dict `:` type($tensor) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_CacheHint : Resource<"::argus::CacheHintResource">;

def Argus_PrefetchOp : Argus_Op<"prefetch", [MemoryEffects<[MemRead, MemWrite<Argus_CacheHint>]>]> {
  let summary = "hint that a global tile will be read soon";
  let description = [{
    Starts bringing the tile at `offsets` of `shape` towards the core (on
    the CPU, software prefetches of its cache lines). It has no effect on
    any value: elements out of bounds are skipped, and the interpreter and
    the verifier ignore it. For reads the hardware cannot predict, such as
    the next page of a paged KV cache. `level` is the cache level it fills
    (1 = the nearest; 2 for data the instance reads again only after more
    than the nearest cache holds). A `?` size spans its whole dimension (its
    offset is 0): all of `%K[%page]` below, in address order.
    Example:
    ```mlir
    argus.prefetch %K[%page, %c0, %g, %c0] [1, 16, 1, 128] : !argus.tensor<?x16x?x128xbf16>
    argus.prefetch %K[%page, %c0, %c0, %c0] [1, ?, ?, ?] {level = 2 : i64} : !argus.tensor<?x16x?x128xbf16>
    ```
  }];
  let arguments = (ins Argus_TensorType:$tensor, Variadic<Index>:$offsets, DenseI64ArrayAttr:$shape,
                       DefaultValuedAttr<I64Attr, "1">:$level);
  let assemblyFormat = [{
    $tensor `[` $offsets `]` custom<SizesOrWhole>($shape) attr-dict `:` type($tensor)
  }];
  let hasVerifier = 1;
}

def Argus_StoreOp : Argus_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "masked store of a tile into a global tensor";
  let description = [{
    Elements past the tensor's bounds are not written. `unmasked` promises
    that every element is in bounds (see `argus.load`); code generators may
    still mask.
    Example:
    ```mlir
    argus.store %c, %C[%r, %c0] : !argus.tile<64x64xbf16>, !argus.tensor<?x?xbf16>
    argus.store unmasked %c, %C[%r, %c0] : !argus.tile<64x64xbf16>, !argus.tensor<?x?xbf16>
    ```
  }];
  let arguments = (ins Argus_TileType:$value, Argus_TensorType:$tensor, Variadic<Index>:$offsets,
                       UnitAttr:$unmasked);
  let assemblyFormat = [{
    (`unmasked` $unmasked^)? $value `,` $tensor `[` $offsets `]` attr-dict `:` type($value) `,` type($tensor)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Buffers (shared / local memory)
//===----------------------------------------------------------------------===//

def Argus_AllocOp : Argus_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "allocate a shared or local buffer";
  let description = [{
    Example:
    ```mlir
    %sa = argus.alloc : !argus.buffer<3x64x64xbf16, shared, #argus.swizzle<3,3,3>>
    ```
  }];
  let results = (outs Argus_BufferType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Argus_CopyOp : Argus_Op<"copy", [AttrSizedOperandSegments,
                                      MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "copy a global tile into a buffer slot (optionally asynchronous)";
  let description = [{
    `dst_indices` select a slot along the buffer's leading dimensions; the
    remaining dimensions are the tile copied from `src` at `src_offsets`
    (masked: out-of-bounds elements become zero). An `async` copy completes
    at the `argus.wait` that leaves at most N younger copies pending.
    `unmasked` promises that the whole source tile is in bounds (see
    `argus.load`); code generators may still mask.
    Example:
    ```mlir
    argus.copy async %A[%r, %k], %sa[%s] : !argus.tensor<?x?xbf16>, !argus.buffer<3x64x64xbf16, shared>
    argus.copy async unmasked %A[%r, %k], %sa[%s] : !argus.tensor<?x?xbf16>, !argus.buffer<3x64x64xbf16, shared>
    ```
  }];
  let arguments = (ins Argus_TensorType:$src, Variadic<Index>:$src_offsets,
                       Argus_BufferType:$dst, Variadic<Index>:$dst_indices,
                       UnitAttr:$async, UnitAttr:$unmasked);
  let assemblyFormat = [{
    (`async` $async^)? (`unmasked` $unmasked^)? $src `[` $src_offsets `]` `,` $dst `[` $dst_indices `]` attr-dict
    `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Argus_WaitOp : Argus_Op<"wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` asynchronous copies are in flight";
  let description = [{
    Example: `argus.wait 1`
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

// A per-access view of a buffer slot: #argus.layout or #argus.swizzle.
def Argus_SlotView : AnyAttrOf<[Argus_LayoutAttr, Argus_SwizzleAttr]>;

def Argus_BufferLoadOp : Argus_Op<"buffer_load", [MemoryEffects<[MemRead]>]> {
  let summary = "read a tile from a buffer slot";
  let description = [{
    Logical element `i` (row-major) of the slot is at the buffer's logical
    index `slot base + i`, placed by the buffer's own layout.

    With `view(L)` the access ignores the buffer's own layout for this slot
    and addresses it through `L` (a layout or a swizzle over the slot's
    row-major index): element `i` is at physical offset `slot base + L(i)`,
    where `slot base` is the slot's row-major start (slot index × slot size).
    This models hand-written address arithmetic (e.g. an ldmatrix read that
    computes its own swizzle). `L` must map the slot's elements into the slot.
    For a swizzle equal to the buffer's own and a slot size that is a multiple
    of the swizzle's period, `view` changes nothing.
    Example:
    ```mlir
    %a = argus.buffer_load %sa[%s] : !argus.buffer<3x64x64xbf16, shared> -> !argus.tile<64x64xbf16>
    %b = argus.buffer_load %sa[%s] view(#argus.swizzle<3, 3, 3>) : !argus.buffer<3x64x64xbf16, shared> -> !argus.tile<64x64xbf16>
    ```
  }];
  let arguments = (ins Argus_BufferType:$buffer, Variadic<Index>:$indices,
                       OptionalAttr<Argus_SlotView>:$view);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = [{
    $buffer `[` $indices `]` (`view` `(` $view^ `)`)? attr-dict `:` type($buffer) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_BufferStoreOp : Argus_Op<"buffer_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a tile into a buffer slot";
  let description = [{
    Addressing as in `argus.buffer_load`, including the optional `view`.
    Example:
    ```mlir
    argus.buffer_store %t, %sb[%s] : !argus.tile<64x64xf32>, !argus.buffer<2x64x64xf32, local>
    argus.buffer_store %t, %sb[%s] view(#argus.layout<(64,64):(64,1)>) : !argus.tile<64x64xf32>, !argus.buffer<2x64x64xf32, local>
    ```
  }];
  let arguments = (ins Argus_TileType:$value, Argus_BufferType:$buffer, Variadic<Index>:$indices,
                       OptionalAttr<Argus_SlotView>:$view);
  let assemblyFormat = [{
    $value `,` $buffer `[` $indices `]` (`view` `(` $view^ `)`)? attr-dict `:` type($value) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def Argus_BarrierOp : Argus_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "synchronise all threads of the program instance";
  let description = [{
    Example: `argus.barrier`
  }];
  let assemblyFormat = "attr-dict";
}

// Scheduling hints: no effect on values or on which thread sees what (the
// verifier and the interpreter skip them); the memory effects keep them in
// place among the ops they order.
def Argus_PriorityOp : Argus_Op<"priority", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "issue priority of this thread's instructions from here on (a hint)";
  let description = [{
    On CDNA the wave's `s_setprio`, 0 (the default, lowest) to 3: a wave raised
    while it issues MFMAs keeps the matrix cores fed ahead of waves that load
    (HipKittens' 8-wave ping-pong). Other targets ignore it.

    Example: `argus.priority 1`
  }];
  let arguments = (ins I64Attr:$level);
  let assemblyFormat = "$level attr-dict";
  let hasVerifier = 1;
}

def Argus_ScheduleGroupOp : Argus_Op<"schedule_group", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "ask the instruction scheduler for `count` instructions of `kind` next (a hint)";
  let description = [{
    On CDNA `__builtin_amdgcn_sched_group_barrier`: consecutive groups of one
    straight-line region are the order the scheduler fills with that region's
    instructions (one MFMA, two LDS reads, one MFMA, ...). Kinds: mfma, valu,
    salu, vmem_read, vmem_write, ds_read, ds_write. Other targets ignore it.

    Example: `argus.schedule_group "ds_read", 2`
  }];
  let arguments = (ins StrAttr:$kind, I64Attr:$count);
  let assemblyFormat = "$kind `,` $count attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The kinds, with the sched_group_barrier mask of each (LLVM's AMDGPU
    /// SchedGroupMask); 0 for an unknown kind.
    static int64_t maskOf(::llvm::StringRef kind);
  }];
}

//===----------------------------------------------------------------------===//
// Tile computation
//===----------------------------------------------------------------------===//

def Argus_FullOp : Argus_Op<"full", [Pure]> {
  let summary = "tile with every element equal to a scalar";
  let description = [{
    Example: `%z = argus.full %c0 : f32 -> !argus.tile<64x64xf32>`
  }];
  let arguments = (ins Argus_Scalar:$value);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

def Argus_IotaOp : Argus_Op<"iota", [Pure]> {
  let summary = "tile whose elements are their coordinate along `dim`";
  let description = [{
    Example: `%cols = argus.iota 1 : !argus.tile<64x64xi32>`
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = "$dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Argus_MmaOp : Argus_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix multiply-accumulate: result = acc + a · bᵀ";
  let description = [{
    `a` is M×K, `b` is N×K (both K-contiguous, like the weights of y = x Wᵀ),
    `acc` and the result are M×N f32. Lowered to wgmma / MFMA / AVX-512
    (vdpbf16ps for bf16) by the backends.
    Example:
    ```mlir
    %acc1 = argus.mma %a, %b, %acc0 : !argus.tile<64x256xbf16>, !argus.tile<32x256xbf16>, !argus.tile<64x32xf32>
    ```
  }];
  let arguments = (ins Argus_TileType:$a, Argus_TileType:$b, Argus_TileType:$acc);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = "$a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)";
  let hasVerifier = 1;
}

def Argus_BinaryOp : Argus_Op<"binary", [Pure]> {
  let summary = "elementwise binary operation with numpy broadcasting";
  let description = [{
    Operands are tiles or scalars; shapes broadcast as in numpy (trailing
    dimensions aligned, size-1 dimensions stretched, scalars everywhere).
    Integer `div` truncates; dividing by zero gives 0 and MIN / -1 wraps
    (no trap on any target). Not defined on i1.
    Example:
    ```mlir
    %y = argus.binary mul %alpha, %acc : f32, !argus.tile<64x64xf32> -> !argus.tile<64x64xf32>
    ```
  }];
  let arguments = (ins Argus_BinaryKind:$kind, Argus_TileOrScalar:$lhs, Argus_TileOrScalar:$rhs);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = "$kind $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
  // x + mma(a, b, 0) -> mma(a, b, x): the product accumulates onto x in place
  // (flash attention's rescaled accumulator) instead of into a zeroed tile
  // that is then added.
  let hasCanonicalizer = 1;
}

def Argus_UnaryOp : Argus_Op<"unary", [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise unary operation";
  let description = [{
    Example: `%e = argus.unary exp %s : !argus.tile<64x64xf32>`
  }];
  let arguments = (ins Argus_UnaryKind:$kind, Argus_TileType:$operand);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = "$kind $operand attr-dict `:` type($operand)";
  let hasVerifier = 1;
}

def Argus_CmpOp : Argus_Op<"cmp", [Pure]> {
  let summary = "elementwise comparison with broadcasting, giving an i1 tile";
  let description = [{
    Example:
    ```mlir
    %m = argus.cmp le %cols, %rows : !argus.tile<1x64xi32>, !argus.tile<64x1xi32> -> !argus.tile<64x64xi1>
    ```
  }];
  let arguments = (ins Argus_CmpPredicate:$predicate, Argus_TileOrScalar:$lhs,
                       Argus_TileOrScalar:$rhs);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = "$predicate $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
}

def Argus_SelectOp : Argus_Op<"select", [Pure]> {
  let summary = "elementwise choice between two values by an i1 tile";
  let description = [{
    Example:
    ```mlir
    %s = argus.select %m, %x, %ninf : !argus.tile<64x64xi1>, !argus.tile<64x64xf32>, f32 -> !argus.tile<64x64xf32>
    ```
  }];
  let arguments = (ins Argus_TileType:$condition, Argus_TileOrScalar:$true_value,
                       Argus_TileOrScalar:$false_value);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:` type($condition) `,`
    type($true_value) `,` type($false_value) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Argus_ReduceOp : Argus_Op<"reduce", [Pure]> {
  let summary = "reduce a tile along one axis, keeping it with size 1";
  let description = [{
    Example:
    ```mlir
    %mx = argus.reduce max %s, 1 : !argus.tile<64x64xf32> -> !argus.tile<64x1xf32>
    ```
  }];
  let arguments = (ins Argus_ReduceKind:$kind, Argus_TileType:$operand, I64Attr:$axis);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = "$kind $operand `,` $axis attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def Argus_CastOp : Argus_Op<"cast", [Pure]> {
  let summary = "convert the element type of a tile (round to nearest even)";
  let description = [{
    Example: `%c = argus.cast %acc : !argus.tile<64x64xf32> to !argus.tile<64x64xbf16>`
  }];
  let arguments = (ins Argus_TileType:$operand);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
}

def Argus_TransposeOp : Argus_Op<"transpose", [Pure]> {
  let summary = "swap the two dimensions of a rank-2 tile";
  let description = [{
    Example: `%vt = argus.transpose %v : !argus.tile<64x128xbf16> -> !argus.tile<128x64xbf16>`
  }];
  let arguments = (ins Argus_TileType:$operand);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def Argus_ReshapeOp : Argus_Op<"reshape", [Pure]> {
  let summary = "reinterpret a tile's shape (row-major, same element count)";
  let description = [{
    Example: `%r = argus.reshape %b : !argus.tile<64xf32> -> !argus.tile<1x64xf32>`
  }];
  let arguments = (ins Argus_TileType:$operand);
  let results = (outs Argus_TileType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tags (erased before code generation)
//===----------------------------------------------------------------------===//

def Argus_TagOp : Argus_Op<"tag", [SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "bind a tag function to every element of a tensor or buffer";
  let description = [{
    The region maps an element's coordinates to its tag tuple. `names` gives
    the tuple's field names (used by `argus.tag_get`).
    Example:
    ```mlir
    argus.tag %A names ["m", "k"] : !argus.tensor<?x?xbf16> {
    ^bb0(%m: index, %k: index):
      argus.yield %m, %k : index, index
    }
    ```
  }];
  let arguments = (ins AnyType:$target, StrArrayAttr:$names);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$target `names` $names attr-dict `:` type($target) $body";
  let hasRegionVerifier = 1;
}

def Argus_AssertTagOp : Argus_Op<"assert_tag", [SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "assert a relation between the tags of corresponding elements";
  let description = [{
    For every element position of the operands (tiles of one shape), the
    region, given one `!argus.tag` per operand, must yield true.
    Example:
    ```mlir
    argus.assert_tag %a, %b : !argus.tile<64x64xbf16>, !argus.tile<64x64xbf16> {
    ^bb0(%ta: !argus.tag, %tb: !argus.tag):
      %ka = argus.tag_get %ta["k"]
      %kb = argus.tag_get %tb["k"]
      %eq = arith.cmpi eq, %ka, %kb : index
      argus.yield %eq : i1
    }
    ```
    With `mask`, the operands are `a` (M×K), `b` (N×K) and an i1 tile `m`
    (M×N), the region takes the tags of `a` and `b`, and it must yield
    exactly `m[i, j]` at a[i, k], b[j, k] for every i, j, k: the mask keeps
    the pairs the relation allows and no others (attention's scores: each
    query row sees exactly the keys it may). The region may read values of
    the enclosing kernel (sizes, scalar arguments).
  }];
  let arguments = (ins Variadic<AnyType>:$operands, OptionalAttr<StrAttr>:$message, UnitAttr:$mask);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$operands attr-dict `:` type($operands) $body";
  let hasRegionVerifier = 1;
}

def Argus_TagGetOp : Argus_Op<"tag_get", [Pure]> {
  let summary = "one field of a tag tuple, by name or by position";
  let description = [{
    Example: `%k = argus.tag_get %ta["k"]` or `%k = argus.tag_get %ta["1"]`
  }];
  let arguments = (ins Argus_TagType:$tag, StrAttr:$field);
  let results = (outs Index:$result);
  let assemblyFormat = "$tag `[` $field `]` attr-dict";
}

def Argus_ResetTagsOp : Argus_Op<"reset_tags", []> {
  let summary = "forget the tags of a buffer before it is reused";
  let description = [{
    Example: `argus.reset_tags %sa : !argus.buffer<2x64x64xbf16, shared>`
  }];
  let arguments = (ins Argus_BufferType:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
}

def Argus_YieldOp : Argus_Op<"yield", [Pure, Terminator, ReturnLike,
                                        ParentOneOf<["TagOp", "AssertTagOp"]>]> {
  let summary = "terminator of tag and assertion regions";
  let description = [{
    Example: `argus.yield %m, %k : index, index`
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // ARGUS_OPS
