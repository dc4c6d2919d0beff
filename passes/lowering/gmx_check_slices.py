"""`--gmx-check-slices`: in checked mode, a slice or element of a tensor
(or an element of a memref the program itself accesses) that the
program's data (or a dynamic size) places is accessed only when it lies
inside; else each offending dim is reported to the runtime as a checked
gather's bad index is (IndexError), and nothing after the check in its
block runs (nothing is read or written outside).

Checked, per dim d whose bounds are not static:

    tensor.insert_slice / tensor.extract_slice (offset o, size s, stride t,
    dim size n of the dest / source):
        s == 0:  0 <= o <= n
        s > 0:   0 <= o < n  and  0 <= o + (s-1)*t < n  (no overflow)
        s < 0:   never
    tensor.extract / tensor.insert / memref.load / memref.store
    (index i, n from memref.dim when dynamic):  0 <= i < n

An element's dim whose index `ranges` proves inside (a constant in
range, an scf.for induction variable within the dim, a clamp) is not
checked; a constant outside a static dim (no verifier rejects it) is
reported at each run.

Upstream's `generate-runtime-verification` checks extract_slice and
extract, not insert_slice nor insert, and its asserts carry no values;
gmx-check-shapes drops them. Only ops outside linalg bodies are checked:
a tensor.extract in a linalg.generic is per element (gmx's gathers,
raised from those, check their own indices; gmx-check-linalg-extracts
the others); a memref.load in one is not checked.

Before (a KV-cache update at a position read from the data):

    %p = arith.index_cast %i : i64 to index
    %r = tensor.insert_slice %t into %cache[0, %p, 0] [1, 1, 4] [1, 1, 1]
           : tensor<1x1x4xf32> into tensor<1x16x4xf32>
    return %r : tensor<1x16x4xf32>

After (names shortened):

    %p = arith.index_cast %i : i64 to index
    %ok = arith.cmpi ult, %p, %c16 : index
    %r2 = scf.if %ok -> (tensor<1x16x4xf32>) {
      %r = tensor.insert_slice ...          // and the rest of the block
      scf.yield %r : tensor<1x16x4xf32>
    } else {
      scf.if %bad {                         // each dim that fails
        func.call @gmx_index_error(%site, %c1, %p64, %c16)
      }
      scf.yield %placeholder : tensor<1x16x4xf32>
    }
    return %r2 : tensor<1x16x4xf32>

A program written at the memref level (a store at a position read from
the data), before:

    scf.for %k = %c0 to %c4 step %c1 {
      %i = arith.index_cast %q : i64 to index
      memref.store %v, %m[%i] : memref<16xf32>
    }

After:

    scf.for %k = %c0 to %c4 step %c1 {
      %i = arith.index_cast %q : i64 to index
      %i64 = arith.index_cast %i : index to i64
      %ok = arith.cmpi ult, %i64, %c16 : i64
      scf.if %ok {
        memref.store %v, %m[%i] : memref<16xf32>    // and the rest of the block
      } else {
        func.call @gmx_index_error(%site, %c0, %i64, %c16)
      }
    }

The reported value is the offset when it is outside the dim, else the
last index the slice reaches. A loop around a checked op that carries a
donated argument starts from a copy of it (`loop_on_a_copy`): a failure
in a later iteration finds the argument unchanged. Run it on tensors, before gmx ops are
lowered (their own slices are in bounds by construction) and before
bufferization (so that a donated buffer is never written on failure, and
the only memref accesses are the input program's own: gmx's lowering's
are never checked).
"""

from __future__ import annotations

from dataclasses import dataclass

from gmx.dialect.mlir import bufferization, ir, memref, scf, tensor

from . import ranges
from .folding import Folded, Folder
from .gmx_check_scatter_indices import guard_each
from .index_checks import in_range
from .gmx_report_asserts import rest_of_block, can_carry, run_only_if
from .reporters import CALLBACKS, Checked
from .runtime_abi import donated_arguments
from ..registry import PassInfo, add_python_pass

SLICES = {"tensor.insert_slice": 1, "tensor.extract_slice": 0}  # op: operand number of the tensor sliced
LOOPS = ("scf.for", "scf.while", "stablehlo.while")
# op: operand number of the tensor or memref indexed (its indices follow it)
ELEMENTS = {"tensor.insert": 1, "tensor.extract": 0, "memref.store": 1, "memref.load": 0}
INSERTS = ("tensor.insert_slice", "tensor.insert")  # operand 1: the tensor written into


