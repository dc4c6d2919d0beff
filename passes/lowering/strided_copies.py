"""Copies between strided memrefs as loops, not calls into the runtime.

IR in and out: memrefs, after bufferization, before
convert-linalg-to-parallel-loops (`--gmx-lower-to-llvm`).

Bufferization writes a slice into a buffer with `memref.copy`: an
`insert_slice` of a token into a (donated) KV cache is

    %s = memref.subview %cache[0, 0, %i, 0] [8, 32, 1, 128] [1, 1, 1, 1]
        : memref<8x32x4096x128xf32> to memref<8x32x1x128xf32, strided<[16777216, 524288, 128, 1], offset: ?>>
    memref.copy %token, %s : memref<8x32x1x128xf32> to memref<8x32x1x128xf32, strided<...>>

finalize-memref-to-llvm lowers a copy between identity layouts to
`llvm.intr.memcpy` and any other to a call of `memrefCopy`, which
gmx.runtime provides in Python (`runtime.memref.MEMREF_COPY`): tens of
microseconds a call, more than copying the token (a donated KV-cache update
took 1.6x torch's `index_copy_`, 0.7x as loops). Each such copy becomes

    linalg.copy ins(%token : memref<8x32x1x128xf32>) outs(%s : memref<8x32x1x128xf32, strided<...>>)

loops that LLVM vectorises (parallel when large: gmx-parallel-loops).
Left a call: a copy whose source and target view the same buffer (they
may overlap, which memrefCopy's numpy copy handles and loops do not), of
rank 0, or of elements that are not integers or floats.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir, linalg

from ..views import buffer_root, ops_named


def _identity(t: ir.MemRefType) -> bool:
    """Whether `t` has the identity layout (a copy of which is a memcpy)."""
    layout = t.layout
    return isinstance(layout, ir.AffineMapAttr) and layout.value == ir.AffineMap.get_identity(t.rank)


def copies_as_loops(copy) -> bool:
    """Whether the `memref.copy` becomes linalg.copy (see the module docstring)."""
    source, target = copy.operands
    types = [ir.MemRefType(v.type) for v in (source, target)]
    if all(_identity(t) for t in types) or types[0].rank == 0:
        return False
    if not isinstance(types[0].element_type, (ir.IntegerType, ir.FloatType)):
        return False
    return buffer_root(source) != buffer_root(target)


def strided_copies_as_loops(module) -> None:
    """Every strided `memref.copy` that `copies_as_loops`, as `linalg.copy`."""
    for copy in ops_named(module, "memref.copy"):
        if copies_as_loops(copy):
            with ir.InsertionPoint(copy), copy.location:
                linalg.copy(copy.operands[0], outs=[copy.operands[1]])
            copy.erase()
