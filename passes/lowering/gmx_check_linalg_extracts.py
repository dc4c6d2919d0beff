"""`--gmx-check-linalg-extracts`: in checked mode, an element that a
`linalg.generic`'s body reads with `tensor.extract` at a position the data
gives (an unraised gather: torch-mlir's embedding_bag reads
`weight[indices[j], k]` in a reduction) is read only when it lies inside
its tensor; else each offending dim is reported as a checked gather's
bad index is (IndexError: the extract's location, the dim, the value, the
dim's size), and neither the generic nor anything after it in its block
runs (nothing is written, nothing read outside).

A dim of a position needs no check when its range is proven inside the
dim (`ranges`: constants, `linalg.index` of a loop of that size, casts,
arithmetic and clamps of those). The others are checked by a scan per
extract before the generic, over just the loops its position depends on
(so that each bad index is reported once), which recomputes the position
(the body's ops it depends on, cloned; an element read through another
checked extract is read only when inside, else 1). As the gathers' index
checks do: the scan runs in parallel over its first loop, a flag per row,
nothing reported, and-reduced into one flag; only when that is false the
same scan runs again with every loop a reduction (sequential, on the
caller's thread: the runtime's reports must come from there), reporting
each bad index in row-major order. The generic and the rest of its block
run only if every flag holds (`run_only_if`, as gmx-check-slices does); a
loop around it that carries a donated argument starts from a copy
(`loop_on_a_copy`).

Before (embedding_bag, sum; names shortened):

    %r = linalg.generic {maps [(d0,d1,d2) -> (d1), ... -> (d0, d2)],
                         iterators [parallel, reduction, parallel]}
        ins(%indices : tensor<6xi64>) outs(%init : tensor<3x8xf32>) {
    ^bb0(%i: i64, %out: f32):
      %p = arith.index_cast %i : i64 to index
      %k = linalg.index 2 : index
      %w = tensor.extract %weight[%p, %k] : tensor<100x8xf32>
      ...
    }

After (dim 1 of the position is `linalg.index 2`, in 0..7 of 8: no check):

    %rows = linalg.generic {maps [(d0) -> (d0), (d0) -> (d0)], iterators [parallel]}
        ins(%indices : tensor<6xi64>) outs(%true6 : tensor<6xi1>) {
    ^bb0(%i: i64, %acc: i1):
      %p = arith.index_cast %i : i64 to index
      %p64 = arith.index_cast %p : index to i64
      %ok = arith.cmpi ult, %p64, %c100 : i64
      %a = arith.andi %acc, %ok : i1
      linalg.yield %a : i1
    }
    %all = linalg.generic {... iterators [reduction]} ins(%rows) outs(%true : tensor<i1>) {andi}
    %ok = tensor.extract %all[] : tensor<i1>
    scf.if %not_ok {                        // cold: the same scan, reporting
      linalg.generic {maps [(d0) -> (d0), (d0) -> ()], iterators [reduction]} ins(%indices) ... {
        ...
        scf.if %bad { func.call @gmx_index_error(%site, %c0, %p64, %c100) }
      }
    }
    %r2 = scf.if %ok -> (tensor<3x8xf32>) {
      %r = linalg.generic ...              // as it was, and the rest of the block
      scf.yield %r : tensor<3x8xf32>
    } else {
      scf.yield %placeholder : tensor<3x8xf32>
    }

Only extracts directly in a generic's body are checked, whose positions
depend on its inputs' elements, `linalg.index` and values from outside
(not on its outputs' elements, nor on ops with regions): such a position
is a located error in checked mode (`unscannable`), never read
unchecked. Run it on tensors before gmx ops are lowered (their own
extracts are in bounds by construction) and before bufferization.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmx.dialect.mlir import arith, ir, linalg, scf, tensor

from ..registry import PassInfo, Refused, add_python_pass
from .folding import Constants, Folded, Folder
from .gmx_check_slices import loop_on_a_copy
from .gmx_report_asserts import can_carry, rest_of_block, run_only_if
from .index_checks import in_range
from .ir_helpers import and_reduction, empty_generic, tensor_dim, true_flag, true_flags
from . import ranges
from .reporters import CALLBACKS, Checked
from .runtime_abi import number_error_sites

GENERIC = "linalg.generic"
EXTRACT = "tensor.extract"


def _maps(generic) -> list[ir.AffineMap]:
    return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(generic.attributes["indexing_maps"])]


def _dims_of(expr: ir.AffineExpr) -> set[int]:
    """The loop dims an affine expression reads."""
    if isinstance(expr, ir.AffineDimExpr):
        return {expr.position}
    if isinstance(expr, ir.AffineBinaryExpr):
        return _dims_of(expr.lhs) | _dims_of(expr.rhs)
    return set()


def _loop_dim(generic, d: int) -> tuple[ir.Value, int] | None:
    """An operand of `generic` and the dim of it whose size is loop `d`'s."""
    for operand, m in zip(generic.operands, _maps(generic)):
        for position, expr in enumerate(m.results):
            if isinstance(expr, ir.AffineDimExpr) and expr.position == d:
                return operand, position
    return None


