"""`--gmx-stream-row-copies`: contiguous row copies into a large output
become 64-byte vector copies with non-temporal (streaming) stores.

A block gather (index_select, embedding, ONNX Gather) copies rows of the
input into a fresh output. At the loop level each row is an innermost loop:

    scf.for %c = %c0 to %c256 step %c1 {
      %v = memref.load %x[%row, %c] : memref<50000x256xf32>
      memref.store %v, %out[%r, %c] : memref<16384x256xf32>
    }

With ordinary stores every output cache line is first read from memory
(write-allocate), then written back: a third of the traffic of the copy is
wasted on an output nobody has read yet. When the output is larger than
the caches (NONTEMPORAL_MIN_BYTES), the row becomes

    scf.for %c = %c0 to %c256 step %c16 {
      %v = vector.load %x[%row, %c] : memref<50000x256xf32>, vector<16xf32>
      vector.store %v, %out[%r, %c] {alignment = 64, nontemporal = true} : ...
    }

A gather in fill mode stores `select(%in_range, %v, %fill)`: whether the
row's index is in range and the fill value are the same for the whole row,
so the vector is selected as a whole:

      %v = vector.load %x[%row, %c] : memref<50000x256xf32>, vector<16xf32>
      %f = vector.broadcast %fill : f32 to vector<16xf32>
      %s = arith.select %in_range, %v, %f : vector<16xf32>
      vector.store %s, %out[%r, %c] {alignment = 64, nontemporal = true} : ...

Matched: an innermost loop from 0 to a static multiple of 64 bytes' worth
of elements, step 1, whose body is one load and one store of that value
(or of such a select, its condition and other value not computed from the
load), both at the induction variable in their unit-stride last dim, plus
ops that do not use it (the row's index, hoisted or not). The store's address must
be provably 64-byte aligned at every step: its memref is a 64-aligned
`memref.alloc` or a destination argument (`gmx.destinations`: the caller
aligns it, `runtime_abi`; never a donated argument, which the caller
aligns as numpy does and reads again, a cache a call updates a little of), or a subview of one that keeps unit strides and does not
cut into the last dim, and every outer stride is a multiple of 64 bytes.
The other ops must be pure (arith, affine.apply, index, math, loads), and
no load may read the output's buffer (a copy within one buffer could
overlap itself within a vector). Anything else is left alone (LLVM turns it into `memcpy`
or a vector loop).
"""

from __future__ import annotations

import math

from gmx.dialect.mlir import arith, ir, vector

from ..registry import PassInfo, add_python_pass
from ..views import buffer_root, defining_op, ops_named
from .runtime_abi import DESTINATION_ALIGNMENT, DESTINATIONS_ATTR, donated_arguments

VECTOR_BYTES = 64  # one cache line, one AVX-512 register
# Outputs smaller than this stay in ordinary stores: they may still be in
# cache when they are read (a 2 MB L2 per core here).
NONTEMPORAL_MIN_BYTES = 4 << 20


def _constant_index(value: ir.Value) -> int | None:
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    return ir.IntegerAttr(op.attributes["value"]).value


def _element_bytes(memref_type: ir.MemRefType) -> int | None:
    element = memref_type.element_type
    if isinstance(element, (ir.FloatType, ir.IntegerType)) and element.width % 8 == 0:
        return element.width // 8
    return None


def _unit_stride_last(memref_type: ir.MemRefType) -> bool:
    strides, _ = memref_type.get_strides_and_offset()
    return memref_type.rank >= 1 and strides[-1] == 1


def _outer_strides_aligned(memref: ir.Value, element_bytes: int) -> bool:
    """Whether every stride but the last is a static multiple of 64 bytes."""
    strides, _ = ir.MemRefType(memref.type).get_strides_and_offset()
    return not any(ir.ShapedType.is_dynamic_size(s) or (s * element_bytes) % VECTOR_BYTES for s in strides[:-1])


def _aligned_destination(memref: ir.Value, element_bytes: int) -> bool:
    """Whether every row start of `memref` is 64-byte aligned, and it (or
    the allocation it is a subview of) is an output-sized allocation worth
    streaming."""
    if not _outer_strides_aligned(memref, element_bytes):
        return False
    op = defining_op(memref)
    if op is None or op.name != "memref.subview":
        return _is_large_aligned_alloc(memref, element_bytes)
    rank = ir.MemRefType(memref.type).rank
    if list(ir.DenseI64ArrayAttr(op.attributes["static_strides"])) != [1] * rank:
        return False
    last_offset = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))[-1]
    if ir.ShapedType.is_dynamic_size(last_offset) or (last_offset * element_bytes) % VECTOR_BYTES:
        return False
    source = op.operands[0]
    return _is_large_aligned_alloc(source, element_bytes) and _outer_strides_aligned(source, element_bytes)


def _is_destination(memref: ir.Value) -> bool:
    """Whether `memref` is an argument of a function with destinations
    that the function writes and is not donated: one of its destinations
    (its other arguments are read-only), 64-byte aligned by the runtime ABI."""
    if not isinstance(memref, ir.BlockArgument):
        return False
    function = memref.owner.owner.operation
    return (function.name == "func.func" and DESTINATIONS_ATTR in function.attributes
            and memref.arg_number not in donated_arguments(function))


