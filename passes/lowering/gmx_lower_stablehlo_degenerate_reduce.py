"""`--gmx-lower-stablehlo-degenerate-reduce`: the `stablehlo.reduce`s
upstream's stablehlo-legalize-to-linalg leaves (it refuses both forms),
rewritten into what it lowers or into their value:

- over no dimensions (`dimensions = []`; torch-mlir's rank-0 sums of an
  unbatched `nll_loss`): each result element is the body applied to the
  init and that element (for `add` with a zero init, the element itself).
  The input gains a trailing unit dim the reduce then runs over, which
  computes exactly that:

      %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = []
             : (tensor<i64>, tensor<i64>) -> tensor<i64>

  becomes

      %e = tensor.expand_shape %x [] output_shape [1] : tensor<i64> into tensor<1xi64>
      %r = stablehlo.reduce(%e init: %c) applies stablehlo.add across dimensions = [0]
             : (tensor<1xi64>, tensor<i64>) -> tensor<i64>

- over an input with a dim of size 0 (reduced or kept): every result
  element reduces no element, so it is the init (a result with no
  elements has none to hold):

      %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0]
             : (tensor<0x3xf32>, tensor<f32>) -> tensor<3xf32>

  becomes

      %v = tensor.extract %c[] : tensor<f32>
      %r = linalg.fill ins(%v : f32) outs(%empty : tensor<3xf32>) -> tensor<3xf32>

A variadic reduce (argmax's value and index) is rewritten the same way,
every input expanded or every result filled with its own init. Every
other reduce is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from gmx.dialect.mlir import arith, ir, linalg, tensor

from ..registry import PassInfo, add_python_pass
from ..walking import ops_named

REDUCE = "stablehlo.reduce"
NO_DIMS, EMPTY = "no-dims", "empty"


def degenerate_kind(input_shape: Sequence[int | None], dims: Sequence[int]) -> str | None:
    """EMPTY where the input has a dim of size 0 (None: dynamic), NO_DIMS
    where it reduces over no dims, else None (upstream lowers it)."""
    if 0 in input_shape:
        return EMPTY
    if not dims:
        return NO_DIMS
    return None


def unit_dim_groups(rank: int) -> list[list[int]]:
    """expand_shape's reassociation adding a trailing unit dim to a rank-`rank`
    tensor: [[0], ..., [rank - 1, rank]] ([] for rank 0)."""
    if rank == 0:
        return []
    return [[d] for d in range(rank - 1)] + [[rank - 1, rank]]


def _shape(value: ir.Value) -> list[int | None]:
    shaped = ir.RankedTensorType(value.type)
    return [None if ir.ShapedType.is_dynamic_size(n) else n for n in shaped.shape]


def _dynamic_sizes(value: ir.Value, kept: Sequence[int]) -> list[ir.Value]:
    """tensor.dim of `value` for each dim of `kept` that is dynamic."""
    shape = _shape(value)
    return [tensor.dim(value, arith.constant(ir.IndexType.get(), d)) for d in kept if shape[d] is None]


def _sizes(value: ir.Value, kept: Sequence[int]) -> list[int | ir.Value]:
    """The sizes of `value`'s dims `kept`: ints, tensor.dim where dynamic."""
    shape = _shape(value)
    dynamic = iter(_dynamic_sizes(value, kept))
    return [next(dynamic) if shape[d] is None else shape[d] for d in kept]


def _with_unit_dim(value: ir.Value) -> ir.Value:
    """`value` with a trailing dim of size 1."""
    tensor_type = ir.RankedTensorType(value.type)
    rank = tensor_type.rank
    shape = [*tensor_type.shape, 1]
    result = ir.RankedTensorType.get(shape, tensor_type.element_type)
    return tensor.expand_shape(result, value, unit_dim_groups(rank), _dynamic_sizes(value, range(rank)), shape)


def _reduce_over_unit_dim(op) -> None:
    """Each input expanded by a trailing unit dim, the reduce over it."""
    inputs = len(op.operands) // 2
    with ir.InsertionPoint(op), op.location:
        for i in range(inputs):
            op.operands[i] = _with_unit_dim(op.operands[i])
        rank = ir.RankedTensorType(op.operands[0].type).rank
        op.attributes["dimensions"] = ir.DenseI64ArrayAttr.get([rank - 1])


def _inits_filled(op, dims: Sequence[int]) -> None:
    """Each result the broadcast of its init (no element is reduced)."""
    inputs = len(op.operands) // 2
    x = op.operands[0]
    kept = [d for d in range(len(_shape(x))) if d not in dims]
    with ir.InsertionPoint(op), op.location:
        sizes, filled = _sizes(x, kept), []
        for i, result in enumerate(op.results):
            init = tensor.extract(op.operands[inputs + i], [])
            result_type = ir.RankedTensorType(result.type)
            empty = tensor.empty(sizes, result_type.element_type)
            filled.append(linalg.fill(init, outs=[empty]))
    for result, value in zip(op.results, filled):
        result.replace_all_uses_with(value)
    op.erase()


def lower_degenerate_reduces(module) -> None:
    """Every stablehlo.reduce of `module` over no dims or over an input with
    a dim of size 0, as the module docstring rewrites it."""
    for op in ops_named(module, REDUCE):
        dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        kind = degenerate_kind(_shape(op.operands[0]), dims)
        if kind == NO_DIMS:
            _reduce_over_unit_dim(op)
        elif kind == EMPTY:
            _inits_filled(op, dims)


PASS = PassInfo(
    argument="gmx-lower-stablehlo-degenerate-reduce",
    description="stablehlo.reduce over no dims (the body applied to init and element) and over inputs with a "
    "size-0 dim (the init), which upstream's stablehlo-legalize-to-linalg refuses",
    build=lambda pm, options: add_python_pass(pm, lower_degenerate_reduces, PASS),
)