def loop_size(generic, d: int) -> int | None:
    """The static size of loop `d` of `generic`, None when dynamic or unknown."""
    if generic is None or generic.name != GENERIC:
        return None
    found = _loop_dim(generic, d)
    if found is None:
        return None
    n = ir.RankedTensorType(found[0].type).shape[found[1]]
    return None if ir.ShapedType.is_dynamic_size(n) else n


def unproven_dims(extract) -> list[int]:
    """The dims of `extract`'s position whose range is not proven inside its tensor."""
    shape = ir.RankedTensorType(extract.operands[0].type).shape
    return ranges.unproven_dims(list(extract.operands)[1:], shape, loop_size)


@dataclass
class Slice:
    """What the positions of a generic's checked extracts depend on in its body."""

    ops: list  # the body's ops to clone, in body order
    inputs: list[int]  # the block arguments used (operand numbers)
    loops: set[int]  # the loop dims read through linalg.index
    scannable: bool = True


def position_slice(generic, extracts: list[tuple]) -> Slice:
    """The body ops (in order), inputs and loops the checked dims of
    `extracts` ((extract, dims) pairs) depend on."""
    body = generic.regions[0].blocks[0]
    inputs_count = len(generic.opview.inputs)
    seen, found = set(), Slice([], [], set())
    stack = [e.operands[1 + d] for e, dims in extracts for d in dims]
    while stack:
        value = stack.pop()
        owner = value.owner
        if isinstance(owner, ir.Block):
            if owner == body:
                if value.arg_number >= inputs_count:
                    found.scannable = False  # an output's element
                elif value.arg_number not in found.inputs:
                    found.inputs.append(value.arg_number)
            continue
        owner = owner.operation
        if owner.block != body or owner in seen:
            continue  # defined outside the generic (or nested: not here)
        seen.add(owner)
        if owner.name == "linalg.index":
            found.loops.add(ir.IntegerAttr(owner.attributes["dim"]).value)
        if len(owner.regions) or not owner.name.startswith(_CLONABLE_PREFIXES):
            found.scannable = False
        stack.extend(owner.operands)
    order = {op: k for k, op in enumerate(o.operation for o in body.operations)}
    found.ops = sorted(seen, key=lambda op: order[op])
    found.inputs.sort()
    return found


# The ops a slice may clone into the scan: pure arithmetic, element reads, loop indices.
_CLONABLE_PREFIXES = ("arith.", "math.", "tensor.extract", "linalg.index")


def checked_extracts(generic) -> list[tuple]:
    """(extract, its unproven dims) for each extract directly in `generic`'s body that needs a check."""
    found = []
    for op in generic.regions[0].blocks[0].operations:
        if op.name == EXTRACT:
            dims = unproven_dims(op)
            if dims:
                found.append((op.operation, dims))
    return found


def nested_extracts(generic) -> list:
    """Extracts deeper in `generic`'s body (in an scf.if there) that need a check."""
    found = []

    def visit(op):
        if op.name == EXTRACT and op.operation.parent != generic and unproven_dims(op):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    for op in generic.regions[0].blocks[0].operations:
        if len(op.regions):
            op.operation.walk(visit)
    return found


