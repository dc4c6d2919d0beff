"""`--gmx-destination-passing`: public functions write their results into
buffers the caller passes, instead of returning buffers they allocated.

A function returning statically shaped tensors

    func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
      %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : ... -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }

takes one writable tensor per result after its arguments, and returns each
result materialized in its destination:

    func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>,
                    %out: tensor<2x3xf32> {bufferization.writable = true}) -> tensor<2x3xf32>
        attributes {gmx.destinations} {
      %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : ... -> tensor<2x3xf32>
      %1 = bufferization.materialize_in_destination %0 in %out : (...) -> tensor<2x3xf32>
      return %1 : tensor<2x3xf32>
    }

Then, in `--gmx-lower-to-llvm{destinations}`: each `tensor.empty` gets one
copy per use (`one_empty_per_use`: a checked gather starts both of its
branches from one), upstream's `eliminate-empty-tensors` makes every one
that reaches a destination the destination, bufferization writes the
caller's buffer in place, and `drop_destination_results` drops the
results, which are then the destination arguments themselves (upstream's
`drop-equivalent-buffer-results` does that for private functions only;
left, the deallocation pipeline would copy each into a new buffer). A
call allocates, returns and frees nothing, and costs no page fault when
the caller's buffer is warm.

A result that a donated argument takes (`runtime_abi`'s `gmx.donations`,
its argument writable) gets no destination argument and is not
materialized: one-shot bufferization updates the donated buffer in place
where the program does (an `insert_slice` into it, a `linalg.generic` with
it as `outs`); anything else (a gather's result) is computed in a buffer
of its own and `drop_destination_results` copies it into the donated
buffer, only when no error was reported (`@gmx_reported`), so that an
IndexError leaves the donated argument as it was.

Left alone: functions rewritten already, private functions, declarations, functions another function
calls (their call sites would need rewriting), and functions with an
argument or a result that is not a ranked tensor of static shape: the
caller could not size a dynamic result's buffer before the call, and with
a dynamic argument a static result may be a `tensor.cast` that the
arguments contradict, which only a returned result's descriptor shows
(the runtime checks it there). `gmx.destinations` (`runtime_abi`) marks the
functions rewritten: after the lowering, they take a memref per result
after their arguments and return nothing.
"""

from __future__ import annotations

from gmx.dialect.mlir import arith, bufferization, func, ir, memref, scf

from ..registry import PassFailed, PassInfo, add_python_pass
from ..views import buffer_root, emit_view, static_shape_of, strip_views
from .entry_points import is_entry_point
from .runtime_abi import DESTINATIONS_ATTR, NOT_DONATED, REPORTED_FN, declare_reported, donations


def _static_tensor(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType) and t.has_static_shape