@dataclass(frozen=True)
class DimCheck:
    """One dim's check: whether it holds, the value reported when not."""

    dim: int
    ok: Folded
    value: Folded
    size: Folded


def _mixed(op, name: str, operands: list[ir.Value]) -> list[Folded]:
    """The op's static `name` array with its dynamic entries taken in order
    from `operands`."""
    values = iter(operands)
    return [next(values) if ir.ShapedType.is_dynamic_size(s) else s
            for s in ir.DenseI64ArrayAttr(op.attributes[f"static_{name}"])]


def _sizes(fold: Folder, value: ir.Value) -> list[Folded]:
    """The dim sizes of a ranked tensor or memref (tensor.dim / memref.dim when dynamic)."""
    dim = memref.dim if isinstance(value.type, ir.MemRefType) else tensor.dim
    return [fold.to_i64(dim(value, fold.index(d))) if ir.ShapedType.is_dynamic_size(n) else n
            for d, n in enumerate(ir.ShapedType(value.type).shape)]


def _folded(value: Folded) -> Folded:
    """A constant operand as its int (so that its checks fold), any other as it is."""
    if isinstance(value, ir.Value) and _is_constant(value):
        return ir.IntegerAttr(value.owner.attributes["value"]).value
    return value


def _is(x: Folded, k: int) -> bool:
    """Statically `k`."""
    return not isinstance(x, ir.Value) and x == k


def slice_checks(fold: Folder, offsets, sizes, strides, dims) -> list[DimCheck]:
    """Each dim's check of a slice (module docstring), as i64; those that
    fold to True left out. The span is checked without overflow: with o
    inside and stride t != 0, `(s-1)*|t| <= room` as `s-1 <= room / |t|`,
    room the indices left after o in t's direction."""
    i1, i64 = ir.IntegerType.get_signless(1), ir.IntegerType.get_signless(64)
    checks = []
    for d, (o, s, t, n) in enumerate(zip(offsets, sizes, strides, dims)):
        o, s, t = (fold.to_i64(_folded(x)) for x in (o, s, t))
        starts_inside = in_range(fold, o, n)
        steps = fold.add(s, -1)
        last = fold.add(o, fold.mul(steps, t))
        inside = fold.and_(starts_inside, fold.cmp("sge", s, 1))
        if not (_is(s, 1) or _is(t, 0)):
            backwards = fold.cmp("slt", t, 0)
            room = fold.select(backwards, o, fold.add(fold.add(n, -1), fold.mul(o, -1)), i64)
            still = fold.cmp("eq", t, 0)  # every index is o
            step = fold.select(still, 1, fold.select(backwards, fold.mul(t, -1), t, i64), i64)
            inside = fold.and_(inside, fold.or_(still, fold.cmp("ule", steps, fold.divui(room, step))))
        empty = fold.cmp("eq", s, 0)
        ok = inside if empty is False else fold.select(empty, fold.cmp("ule", o, n), inside, i1)
        if ok is not True:
            checks.append(DimCheck(d, ok, fold.select(starts_inside, last, o, i64), n))
    return checks


def element_checks(fold: Folder, indices, dims, proven=frozenset()) -> list[DimCheck]:
    """Each dim's check of an element's indices, as i64; those that fold to
    True and the `proven` dims (`ranges`) left out."""
    checks = []
    for d, (i, n) in enumerate(zip(indices, dims)):
        if d in proven:
            continue
        i = fold.to_i64(_folded(i))
        ok = in_range(fold, i, n)
        if ok is not True:
            checks.append(DimCheck(d, ok, i, n))
    return checks


def _groups(op) -> tuple[list[ir.Value], list[ir.Value], list[ir.Value]]:
    """A slice op's dynamic offsets, sizes and strides (its last three
    operand segments)."""
    counts = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    operands, position, groups = list(op.operands), sum(counts[:-3]), []
    for count in counts[-3:]:
        groups.append(operands[position:position + count])
        position += count
    return tuple(groups)


def _is_constant(value: ir.Value) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.name == "arith.constant"


def _unproven(op) -> list[int]:
    """The dims of an ELEMENTS op's position not proven inside (`ranges`:
    constants, scf.for induction variables within the dim, ...)."""
    indexed = op.operands[ELEMENTS[op.name]]
    return ranges.unproven_dims(list(op.operands)[ELEMENTS[op.name] + 1:], ir.ShapedType(indexed.type).shape)


