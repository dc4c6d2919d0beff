"""`--gmx-fold-tm-tensor-scatter-casts`: the `tensor.cast`s into a
torch-mlir `tm_tensor.scatter`'s updates and indices folded together, so
that their counts (dim 0 of both) stay both static or both dynamic.

torch-mlir's linalg-on-tensors `x[mask] = v` (index_put with a boolean
mask) scatters `v`'s rows, a static count cast to `?`, at the mask's
nonzero coordinates, a dynamic count:

    %u = tensor.cast %v : tensor<5x1x4xf32> to tensor<?x1x4xf32>
    %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true)
           ins(%u, %i : tensor<?x1x4xf32>, tensor<?x1xi64>) outs(%x : tensor<6x4xf32>) {...}

The wheel's canonicalization of TMTensor ops folds each cast into its
consumer on its own: the updates become `tensor<5x1x4xf32>`, the indices
stay `tensor<?x1xi64>`, and the scatter's verifier rejects the program
("mismatch in shape of indices and update value at dim#0"). Every
lowering runs upstream's canonicalize, so this pass runs first and folds
both at once: the static count is given to both sides,

    %j = tensor.cast %i : tensor<?x1xi64> to tensor<5x1xi64>
    %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true)
           ins(%v, %j : tensor<5x1x4xf32>, tensor<5x1xi64>) outs(%x : tensor<6x4xf32>) {...}

the cast to a static count being what the scatter already required (as
many index rows as updates), which checked mode asserts at run time
(--gmx-check-shapes: a mask with another count than `v` is a ValueError).
A scatter whose two counts are both static or both dynamic, cast or not,
is left as it is; two different static counts are a located error (the
scatter could never run).
"""

from __future__ import annotations

from gmx.dialect.mlir import ir, tensor

from .refusals import refuse_each
from ..registry import PassInfo, add_python_pass
from ..walking import ops_named

SCATTER = "tm_tensor.scatter"
CAST = "tensor.cast"


def _shape(value_type: ir.Type) -> list[int | None]:
    shaped = ir.RankedTensorType(value_type)
    return [None if ir.ShapedType.is_dynamic_size(n) else n for n in shaped.shape]


def refines(source: list[int | None], result: list[int | None]) -> bool:
    """Whether a cast from `source` to `result` only hides static sizes
    (what canonicalization folds into the cast's consumer)."""
    return len(source) == len(result) and all(r is None or s == r for s, r in zip(source, result))


def common_count(updates: int | None, indices: int | None) -> int | None:
    """The static count both sides get where exactly one is static, else
    None (nothing to do); ValueError where both are static and differ."""
    if updates is not None and indices is not None and updates != indices:
        raise ValueError(f"{updates} updates but {indices} index rows")
    if (updates is None) == (indices is None):
        return None
    return updates if updates is not None else indices


def _seen_through_cast(value: ir.Value) -> ir.Value:
    """`value`'s cast source where the cast only hides static sizes."""
    if not isinstance(value, ir.OpResult):
        return value
    op = value.owner.operation
    if op.name == CAST and refines(_shape(op.operands[0].type), _shape(value.type)):
        return op.operands[0]
    return value


def _with_count(value: ir.Value, count: int) -> ir.Value:
    """`value` cast to dim 0 of size `count` (a no-op where it has it)."""
    shape = _shape(value.type)
    if shape[0] == count:
        return value
    element = ir.RankedTensorType(value.type).element_type
    static = [count, *(ir.ShapedType.get_dynamic_size() if n is None else n for n in shape[1:])]
    return tensor.cast(ir.RankedTensorType.get(static, element), value)


def fold_counts(op) -> None:
    """Give `op`'s updates and indices one static count where the casts
    into it hide one on one side only (module docstring)."""
    updates, indices = (_seen_through_cast(op.operands[k]) for k in (0, 1))
    count = common_count(_shape(updates.type)[0], _shape(indices.type)[0])
    if count is None:
        return
    with ir.InsertionPoint(op), op.location:
        op.operands[0] = _with_count(updates, count)
        op.operands[1] = _with_count(indices, count)


def _folded_or_why(op) -> str | None:
    """fold_counts on `op`; the error where it cannot run, else None."""
    try:
        fold_counts(op)
    except ValueError as error:
        return f"'{SCATTER}' op cannot run: {error}"
    return None


def fold_tm_tensor_scatter_casts(module) -> None:
    """fold_counts on every tm_tensor.scatter of `module`; each that cannot
    run a located error (Refused)."""
    refuse_each(ops_named(module, SCATTER), _folded_or_why, "scatter(s) refused")


PASS = PassInfo(
    argument="gmx-fold-tm-tensor-scatter-casts",
    description="tensor.casts into tm_tensor.scatter's updates and indices folded together (one static count "
    "for both), before canonicalization folds one alone into an invalid scatter",
    build=lambda pm, options: add_python_pass(pm, fold_tm_tensor_scatter_casts, PASS),
)