def _called_functions(module) -> set[str]:
    """Names of the functions some op refers to (calls, mostly)."""
    names: set[str] = set()

    def collect(op):
        if op.name == "func.call":
            names.add(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    return names


def rewritable(function, called: set[str]) -> bool:
    """Whether `function` is rewritten (see the module docstring)."""
    if function.name != "func.func" or not function.regions[0].blocks or not is_entry_point(function):
        return False
    if DESTINATIONS_ATTR in function.attributes:
        return False  # rewritten already
    if ir.StringAttr(function.attributes["sym_name"]).value in called:
        return False
    ftype = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    return bool(ftype.results) and all(_static_tensor(t) for t in (*ftype.inputs, *ftype.results))


def _materialize(value: ir.Value, out: ir.Value) -> ir.Value:
    """`value` materialized in `out`; when `value` is a static view of a
    computed tensor (a gather's unit dim collapsed away), that tensor is
    materialized in the same view of `out`, and the result viewed back:
    `eliminate-empty-tensors` does not look through views, and the result
    would be computed elsewhere and copied. The view of `out` comes first in
    the function, so that it dominates what writes it."""
    source, _ = strip_views(value)
    if source == value or isinstance(source, ir.BlockArgument):
        return bufferization.MaterializeInDestinationOp(out.type, value, out).results[0]
    with ir.InsertionPoint.at_block_begin(out.owner):
        destination = emit_view(out, static_shape_of(source))
    written = bufferization.MaterializeInDestinationOp(destination.type, source, destination).results[0]
    return emit_view(written, static_shape_of(value))


def _check_donations(function, ftype: ir.FunctionType) -> tuple[int, ...]:
    """The function's donations (NOT_DONATED per result when none); a
    located error (PassFailed) when one names no argument of its result's
    type."""
    pairs = donations(function) or (NOT_DONATED,) * len(ftype.results)
    inputs = list(ftype.inputs)
    taken = [k for k in pairs if k != NOT_DONATED]
    bad = len(pairs) != len(ftype.results) or len(set(taken)) != len(taken) or any(
        k != NOT_DONATED and not (0 <= k < len(inputs) and inputs[k] == t) for k, t in zip(pairs, ftype.results)
    )
    if bad:
        function.location.emit_error(
            "'gmx.donations' must name, for each result, an argument of its type (each at most once) or -1"
        )
        raise PassFailed("bad gmx.donations")
    return pairs


def destination_arguments(function, results: int) -> list[ir.Value]:
    """The buffer each of the `results` results of a rewritten function is
    written into: its donated argument, else its own destination (those
    come last, in result order)."""
    arguments = list(function.regions[0].blocks[0].arguments)
    pairs = donations(function) or (NOT_DONATED,) * results
    own = iter(arguments[len(arguments) - pairs.count(NOT_DONATED):])
    return [next(own) if k == NOT_DONATED else arguments[k] for k in pairs]


def _pass_destinations(function) -> None:
    ftype = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    pairs = _check_donations(function, ftype)
    blocks = list(function.regions[0].blocks)
    arguments = list(blocks[0].arguments)
    outs = [blocks[0].add_argument(t, function.location) if k == NOT_DONATED else arguments[k]
            for k, t in zip(pairs, ftype.results)]
    added = [t for k, t in zip(pairs, ftype.results) if k == NOT_DONATED]
    for block in blocks:
        terminator = list(block.operations)[-1]
        if terminator.operation.name != "func.return":
            continue
        with ir.InsertionPoint(terminator), terminator.location:
            func.ReturnOp([value if k != NOT_DONATED else _materialize(value, out)
                           for value, out, k in zip(terminator.operands, outs, pairs)])
        terminator.operation.erase()
    function.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([*ftype.inputs, *added], ftype.results)
    )
    count = len(ftype.inputs)
    old = list(ir.ArrayAttr(function.attributes["arg_attrs"])) if "arg_attrs" in function.attributes else []
    old += [ir.DictAttr.get({})] * (count - len(old))
    writable = ir.DictAttr.get({"bufferization.writable": ir.BoolAttr.get(True)})
    function.attributes["arg_attrs"] = ir.ArrayAttr.get(old + [writable] * len(added))
    function.attributes[DESTINATIONS_ATTR] = ir.UnitAttr.get()


def pass_destinations(module) -> None:
    """Rewrite every public function that can take its results' buffers.
    A function that donates arguments but cannot be rewritten is an error:
    its donated arguments would be written while its results are returned
    in buffers of its own."""
    called = _called_functions(module)
    for op in list(module.regions[0].blocks[0].operations):
        if rewritable(op.operation, called):
            with op.location:
                _pass_destinations(op.operation)
        elif op.operation.name == "func.func" and donations(op.operation) and \
                DESTINATIONS_ATTR not in op.operation.attributes:
            op.location.emit_error(
                "'gmx.donations' needs a public function, called by no other, whose arguments and results are "
                "all ranked tensors of static shape"
            )
            raise PassFailed("donations on a function that cannot take destinations")


def one_empty_per_use(module) -> None:
    """Give each use of a `tensor.empty` a copy of its own, before
    `eliminate-empty-tensors`: that pass replaces the empty tensor that
    reaches a destination by the destination, one use at a time. A checked
    gather starts both of its branches (all indices valid, or some not)
    from one empty output; split, both branches write the destination and
    no copy is left on either path. A `linalg.fill` of an empty tensor is
    split the same way first: after CSE, one fill (a checked gather's
    all-valid flag) or one empty is the destination of every op of a
    function that needs one of its type, and one-shot bufferization's
    analysis of a value is quadratic in its uses."""
    for name in ("linalg.fill", "tensor.empty"):
        for op in _shared_fresh_tensors(module, name):
            for use in list(op.results[0].uses)[1:]:
                user = use.owner
                copy = op.clone(ip=ir.InsertionPoint(user))
                user.operands[use.operand_number] = copy.results[0]