class Scan:
    """The scan of one checked extract of a generic (module docstring),
    built just before the generic: over the loops its position depends
    on, so that each bad index is reported once."""

    def __init__(self, generic, target: tuple, checks: dict, site: int, fold: Folder):
        self.generic, self.target, self.checks, self.site, self.fold = generic, target, checks, site, fold
        self.slice = position_slice(generic, [target])
        self.loops = sorted(self._loops())
        i64 = ir.IntegerType.get_signless(64)
        extract, dims = target
        # The checked dims' sizes, as i64, built before the scan.
        self.sizes = {d: fold.value(fold.to_i64(tensor_dim(fold, extract.operands[0], d)), i64) for d in dims}

    def _loops(self) -> set[int]:
        maps = _maps(self.generic)
        loops = set(self.slice.loops)
        for k in self.slice.inputs:
            for expr in maps[k].results:
                loops |= _dims_of(expr)
        return loops

    def _embedding(self) -> ir.AffineMap:
        """The map from the scan's loops to the generic's (a loop not scanned at 0)."""
        exprs = [ir.AffineDimExpr.get(self.loops.index(d)) if d in self.loops else ir.AffineConstantExpr.get(0)
                 for d in range(_maps(self.generic)[0].n_dims)]
        return ir.AffineMap.get(len(self.loops), 0, exprs)

    def build(self) -> ir.Value:
        """The scan; returns the flag (i1) that every position it checks is
        inside. A flag per row of its first loop, in parallel, nothing
        reported; only when one is false, the reporting scan, sequential
        (on the caller's thread: the runtime's reports come from there)."""
        fold = self.fold
        inputs, maps = self._operands()
        if not self.loops:
            return tensor.extract(self._scan(inputs, maps, report=True), [])
        flags = self._scan(inputs, maps, report=False)
        ok = tensor.extract(and_reduction(flags, true_flag(fold), lambda acc, v: fold.and_(acc, v), fold), [])
        cold = scf.IfOp(fold.value(fold.not_(ok)))
        with ir.InsertionPoint(cold.then_block):
            self._scan(inputs, maps, report=True)
            scf.YieldOp([])
        return ok

    def _operands(self) -> tuple[list[ir.Value], list[ir.AffineMap]]:
        """The scan's inputs and their maps: the generic's inputs the
        positions read, and an empty tensor for each loop that only
        linalg.index reads (of its size)."""
        fold, maps = self.fold, _maps(self.generic)
        embedding = self._embedding()
        inputs = [self.generic.operands[k] for k in self.slice.inputs]
        scan_maps = [ir.AffineMap.get(len(self.loops), 0, [e.compose(embedding) for e in maps[k].results])
                     for k in self.slice.inputs]
        covered = {e.position for m in scan_maps for e in m.results if isinstance(e, ir.AffineDimExpr)}
        for d, loop in enumerate(self.loops):
            if d not in covered:
                operand, dim = _loop_dim(self.generic, loop)
                inputs.append(tensor.empty([tensor_dim(fold, operand, dim)], ir.IntegerType.get_signless(1)))
                scan_maps.append(ir.AffineMap.get(len(self.loops), 0, [ir.AffineDimExpr.get(d)]))
                covered.add(d)
        return inputs, scan_maps

    def _scan(self, inputs: list[ir.Value], maps: list[ir.AffineMap], report: bool) -> ir.Value:
        """One scan: reporting, all its loops reductions into one flag
        (rank 0); else its first loop parallel, a flag per row (rank 1)."""
        fold, n = self.fold, len(self.loops)
        if report:
            init, out, iterators = true_flag(fold), ir.AffineMap.get(n, 0, []), ["reduction"] * n
        else:
            k, dim = next((k, r) for k, m in enumerate(maps) for r, e in enumerate(m.results)
                          if isinstance(e, ir.AffineDimExpr) and e.position == 0)
            init = true_flags(fold, [tensor_dim(fold, inputs[k], dim)])
            out, iterators = ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(0)]), ["parallel"] + ["reduction"] * (n - 1)
        scan = empty_generic(inputs, [init], [*maps, out], iterators)
        block = scan.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            linalg.YieldOp([self._body(block, report)])
        return scan.results[0]

    def _body(self, block: ir.Block, report: bool) -> ir.Value:
        """The scan's body: the slice cloned (another checked extract read
        only when inside, else 1, unreported: its own scan reports it), the
        target's dims checked (and reported if `report`); returns acc and the check."""
        body = self.generic.regions[0].blocks[0]
        mapped = {body.arguments[k]: block.arguments[n] for n, k in enumerate(self.slice.inputs)}
        for op in self.slice.ops:
            if op.name == "linalg.index":
                mapped[op.result] = linalg.IndexOp(self.loops.index(ir.IntegerAttr(op.attributes["dim"]).value)).result
                continue
            operands = [mapped.get(v, v) for v in op.operands]
            if op in self.checks:
                mapped[op.result] = _read_if(_inside(operands, self.checks[op], self.fold), operands, op, self.fold)
                continue
            clone = op.clone()
            for k, v in enumerate(operands):
                clone.operands[k] = v
            for old, new in zip(op.results, clone.results):
                mapped[old] = new
        extract, dims = self.target
        ok = self._check([mapped.get(v, v) for v in extract.operands], dims, report)
        return self.fold.value(self.fold.and_(block.arguments[len(block.arguments) - 1], ok))

    def _check(self, operands: list, dims: list[int], report: bool) -> Folded:
        """Whether the target's position (its `operands`, mapped into the
        scan) is inside on `dims`; a report per bad dim if `report`."""
        fold, i64 = self.fold, ir.IntegerType.get_signless(64)
        oks = []
        for d in dims:
            value = fold.value(fold.to_i64(operands[1 + d]), i64)
            size = self.sizes[d]
            ok = in_range(fold, value, size)
            if report:
                CALLBACKS.index_error(fold, self.site, Checked(ok, value, size, lambda: d))
            oks.append(ok)
        return fold.all_of(oks)