def _is_large_aligned_alloc(memref: ir.Value, element_bytes: int) -> bool:
    """A 64-byte aligned allocation or destination, large enough to stream."""
    op = defining_op(memref)
    if _is_destination(memref):
        aligned = VECTOR_BYTES <= DESTINATION_ALIGNMENT
    elif op is None or op.name != "memref.alloc" or "alignment" not in op.attributes:
        return False
    else:
        aligned = ir.IntegerAttr(op.attributes["alignment"]).value % VECTOR_BYTES == 0
    memref_type = ir.MemRefType(memref.type)
    if not memref_type.has_static_shape:
        return False
    return aligned and math.prod(memref_type.shape) * element_bytes >= NONTEMPORAL_MIN_BYTES


_PURE = ("arith.", "affine.apply", "index.", "math.")
_READS = ("memref.load", "memref.store", "scf.yield")


def _uses_value(value: ir.Value, source: ir.Value, loop) -> bool:
    """Whether `value` is `source` or computed from it inside `loop`."""
    if value == source:
        return True
    op = defining_op(value)
    if op is None or op.parent != loop:
        return False
    return any(_uses_value(operand, source, loop) for operand in op.operands)


def _stored_load(store, loop):
    """(load, select or None): the load whose value `store` stores, directly
    or as the true value of a select whose condition and false value are
    the same for the whole row (not computed from the load); else None."""
    value = store.operands[0]
    op = defining_op(value)
    if op is None or op.parent != loop:
        return None
    select = None
    if op.name == "arith.select":
        select, (condition, value, other) = op, op.operands
        if not isinstance(condition.type, ir.IntegerType):
            return None
        op = defining_op(value)
        if op is None or op.parent != loop or any(_uses_value(v, value, loop) for v in (condition, other)):
            return None
        if len(list(value.uses)) != 1 or len(list(select.results[0].uses)) != 1:
            return None
    if op.name != "memref.load":
        return None
    return op, select


def _row_copy(loop) -> tuple | None:
    """(load, select or None, store, lanes) when `loop` is a streamable row
    copy, else None."""
    lower, upper, step = (_constant_index(v) for v in loop.operands[:3])
    if lower != 0 or step != 1 or upper is None or len(loop.results) != 0:
        return None
    iv = loop.regions[0].blocks[0].arguments[0]
    body = [op.operation for op in loop.regions[0].blocks[0].operations]
    stores = [op for op in body if op.name == "memref.store"]
    # Running the body a sixteenth as often is only right for pure ops.
    if len(stores) != 1 or not all(op.name.startswith(_PURE) or op.name in _READS for op in body):
        return None
    store = stores[0]
    stored = _stored_load(store, loop)
    if stored is None:
        return None
    load, select = stored
    if list(load.operands)[-1] != iv or list(store.operands)[-1] != iv:
        return None
    if any(iv in list(op.operands)[:-1] or (op not in (load, store) and iv in list(op.operands)) for op in body):
        return None
    source, destination = ir.MemRefType(load.operands[0].type), ir.MemRefType(store.operands[1].type)
    element_bytes = _element_bytes(destination)
    if element_bytes is None or not (_unit_stride_last(source) and _unit_stride_last(destination)):
        return None
    lanes = VECTOR_BYTES // element_bytes
    if upper % lanes or not _aligned_destination(store.operands[1], element_bytes):
        return None
    # A copy within one buffer could overlap itself within a vector, and a
    # load from the output would see fewer of the stores before it.
    written = buffer_root(store.operands[1])
    if any(op.name == "memref.load" and buffer_root(op.operands[0]) == written for op in body):
        return None
    return load, select, store, lanes


def _stream(loop, load, select, store, lanes: int) -> None:
    """Rewrite the matched row copy in place: step `lanes`, vector copy."""
    with loop.location:
        with ir.InsertionPoint(loop):
            loop.operands[2] = arith.constant(ir.IndexType.get(), lanes)
        vector_type = ir.VectorType.get([lanes], ir.MemRefType(load.operands[0].type).element_type)
        with ir.InsertionPoint(store):
            value = vector.load(vector_type, load.operands[0], list(load.operands)[1:])
            if select is not None:
                other = vector.broadcast(vector_type, select.operands[2])
                value = arith.select(select.operands[0], value, other)
            vector.store(value, store.operands[1], list(store.operands)[2:], nontemporal=True, alignment=VECTOR_BYTES)
    store.erase()
    if select is not None:
        select.erase()
    load.erase()


def stream_row_copies(module) -> None:
    """Rewrite every matched row copy (see the module docstring)."""
    for loop in ops_named(module, "scf.for"):
        match = _row_copy(loop)
        if match is not None:
            _stream(loop, *match)


def _build(pm, options) -> None:
    add_python_pass(pm, stream_row_copies, PASS)


PASS = PassInfo(
    argument="gmx-stream-row-copies",
    description="Copy contiguous rows into large outputs with 64-byte non-temporal vector stores (loop level, on memrefs)",
    build=_build,
)
