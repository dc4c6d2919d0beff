"""`--gmx-report-asserts`: a failing `cf.assert` reports its message and
location to the runtime (which raises ValueError) and skips the rest of
its block, instead of aborting the process (upstream lowers cf.assert to
a call of `abort`, which kills Python: torch-mlir's linalg-on-tensors
export asserts that dynamic sizes broadcast, and --gmx-check-shapes
asserts that they agree).

    cf.assert %ok, "mismatched size for broadcast"
    %r = linalg.generic ... -> tensor<?xf32>
    return %r : tensor<?xf32>

becomes

    %r2 = scf.if %ok -> (tensor<?xf32>) {
      %r = linalg.generic ... -> tensor<?xf32>
      scf.yield %r : tensor<?xf32>
    } else {
      func.call @gmx_shape_error(%site, %c-3, %message, %c0) : (i64, i64, i64, i64) -> ()
      %e = tensor.empty(%c0_index) : tensor<?xf32>
      scf.yield %e : tensor<?xf32>
    }
    return %r2 : tensor<?xf32>

Nothing after a failed assert runs (it may read out of bounds: that is
what the assert guarded); the values the block's terminator takes from
what was skipped are placeholders (empty tensors with 0 for each dynamic
dim, zeros), never seen: the runtime raises. The assert's location joins
`gmx.error_sites`, its message `gmx.assert_messages` (`runtime_abi`,
SHAPE_ERROR_ASSERT); upstream's runtime-verification messages are reduced
to their reason (`dimension #0 of input/output operand #1 is incompatible
with inferred dimension size`). A value skipped but used outside the
block (a multi-block function) cannot be guarded: that assert only
reports, and the block goes on.
"""

from __future__ import annotations

from gmx.dialect.locations import location_text
from gmx.dialect.mlir import arith, ir, scf, tensor

from ..registry import PassInfo, add_python_pass
from ..walking import ops_named
from .folding import Constants, Folder
from .reporters import CALLBACKS
from .runtime_abi import (
    SHAPE_ERROR_ASSERT,
    assert_messages,
    error_sites,
    set_assert_messages,
    set_error_sites,
)

ASSERT = "cf.assert"
VERIFICATION_PREFIX = "ERROR: Runtime op verification failed"


def assert_message(text: str) -> str:
    """What a failed assert reports: upstream's runtime-verification message
    (`ERROR: Runtime op verification failed\\n[op\\n]^ reason\\nLocation: ...`)
    reduced to its reason, any other as it is."""
    if not text.startswith(VERIFICATION_PREFIX):
        return text
    reasons = [line[2:] for line in text.splitlines() if line.startswith("^ ")]
    return reasons[0] if reasons else text


def _placeholder(t: ir.Type, constants: Constants) -> ir.Value:
    """A value of type `t` for a skipped result (never read)."""
    if isinstance(t, ir.RankedTensorType):
        sizes = [constants.get(0, ir.IndexType.get()) if ir.ShapedType.is_dynamic_size(d) else d for d in t.shape]
        return tensor.empty(sizes, t.element_type)
    if isinstance(t, ir.FloatType):
        return arith.constant(t, 0.0)
    return constants.get(0, t)  # integers and index


def _report(site: int, number: int, constants: Constants) -> None:
    """The failed assert's report (it failed: the branch is the caller's)."""
    CALLBACKS.shape_error(Folder(constants), site, False, SHAPE_ERROR_ASSERT, number, 0)


def rest_of_block(op) -> tuple[list, ir.Operation]:
    """The ops after `op` in its block but the terminator, and the terminator."""
    ops = list(op.block.operations)
    position = next(i for i, o in enumerate(ops) if o.operation == op)
    return [o.operation for o in ops[position + 1 : -1]], ops[-1].operation


def _ancestor_in(op, block: ir.Block):
    """`op` or the op enclosing it that is in `block`, None if none is."""
    op = op.operation
    while op is not None and op.block != block:
        parent = op.parent
        op = None if parent is None or parent.name == "builtin.module" else parent.operation
    return op


def run_only_if(ok: ir.Value, ops: list, report, constants: Constants, unchanged=None) -> None:
    """Move `ops` (consecutive ops of one block, not its terminator) into the
    then-branch of an `scf.if %ok` built where the first was; the else
    branch calls `report()` and yields a placeholder for each result of
    `ops` used elsewhere, and those uses take the scf.if's results. Every
    such result must be a tensor, an integer, an index or a float
    (`can_carry`). `unchanged` maps a result to what the else branch yields
    for it instead (the tensor an insert writes into: in place on both
    branches)."""
    unchanged = unchanged or {}
    moved = set(ops)
    block = ops[0].block
    carried = [v for o in ops for v in o.results
               if any(_ancestor_in(u.owner, block) not in moved for u in v.uses)]
    with ir.InsertionPoint(ops[0]), ops[0].location:
        branch = scf.IfOp(ok, [v.type for v in carried], has_else=True)
        for value, result in zip(carried, branch.results):
            for use in list(value.uses):
                if _ancestor_in(use.owner, block) not in moved:
                    use.owner.operands[use.operand_number] = result
        with ir.InsertionPoint(branch.then_block):
            yielded = scf.YieldOp(carried)
        with ir.InsertionPoint(branch.else_block):
            report()
            scf.YieldOp([unchanged.get(v) or _placeholder(v.type, constants) for v in carried])
    for o in ops:
        o.move_before(yielded)


def can_carry(t: ir.Type) -> bool:
    """Whether run_only_if has a placeholder for a value of type `t`."""
    return isinstance(t, (ir.RankedTensorType, ir.FloatType, ir.IntegerType, ir.IndexType))


def guard(op, site: int, number: int, constants: Constants) -> None:
    """Replace the cf.assert `op` by an scf.if running the rest of its
    block when it holds, reporting `site` and `number` when not (module
    docstring)."""
    rest, terminator = rest_of_block(op)
    block = op.block
    escaping = [
        v for o in rest for v in o.results
        if any(_ancestor_in(u.owner, block) not in (*rest, terminator) for u in v.uses)
    ]
    ok = op.operands[0]
    if escaping or not rest:  # used beyond the terminator: report only
        with ir.InsertionPoint(op), op.location:
            branch = scf.IfOp(arith.xori(ok, constants.get(1, ok.type)))
            with ir.InsertionPoint(branch.then_block):
                _report(site, number, constants)
                scf.YieldOp([])
    else:
        run_only_if(ok, rest, lambda: _report(site, number, constants), constants)
    op.erase()


def report_asserts(module) -> None:
    """Guard every cf.assert of `module`, in program order (module docstring)."""
    asserts = ops_named(module, ASSERT)
    if not asserts:
        return
    sites, messages = error_sites(module), assert_messages(module)
    constants: dict[ir.Block, Constants] = {}  # per function: its entry block's
    for op in asserts:
        sites.append(location_text(op.location))
        messages.append(assert_message(ir.StringAttr(op.attributes["msg"]).value))
        entry = Constants.entry_block(op)
        guard(op, len(sites) - 1, len(messages) - 1, constants.setdefault(entry, Constants(entry)))
    set_error_sites(module, sites)
    set_assert_messages(module, messages)
    CALLBACKS.declare(module)


PASS = PassInfo(
    argument="gmx-report-asserts",
    description="A failing cf.assert reports its message and location to the runtime (ValueError) and skips "
    "the rest of its block, instead of aborting the process",
    build=lambda pm, options: add_python_pass(pm, report_asserts, PASS),
)
