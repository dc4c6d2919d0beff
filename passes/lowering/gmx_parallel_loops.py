"""`--gmx-parallel-loops`: the loops that run on several threads, chosen.

At the loop level (memrefs, after `convert-linalg-to-parallel-loops`),
parallel loops come from two places: the parallel dims of every linalg op
(`scf.parallel`, possibly several dims), and the loops the gather builder
knows to be parallel but builds on tensors as `scf.for` (the tiles of a
checked gather, the slabs of `x[i, :, j]`), marked with the unit attribute
`gmx.parallel` (PARALLEL_ATTR) and left with no iter_args once bufferized
in place. This pass keeps one level of them: each outermost candidate
whose work is worth the threads (`runs_in_parallel`) becomes a 1-D
`scf.parallel` over its first dim, which `convert-scf-to-openmp` turns into
an OpenMP region; every other candidate becomes `scf.for` loops:

    scf.parallel (%r, %c) = (%c0, %c0) to (%c16384, %c256) step (%c1, %c1) {
      %v = memref.load %x[%r, %c] ...
    }

becomes

    scf.parallel (%r) = (%c0) to (%c16384) step (%c1) {
      scf.for %c = %c0 to %c256 step %c1 {
        %v = memref.load %x[%r, %c] ...
      }
    }

and a loop of a few iterations, or one nested in a kept parallel loop,
becomes plain `scf.for` loops. A kept loop whose size only the run time
knows runs in parallel only when it is worth it then:

    scf.if %enough {                   (its iterations >= the threshold)
      scf.parallel (%r) = ... { ... }
    } else {
      scf.for %r = ... { ... }
    } {gmx.parallel_guard}
 A loop that calls a function (the reporting
scans' callbacks) stays sequential, so that every report is made on the
caller's thread, in row-major order. Loops with reductions (`scf.reduce`
with operands) are left alone.
"""

from __future__ import annotations

from gmx.dialect.mlir import arith, ir, scf

from ..registry import PassInfo, add_python_pass
from ..views import defining_op, ops_named
from .gmx_parallel_bodies import defined_inside
from .parallel_work import PARALLEL_MIN_ITERATIONS, runs_in_parallel

# Marks an scf.for whose iterations are independent (gather_builder).
PARALLEL_ATTR = "gmx.parallel"
# Marks the scf.if that runs a loop of run-time size in parallel or not.
GUARDED_ATTR = "gmx.parallel_guard"
_LOOPS = ("scf.for", "scf.parallel")


def _constant(value: ir.Value) -> int | None:
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    return ir.IntegerAttr(op.attributes["value"]).value


def _bounds(loop) -> list[tuple[ir.Value, ir.Value, ir.Value]]:
    """(lower, upper, step) of each dim of an scf.for or scf.parallel."""
    if loop.name == "scf.for":
        return [tuple(loop.operands[:3])]
    n = len(loop.regions[0].blocks[0].arguments)
    operands = list(loop.operands)
    return list(zip(operands[:n], operands[n:2 * n], operands[2 * n:3 * n]))