def may_be_outside(op) -> bool:
    """Whether `op`'s access is not proven inside: a slice's with a dynamic
    dim of the tensor sliced or a dynamic offset, size or stride (static
    ones are the verifier's); an element's with a dim of its position not
    proven inside (`_unproven`)."""
    if op.name in ELEMENTS:
        return bool(_unproven(op))
    sliced = op.operands[SLICES[op.name]]
    return any(ir.ShapedType.is_dynamic_size(n) for n in ir.RankedTensorType(sliced.type).shape) or any(_groups(op))


def checks_of(op, fold: Folder) -> list[DimCheck]:
    """The checks of one SLICES or ELEMENTS op, built before it."""
    if op.name in SLICES:
        offsets, sizes, strides = _groups(op)
        return slice_checks(fold, _mixed(op, "offsets", offsets), _mixed(op, "sizes", sizes),
                            _mixed(op, "strides", strides), _sizes(fold, op.operands[SLICES[op.name]]))
    indexed = op.operands[ELEMENTS[op.name]]
    indices, unproven = list(op.operands)[ELEMENTS[op.name] + 1:], _unproven(op)
    proven = frozenset(d for d in range(len(indices)) if d not in unproven)
    return element_checks(fold, indices, _sizes(fold, indexed), proven)


def guard_access(op, site: int, fold: Folder) -> None:
    """Run `op` and the rest of its block only when its checks hold; report
    each failing dim otherwise (module docstring). Builds just before `op`."""
    checks = checks_of(op, fold)
    if not checks:
        return
    ok = fold.all_of([c.ok for c in checks])

    def report():
        for c in checks:  # one check: the else branch, where it failed
            CALLBACKS.index_error(fold, site, Checked(len(checks) > 1 and c.ok, c.value, c.size, lambda: c.dim))

    rest, _ = rest_of_block(op)
    ops = [op.operation, *rest]
    if not all(can_carry(v.type) for o in rest for v in o.results):
        ops = [op.operation]  # what follows cannot be skipped: the access alone
    kept = {op.results[0]: op.operands[1]} if op.name in INSERTS else {}  # nothing written: the dest as it was
    run_only_if(fold.value(ok), ops, report, fold.constants, kept)  # False: a constant outside, reported


def _in_linalg_body(op) -> bool:
    parent = op.operation.parent
    while parent is not None and parent.name != "func.func":
        if parent.name.startswith("linalg."):
            return True
        parent = parent.parent
    return False


def accesses(module) -> list[ir.Operation]:
    """The SLICES and ELEMENTS ops of `module` outside linalg bodies that
    may access outside their tensor or memref, in program order."""
    found = []

    def collect(op):
        if (op.name in SLICES or op.name in ELEMENTS) and may_be_outside(op) and not _in_linalg_body(op):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    return found


def _outermost_loop(op):
    """The outermost LOOPS op around `op` in its function, or None."""
    found, parent = None, op.operation.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in LOOPS:
            found = parent
        parent = parent.parent
    return found, parent


def loop_on_a_copy(op) -> None:
    """A loop around the checked `op` that carries a donated argument
    starts from a copy of it (`bufferization.alloc_tensor copy`): a check
    that fails in a later iteration must find the argument as the caller
    gave it, and the result is copied into it only when no error was
    reported (runtime_abi, Donations)."""
    loop, function = _outermost_loop(op)
    if loop is None or function is None:
        return
    donated = donated_arguments(function)
    arguments = list(function.regions[0].blocks[0].arguments)
    for k, operand in enumerate(loop.operands):
        if any(operand == arguments[a] for a in donated if a < len(arguments)):
            with ir.InsertionPoint(loop), loop.location:
                loop.operands[k] = bufferization.AllocTensorOp(operand.type, [], copy=operand).result


def check_slices(module) -> None:
    """Guard every access of `module` whose bounds are not static (module
    docstring); each checked op's location an error site."""
    checked = accesses(module)
    for op in checked:
        loop_on_a_copy(op)
    guard_each(module, checked, guard_access)


PASS = PassInfo(
    argument="gmx-check-slices",
    description="Run each tensor slice or element access placed by data (insert_slice, extract_slice, insert, "
    "extract, and the program's own memref.load, memref.store) only inside its tensor or memref; report each "
    "offending dim to the runtime (IndexError) otherwise",
    build=lambda pm, options: add_python_pass(pm, check_slices, PASS),
)
