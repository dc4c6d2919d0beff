"""`--gmx-destination-passing`: public functions write their results into
buffers the caller passes, instead of returning buffers they allocated.

A function returning statically shaped tensors

    func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
      %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : ... -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }

takes one memref per result after its arguments and returns nothing:

    func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %out: memref<2x3xf32>)
        attributes {gmx.destinations} {
      %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : ... -> tensor<2x3xf32>
      bufferization.materialize_in_destination %0 in restrict writable %out
        : (tensor<2x3xf32>, memref<2x3xf32>) -> ()
      return
    }

Upstream's `eliminate-empty-tensors` then makes the computation write the
caller's buffer directly (the `tensor.empty` of the result becomes the
destination), and bufferization leaves the function nothing to allocate,
return or free: a call costs no allocation and no page fault when the
caller reuses its output. (Upstream's `drop-equivalent-buffer-results`
would do the last step for private functions only.) The destinations are
`restrict`: the caller promises they alias nothing else the function sees.

Left alone: private functions, declarations, functions another function
calls (their call sites would need rewriting), and functions with a result
that is not a ranked tensor of static shape (the caller could not size its
buffer before the call). `gmx.destinations` (`runtime_abi`) marks the
functions rewritten, so that the runtime knows their calling convention.
"""

from __future__ import annotations

from gmx.dialect.mlir import bufferization, func, ir

from ..registry import PassInfo, add_python_pass
from .entry_points import is_entry_point
from .runtime_abi import DESTINATIONS_ATTR


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
    if ir.StringAttr(function.attributes["sym_name"]).value in called:
        return False
    results = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value).results
    return bool(results) and all(_static_tensor(t) for t in results)


def _pass_destinations(function) -> None:
    ftype = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    destinations = [ir.MemRefType.get(t.shape, t.element_type) for t in map(ir.RankedTensorType, ftype.results)]
    blocks = list(function.regions[0].blocks)
    entry = blocks[0]
    outs = [entry.add_argument(t, function.location) for t in destinations]
    for block in blocks:
        terminator = list(block.operations)[-1]
        if terminator.operation.name != "func.return":
            continue
        with ir.InsertionPoint(terminator), terminator.location:
            for value, out in zip(terminator.operands, outs):
                bufferization.MaterializeInDestinationOp(None, value, out, restrict=True, writable=True)
            func.ReturnOp([])
        terminator.operation.erase()
    function.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([*ftype.inputs, *destinations], [])
    )
    if "arg_attrs" in function.attributes:
        old = list(ir.ArrayAttr(function.attributes["arg_attrs"]))
        function.attributes["arg_attrs"] = ir.ArrayAttr.get(old + [ir.DictAttr.get({})] * len(outs))
    if "res_attrs" in function.attributes:
        del function.attributes["res_attrs"]
    function.attributes[DESTINATIONS_ATTR] = ir.UnitAttr.get()


def pass_destinations(module) -> None:
    """Rewrite every public function that can take its results' buffers."""
    called = _called_functions(module)
    for op in list(module.regions[0].blocks[0].operations):
        if rewritable(op.operation, called):
            with op.location:
                _pass_destinations(op.operation)


def _build(pm, options) -> None:
    add_python_pass(pm, pass_destinations, PASS)


PASS = PassInfo(
    argument="gmx-destination-passing",
    description="Public functions write their static tensor results into memrefs the caller passes",
    build=_build,
)