def trip_count(loop) -> int | None:
    """Static iterations of a loop (all its dims), or None."""
    total = 1
    for lower, upper, step in _bounds(loop):
        lo, hi, st = _constant(lower), _constant(upper), _constant(step)
        if None in (lo, hi, st) or st <= 0:
            return None
        total *= max(0, -(-(hi - lo) // st))
    return total


def _iterations(loop) -> int | None:
    """Innermost iterations of the nest under `loop` (its own trip count
    times the largest nest in its body), None when one is dynamic."""
    own = trip_count(loop)
    inner = [_iterations(op) for op in _nested_loops(loop)]
    if own is None or None in inner:
        return None
    return own * max([1, *inner])


def _nested_loops(loop) -> list:
    """The loops directly nested in `loop`'s body (under any op but a loop)."""
    found = []

    def visit(block):
        for op in block.operations:
            if op.name in _LOOPS:
                found.append(op)
                continue
            for region in op.regions:
                for inner in region.blocks:
                    visit(inner)

    visit(loop.regions[0].blocks[0])
    return found


def _calls(loop) -> bool:
    """Whether `loop` calls a function: a report is made on the caller's
    thread."""
    return any(ops_named(loop, name) for name in ("func.call", "llvm.call"))


def _candidate(op) -> bool:
    """An scf.parallel without reductions, or a marked scf.for without iter_args."""
    if op.name == "scf.parallel":
        return not op.results
    return op.name == "scf.for" and PARALLEL_ATTR in op.attributes and not op.results


def _ancestors(op):
    parent = op.parent
    while parent is not None and parent.name != "builtin.module":
        yield parent
        parent = parent.parent


def choose_parallel(module) -> list:
    """The candidates kept parallel: outermost (no kept ancestor), worth
    it, calling nothing."""
    kept = []
    for op in _preorder(module, _candidate):
        if any(a.operation in kept for a in _ancestors(op)):
            continue
        if runs_in_parallel(_first_dim_trip_count(op), _iterations(op)) and not _calls(op):
            kept.append(op.operation)
    return kept


def _first_dim_trip_count(loop) -> int | None:
    lower, upper, step = (_constant(v) for v in _bounds(loop)[0])
    if None in (lower, upper, step) or step <= 0:
        return None
    return max(0, -(-(upper - lower) // step))


def _preorder(module, keep) -> list:
    """Ops for which `keep` holds, outer before inner."""
    found = []

    def collect(op):
        if keep(op):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.walk(collect, ir.WalkOrder.PRE_ORDER)
    return found


def _rebuild(loop, parallel_first: bool) -> None:
    """Replace `loop` by a 1-D scf.parallel over its first dim
    (`parallel_first`) or an scf.for, with scf.for loops over its other
    dims inside, its body moved into the innermost."""
    body = loop.regions[0].blocks[0]
    bounds = _bounds(loop)
    attributes = {}
    if "loop_annotation" in loop.attributes:
        attributes["loop_annotation"] = loop.attributes["loop_annotation"]
    with ir.InsertionPoint(loop), loop.location:
        ivs, ip = [], None
        for k, (lower, upper, step) in enumerate(bounds):
            with ip or ir.InsertionPoint(loop):
                if k == 0 and parallel_first:
                    outer = scf.ParallelOp([], [lower], [upper], [step], [])
                    block = outer.regions[0].blocks.append(ir.IndexType.get())
                    with ir.InsertionPoint(block):
                        scf.ReduceOp([], 0)
                    ivs.append(block.arguments[0])
                    ip = ir.InsertionPoint.at_block_terminator(block)
                else:
                    inner = scf.ForOp(lower, upper, step)
                    for name, value in attributes.items():
                        inner.operation.attributes[name] = value
                    with ir.InsertionPoint(inner.body):
                        scf.YieldOp([])
                    ivs.append(inner.induction_variable)
                    ip = ir.InsertionPoint.at_block_terminator(inner.body)
    terminator = ip.ref_operation
    for old, new in zip(body.arguments, ivs):
        old.replace_all_uses_with(new)
    for op in list(body.operations)[:-1]:
        op.operation.move_before(terminator)
    loop.erase()


def _trip_value(lower: ir.Value, upper: ir.Value, step: ir.Value) -> int | ir.Value:
    """ceil((upper - lower) / step): an int where the bounds are constants,
    else an index value emitted at the insertion point (folded: no
    subtraction of 0, no division by 1)."""
    lo, hi, st = _constant(lower), _constant(upper), _constant(step)
    if None not in (lo, hi, st):
        return max(0, -(-(hi - lo) // st))
    span = upper if lo == 0 else arith.subi(upper, lower)
    return span if st == 1 else arith.ceildivsi(span, step)


def _run_time_iterations(loop) -> tuple[int, ir.Value | None]:
    """The innermost iterations of `loop`'s nest as far as the run time can
    tell before it (its own trip count, times that of the one loop nested in
    it, and so on while their bounds are known outside `loop`), as a static
    factor and the product of the run-time ones (None: there are none)."""
    static, dynamic = 1, None

    def times(trip):
        nonlocal static, dynamic
        if isinstance(trip, int):
            static *= trip
        else:
            dynamic = trip if dynamic is None else arith.muli(dynamic, trip)

    times(_trip_value(*_bounds(loop)[0]))
    nested = _nested_loops(loop)
    while len(nested) == 1:
        inner = nested[0]
        bounds = _bounds(inner)
        if any(defined_inside(v, loop) for b in bounds for v in b):
            break
        for b in bounds:
            times(_trip_value(*b))
        nested = _nested_loops(inner)
    return static, dynamic


def _guard(loop) -> None:
    """A kept 1-D scf.parallel whose work only the run time knows runs in
    parallel when it is worth the threads (`runs_in_parallel` at run time),
    else as the same loop in sequence:

        scf.if %enough { scf.parallel ... } else { scf.for ... }
    """
    with ir.InsertionPoint(loop), loop.location:
        # The run-time factors against the threshold divided by the static
        # ones: one comparison, no multiplication by constants.
        static, dynamic = _run_time_iterations(loop)
        if dynamic is None:  # the sizes that vary are inside the loop: parallel
            return
        minimum = arith.constant(ir.IndexType.get(), -(-PARALLEL_MIN_ITERATIONS // max(static, 1)))
        enough = arith.cmpi(arith.CmpIPredicate.sge, dynamic, minimum)
        branch = scf.IfOp(enough, [], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            then_end = scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            else_end = scf.YieldOp([])
    branch.operation.attributes[GUARDED_ATTR] = ir.UnitAttr.get()
    sequential = loop.clone(ip=ir.InsertionPoint(else_end))
    loop.move_before(then_end)
    _rebuild(sequential, parallel_first=False)


def parallel_loops_pass(module) -> None:
    """Keep the chosen loops parallel, make the other candidates sequential,
    guard those of run-time size (see the module docstring)."""
    kept = choose_parallel(module)
    # Inner before outer: a rebuilt loop moves the loops in its body.
    for op in reversed(_preorder(module, _candidate)):
        if op.name == "scf.for":
            if op in kept:
                _rebuild(op, parallel_first=True)
            else:
                del op.attributes[PARALLEL_ATTR]
        elif op not in kept or len(op.regions[0].blocks[0].arguments) > 1:
            _rebuild(op, parallel_first=op in kept)
    for loop in ops_named(module, "scf.parallel"):
        guarded = loop.parent is not None and loop.parent.name == "scf.if" and GUARDED_ATTR in loop.parent.attributes
        if not guarded and _iterations(loop) is None:
            _guard(loop)


def _build(pm, options) -> None:
    add_python_pass(pm, parallel_loops_pass, PASS)


PASS = PassInfo(
    argument="gmx-parallel-loops",
    description="Keep the outermost parallel loops worth the threads as 1-D scf.parallel, the others as scf.for (loop level)",
    build=_build,
)