def _shared_fresh_tensors(module, name: str) -> list:
    """The module's `name` ops (tensor.empty, or linalg.fill of one) whose
    tensor result has several uses."""
    found = []

    def collect(op):
        if op.name != name or len(op.results) != 1 or len(list(op.results[0].uses)) < 2:
            return ir.WalkResult.ADVANCE
        if name == "linalg.fill" and not _filled_empty(op):
            return ir.WalkResult.ADVANCE
        found.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    return found


def _filled_empty(fill) -> bool:
    init = fill.operands[len(fill.operands) - 1]
    return isinstance(init, ir.OpResult) and init.owner.name == "tensor.empty"


def forget_materializations(module) -> None:
    """After `eliminate-empty-tensors`: each result is its computation
    again, not a copy into its destination. What that pass made write the
    destination returns it (bufferization then sees the result is the
    destination argument); anything else (an argument, a constant) is
    copied in by `drop_destination_results`. Left, the materialization
    would read the destination after the computation wrote it in place,
    a conflict one-shot bufferization refuses for a loop's result."""
    for op in module.regions[0].blocks[0].operations:
        function = op.operation
        if function.name != "func.func" or DESTINATIONS_ATTR not in function.attributes:
            continue
        materializations = []

        def collect(inner):
            if inner.name == "bufferization.materialize_in_destination" and inner.results:
                materializations.append(inner)
            return ir.WalkResult.ADVANCE

        function.walk(collect)
        for materialization in materializations:
            materialization.results[0].replace_all_uses_with(materialization.operands[0])
            materialization.erase()


def drop_destination_results(module) -> None:
    """After bufferization: a function with destinations returns them, the
    memrefs it took last (and its donated arguments); it returns nothing
    instead. A result that is not its destination (bufferization could not
    write it in place) is copied into it first; into a donated argument,
    only when no error was reported (`runtime_abi`)."""
    for op in module.regions[0].blocks[0].operations:
        function = op.operation
        if function.name != "func.func" or DESTINATIONS_ATTR not in function.attributes:
            continue
        ftype = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
        if not ftype.results:
            continue
        outs = destination_arguments(function, len(ftype.results))
        donated = set(donations(function)) - {NOT_DONATED}
        for block in function.regions[0].blocks:
            terminator = list(block.operations)[-1]
            if terminator.operation.name != "func.return":
                continue
            with ir.InsertionPoint(terminator), terminator.location:
                copies = _staged([(v, out) for v, out in zip(terminator.operands, outs) if v != out])
                for value, out in copies:
                    if out.arg_number in donated:
                        _copy_unless_reported(module, value, out)
                    else:
                        memref.copy(value, out)
                func.ReturnOp([])
            terminator.operation.erase()
        function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ftype.inputs, []))
        if "res_attrs" in function.attributes:
            del function.attributes["res_attrs"]


def _staged(copies: list[tuple[ir.Value, ir.Value]]) -> list[tuple[ir.Value, ir.Value]]:
    """The copies (value -> out) to make at a return, each value that is
    (a view of) a buffer another copy writes copied into a new buffer
    first: the copies are one parallel assignment (results donated into
    each other's arguments, `d -> %a` while `%a -> %b`)."""
    written = {out for _, out in copies}
    staged = []
    for value, out in copies:
        if buffer_root(value) in written:
            memref_type = ir.MemRefType(value.type)
            copy = memref.alloc(ir.MemRefType.get(memref_type.shape, memref_type.element_type), [], [])
            memref.copy(value, copy)
            value = copy
        staged.append((value, out))
    return staged


def _copy_unless_reported(module, value: ir.Value, out: ir.Value) -> None:
    """`memref.copy value -> out` when `@gmx_reported()` is 0."""
    declare_reported(module)
    i64 = ir.IntegerType.get_signless(64)
    reported = func.CallOp([i64], ir.FlatSymbolRefAttr.get(REPORTED_FN), []).results[0]
    clean = arith.cmpi(arith.CmpIPredicate.eq, reported, arith.constant(i64, 0))
    branch = scf.IfOp(clean)
    with ir.InsertionPoint(branch.then_block):
        memref.copy(value, out)
        scf.YieldOp([])


def _build(pm, options) -> None:
    add_python_pass(pm, pass_destinations, PASS)


PASS = PassInfo(
    argument="gmx-destination-passing",
    description="Public functions write their static tensor results into memrefs the caller passes",
    build=_build,
)