def _inside(operands: list, dims: list[int], fold: Folder) -> Folded:
    """Whether a position (an extract's operands) is inside its tensor on `dims`."""
    return fold.all_of([in_range(fold, fold.to_i64(operands[1 + d]), tensor_dim(fold, operands[0], d)) for d in dims])


def _read_if(ok: Folded, operands: list, op, fold: Folder) -> ir.Value:
    """The element `op` reads at `operands`, read only when `ok`; else 1
    (a divisor the cloned arithmetic may use: never a division by 0)."""
    element = op.result.type
    branch = scf.IfOp(fold.value(ok), [element], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        scf.YieldOp([tensor.extract(operands[0], operands[1:])])
    with ir.InsertionPoint(branch.else_block):
        one = arith.constant(element, 1.0) if isinstance(element, ir.FloatType) else fold.constants.get(1, element)
        scf.YieldOp([one])
    return branch.results[0]


def guard_generic(generic, extracts: list[tuple], sites: list[int], fold: Folder) -> None:
    """Scan `generic`'s checked positions before it, one scan per extract;
    it and the rest of its block run only when all are inside (module
    docstring)."""
    loop_on_a_copy(generic)
    checks = dict(extracts)
    ok = fold.all_of([Scan(generic, target, checks, site, fold).build() for target, site in zip(extracts, sites)])
    rest, _ = rest_of_block(generic)
    ops = [generic, *rest]
    if not all(can_carry(v.type) for o in rest for v in o.results):
        ops = [generic]
    run_only_if(fold.value(ok), ops, lambda: None, fold.constants)


def _generics(module) -> list:
    found = []

    def collect(op):
        if op.name == GENERIC and all(isinstance(v.type, ir.RankedTensorType) for v in op.operands):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    return found


def checked_reads(module) -> list:
    """Every tensor.extract of `module` this pass would check or refuse
    (`checked_extracts`, `nested_extracts`), in program order: the IREE
    backend, which cannot run the scans, refuses these in checked mode."""
    found = []
    for generic in _generics(module):
        found += [extract for extract, _ in checked_extracts(generic)] + nested_extracts(generic)
    return found


def unscannable(generic, extracts: list[tuple]) -> str | None:
    """Why `generic`'s checked extracts cannot be scanned, or None."""
    if nested_extracts(generic):
        return "a tensor.extract nested in a region of a linalg.generic's body"
    if extracts and not position_slice(generic, extracts).scannable:
        return "a tensor.extract whose position depends on an output's element or an op with regions"
    return None


def check_linalg_extracts(module) -> None:
    """Guard every generic of `module` whose body reads at unproven positions (module docstring)."""
    work = [(g, checked_extracts(g)) for g in _generics(module)]
    refused = [(g, why) for g, e in work if (why := unscannable(g, e))]
    for g, why in refused:
        g.location.emit_error(f"{why} cannot be bounds-checked (lower with checked=false to run it unchecked)")
    if refused:
        raise Refused(f"{len(refused)} linalg.generic(s) refused")
    constants: dict[ir.Block, Constants] = {}
    guarded = False
    for generic, extracts in work:
        if not extracts:
            continue
        numbers = number_error_sites(module, [e for e, _ in extracts])
        entry = Constants.entry_block(generic)
        fold = Folder(constants.setdefault(entry, Constants(entry)))
        with ir.InsertionPoint(generic), generic.location:
            guard_generic(generic, extracts, numbers, fold)
        guarded = True
    if guarded:
        CALLBACKS.declare(module)


PASS = PassInfo(
    argument="gmx-check-linalg-extracts",
    description="Run each linalg.generic whose body reads elements at positions the data gives (tensor.extract) "
    "only when every such position is inside its tensor; report each bad one to the runtime (IndexError) otherwise",
    build=lambda pm, options: add_python_pass(pm, check_linalg_extracts, PASS),
)
