"""`--gmx-prefetch-rows`: a block gather's row copy prefetches the row it
will copy a few rows later.

The rows a block gather (index_select, embedding, ONNX Gather) copies are
chosen by its indices, so the hardware prefetchers cannot guess the next
one: each row starts with a cache miss to memory, and only the few rows the
core has in flight overlap. Reading the index of a later row and
prefetching that row's lines as this one is copied keeps memory busy. After
`--gmx-stream-row-copies`:

    scf.for %r = %c0 to %c16384 step %c1 {
      scf.for %c = %c0 to %c256 step %c16 {
        %i = memref.load %idx[%r] : memref<16384xi64>
        %row = arith.index_cast %i : i64 to index
        %v = vector.load %x[%row, %c] : memref<50000x256xf32>, vector<16xf32>
        vector.store %v, %out[%r, %c] {nontemporal = true} : ...
      }
    }

becomes (the row's index computed again for the row `ahead` rows on,
clamped to the last; a prefetch never faults, whatever the index):

    scf.for %r = %c0 to %c16384 step %c1 {
      scf.for %c = %c0 to %c256 step %c16 {
        %next = arith.addi %r, %c4 : index
        %later = arith.minui %next, %c16383 : index
        %i2 = memref.load %idx[%later] : memref<16384xi64>
        %row2 = arith.index_cast %i2 : i64 to index
        memref.prefetch %x[%row2, %c], read, locality<3>, data : memref<50000x256xf32>
        %i = memref.load %idx[%r] ...
        ...
      }
    }

Matched: an scf.for whose body has one `vector.load` at the loop's
induction variable in its last dim, directly inside an scf.for over rows
with static bounds and step 1, whose leading indices are computed (in the
two loop bodies, by pure ops and loads) from a load that depends on the
row loop's induction variable: a row chosen by data; and no prefetch yet
(the pass is idempotent). `prefetch_rows` decides how many rows ahead.
Anything else is left alone.
"""

from __future__ import annotations

import math

from gmx.dialect.mlir import arith, ir, memref

from ..registry import PassInfo, add_python_pass
from ..views import defining_op, ops_named

# How far ahead to prefetch, in bytes of rows: enough to cover the latency
# of memory at the rate one core copies, and little enough to stay in L1.
PREFETCH_BYTES = 4096
_PURE = ("arith.", "affine.apply", "index.", "math.", "memref.load")


def prefetch_rows(row_bytes: int) -> int:
    """Rows ahead to prefetch when copying rows of `row_bytes` bytes."""
    return max(1, math.ceil(PREFETCH_BYTES / max(1, row_bytes)))


def _constant_index(value: ir.Value) -> int | None:
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    return ir.IntegerAttr(op.attributes["value"]).value


def _body(loop) -> ir.Block:
    return loop.regions[0].blocks[0]


def _slice(values, blocks) -> list | None:
    """The ops of `blocks` that `values` are computed from, in program
    order; None if one is not pure (or a load)."""
    found, stack = [], list(values)
    while stack:
        op = defining_op(stack.pop())
        if op is None or op.parent is None or op.block not in blocks or op in found:
            continue
        if not op.name.startswith(_PURE):
            return None
        found.append(op)
        stack.extend(op.operands)
    order = {block: [o.operation for o in block.operations] for block in blocks}
    return sorted(found, key=lambda o: (blocks.index(o.block), order[o.block].index(o)))


def _row_load(loop) -> tuple | None:
    """(vector.load, row loop, the slice of its leading indices) when
    `loop` copies a row chosen by data, else None."""
    outer = loop.parent
    if outer is None or outer.name not in ("scf.for", "scf.parallel") or len(outer.operands) != 3:
        return None
    lower, upper, step = (_constant_index(v) for v in outer.operands[:3])
    if lower is None or upper is None or step != 1 or upper <= lower + 1:
        return None
    iv = _body(loop).arguments[0]
    body = [op.operation for op in _body(loop).operations]
    loads = [op for op in body if op.name == "vector.load"]
    if len(loads) != 1 or list(loads[0].operands)[-1] != iv or any(op.name == "memref.prefetch" for op in body):
        return None  # (a loop that prefetches already is done)
    load = loads[0]
    leading = list(load.operands)[1:-1]
    ops = _slice(leading, [_body(outer), _body(loop)])
    if not ops or not any(op.name == "memref.load" for op in ops):
        return None
    row = _body(outer).arguments[0]
    if not any(row in list(op.operands) for op in ops) or iv in [v for op in ops for v in op.operands]:
        return None
    return load, outer, ops


def _prefetch(load, outer, ops, ahead: int) -> None:
    """Before `load`: its leading indices for the row `ahead` rows on
    (clamped to the last row), and a prefetch of that row there."""
    index = ir.IndexType.get()
    with load.location:
        with ir.InsertionPoint(outer):  # constants outside the row loop
            step = arith.constant(index, ahead)
            last = arith.constant(index, _constant_index(outer.operands[1]) - 1)
        with ir.InsertionPoint(load):
            later = arith.minui(arith.addi(_body(outer).arguments[0], step), last)
    with load.location, ir.InsertionPoint(load):
        row = _body(outer).arguments[0]
        mapping = {row: later}
        for op in ops:
            clone = op.clone()
            for i, operand in enumerate(clone.operands):
                if operand in mapping:
                    clone.operands[i] = mapping[operand]
            clone.move_before(load)
            for old, new in zip(op.results, clone.results):
                mapping[old] = new
        indices = [mapping.get(v, v) for v in list(load.operands)[1:]]
        memref.prefetch(load.operands[0], indices, is_write=False, locality_hint=3, is_data_cache=True)


def _row_bytes(loop, load) -> int | None:
    """Bytes the loop copies per row (its static trip length times the element size)."""
    upper = _constant_index(loop.operands[1])
    element = ir.VectorType(load.result.type).element_type
    if upper is None or not isinstance(element, (ir.FloatType, ir.IntegerType)):
        return None
    return upper * max(1, element.width // 8)


def prefetch_rows_pass(module) -> None:
    """Add the prefetch to every matched row copy (see the module docstring)."""
    for loop in ops_named(module, "scf.for"):
        match = _row_load(loop)
        if match is None:
            continue
        load, outer, ops = match
        row_bytes = _row_bytes(loop, load)
        if row_bytes is not None:
            _prefetch(load, outer, ops, prefetch_rows(row_bytes))


def _build(pm, options) -> None:
    add_python_pass(pm, prefetch_rows_pass, PASS)


PASS = PassInfo(
    argument="gmx-prefetch-rows",
    description="Prefetch the row a block gather copies a few rows later (loop level, after gmx-stream-row-copies)",
    build=_build,
)
