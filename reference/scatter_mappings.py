"""Every known scatter as reshapes around one `scatter_multiaxis` call.

docs/semantics.md#every-known-scatter. A scatter writes where the gather
of the same operands reads, so each scatter here is its gather's
`ReshapePlan` (`mappings`) around `scatter_multiaxis`: input and indices
reshaped as for the gather, the updates reshaped to the gather's output
shape (they come in the frontend's shape of the gathered values,
`result_shape`), and the result reshaped back to the input's shape
(`apply_scatter_plan`). The frontend's reduction and out-of-range mode
name rows of `gmx.dialect.reductions` and `gmx.dialect.modes`; where a
frontend spells them otherwise, a table here says which row it means.
What the op does not do alone (torch's `include_self=False` and `mean`, a
leading slice of the input, TVM's transposed indices) is elementwise work
around it, written out with numpy. No numpy scatter (`ufunc.at`, fancy
assignment, `put`) is used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from gmx.dialect.modes import DEFAULT_MODE, Mode, OpKind, mode_rule, parse_mode
from gmx.dialect.reductions import DEFAULT_REDUCTION, RULES, Reduction, parse_reduction
from gmx.dialect.shapes import ScatterShapeError

from .mappings import (
    ReshapePlan,
    advanced_index_plan,
    folded_tuples,
    gather_elements_plan,
    gather_nd_plan,
    make_plan,
    normalize_axis,
    onnx_gather_plan,
    torch_take_plan,
)
from .semantics import scatter_multiaxis

# torch's `reduce=` of scatter_reduce, by the reduction it names ("mean" is
# the op plus elementwise work: `torch_scatter_reduce`).
TORCH_REDUCTIONS = {"sum": Reduction.ADD, "prod": Reduction.MUL, "amax": Reduction.MAX, "amin": Reduction.MIN}
TORCH_MEAN = "mean"

# JAX's `.at[i].<method>(v)`: each method but `set` is spelled as the reduction.
JAX_METHODS = {"set": Reduction.NONE, **{r.value: r for r in Reduction if r is not Reduction.NONE}}

# JAX's `mode=` of a scatter (`jax.lax.GatherScatterMode`): FILL_OR_DROP
# (spelled "fill" or "drop", and the default) drops an update outside;
# PROMISE_IN_BOUNDS promises none is, which gmx's checked default turns
# into an error where the promise is broken.
JAX_MODES = {None: Mode.DROP, Mode.DROP.value: Mode.DROP, Mode.FILL.value: Mode.DROP,
             Mode.CLIP.value: Mode.CLIP, "promise_in_bounds": Mode.RAISE}


def apply_scatter_plan(plan: ReshapePlan, input, indices, updates, *, mode=DEFAULT_MODE,
                       reduction=DEFAULT_REDUCTION) -> np.ndarray:
    """Reshape per `plan`, run scatter_multiaxis, reshape to the input's shape.

    `updates` is cast to the input's dtype (as frontends do) and reshaped to
    the plan's output shape: one value stays one (a unit updates tensor the
    op broadcasts), any other shape is broadcast to `result_shape` first."""
    input, indices = np.asarray(input), np.asarray(indices)
    result = scatter_multiaxis(
        input.reshape(plan.input_shape),
        indices.reshape(plan.indices_shape),
        _updates(plan, updates, input.dtype),
        plan.axes, mode, reduction,
    )
    return result.reshape(input.shape)


def _updates(plan: ReshapePlan, updates, dtype) -> np.ndarray:
    updates = np.asarray(updates).astype(dtype, copy=False)
    if updates.size == 1 and math.prod(plan.output_shape) != 1:
        return updates.reshape((1,) * len(plan.output_shape))
    if updates.size != math.prod(plan.output_shape):
        updates = np.broadcast_to(updates, plan.result_shape)
    return updates.reshape(plan.output_shape)


def reduction_of_ufunc(ufunc: np.ufunc) -> Reduction:
    """The reduction whose `ufunc.at` `ufunc` is (the reductions table's column)."""
    for reduction, rule in RULES.items():
        if rule.ufunc is ufunc:
            return reduction
    raise ValueError(f"np.{ufunc.__name__}.at is no scatter reduction; "
                     f"known: {', '.join(f'np.{r.ufunc.__name__}' for r in RULES.values() if r.ufunc)}")


# --- element scatters: ONNX ScatterElements, torch.scatter family -------------------


def scatter_elements(input, indices, updates, axis: int, reduction=DEFAULT_REDUCTION) -> np.ndarray:
    """ONNX ScatterElements (with `reduction`): `axes = [axis]` as is.

    `updates` has the indices' shape. Indices smaller than the input off the
    axis write into a leading slice of it (torch.scatter's rule): the op on
    that slice, written back (`tensor.insert_slice`)."""
    input, indices = np.asarray(input), np.asarray(indices)
    axis = normalize_axis(axis, input.ndim)
    window = _leading_slice(input.shape, indices.shape, axis)
    plan = gather_elements_plan(input[window].shape, indices.shape, axis)
    result = input.copy()
    result[window] = apply_scatter_plan(plan, input[window], indices, updates, reduction=reduction)
    return result


def _leading_slice(input_shape, indices_shape, axis: int) -> tuple:
    """The part of the input an element scatter writes: the indices' extent off the axis."""
    if len(indices_shape) != len(input_shape):
        raise ScatterShapeError(f"indices rank {len(indices_shape)} must equal input rank {len(input_shape)}")
    for d, (n, m) in enumerate(zip(input_shape, indices_shape)):
        if d != axis and m > n:
            raise ScatterShapeError(f"indices dim {d} has size {m}, larger than input dim {d} of size {n}")
    return tuple(slice(None) if d == axis else slice(0, m) for d, m in enumerate(indices_shape))


def torch_scatter(input, dim: int, index, src, reduction=DEFAULT_REDUCTION) -> np.ndarray:
    """torch.scatter / scatter_add / scatter_reduce(include_self=True):
    ScatterElements after cutting `src` to the index's shape (torch reads
    only that part of it; a scalar `value` is one update)."""
    index, src = np.asarray(index), np.asarray(src)
    if src.ndim:
        src = src[tuple(slice(0, m) for m in index.shape)]
    return scatter_elements(input, index, src, dim, reduction)


def torch_scatter_reduce(input, dim: int, index, src, reduce: str, include_self: bool = True) -> np.ndarray:
    """torch.scatter_reduce with every `reduce` and `include_self`.

    include_self=False is a scatter of the reduction's identity into the
    positions written (the op, reduction none), then the reduction. "mean"
    is a sum and a count (a scatter-add of ones), then a divide (floor
    division for integers, as torch does); include_self=True counts the
    input's own value once."""
    input = np.asarray(input)
    reduction = _spelled({**TORCH_REDUCTIONS, TORCH_MEAN: None}, reduce, "torch's reduce")
    if reduction is None:
        return _torch_scatter_mean(input, dim, index, src, include_self)
    if not include_self:
        identity = RULES[reduction].identity_of(input.dtype)
        input = torch_scatter(input, dim, index, identity)
    return torch_scatter(input, dim, index, src, reduction)


def _torch_scatter_mean(input, dim, index, src, include_self):
    start = input if include_self else torch_scatter(input, dim, index, np.zeros((), input.dtype))
    total = torch_scatter(start, dim, index, src, Reduction.ADD)
    counts = torch_scatter(np.full(input.shape, int(include_self), np.int64), dim, index,
                           np.ones((), np.int64), Reduction.ADD)
    if input.dtype.kind in "iu":
        mean = np.floor_divide(total, np.maximum(counts, 1).astype(input.dtype))
    else:
        mean = (total / np.maximum(counts, 1)).astype(input.dtype)
    return np.where(counts > 0, mean, input)


# --- block scatters: index_add and friends, numpy, JAX ------------------------------


def _block_scatter(input, axis: int, index, updates, mode=DEFAULT_MODE, reduction=DEFAULT_REDUCTION):
    """The inverse of ONNX Gather (`numpy.take`): blocks along `axis`."""
    input, index = np.asarray(input), np.asarray(index)
    plan = onnx_gather_plan(input.shape, index.shape, axis)
    return apply_scatter_plan(plan, input, index, updates, mode=mode, reduction=reduction)


def index_add(input, dim: int, index, source, alpha=1) -> np.ndarray:
    """torch.index_add: `alpha * source` added in blocks along `dim`."""
    source = np.asarray(source)
    return _block_scatter(input, dim, index, source if alpha == 1 else alpha * source, reduction=Reduction.ADD)


def index_copy(input, dim: int, index, source) -> np.ndarray:
    """torch.index_copy: blocks along `dim` replaced (last wins)."""
    return _block_scatter(input, dim, index, source)


def index_fill(input, dim: int, index, value) -> np.ndarray:
    """torch.index_fill: one value into every block the index names."""
    return _block_scatter(input, dim, index, value)


def numpy_assign(a, i, v) -> np.ndarray:
    """numpy's `a[i] = v` on a copy: blocks along axis 0, the last of duplicates wins."""
    return _block_scatter(a, 0, i, v)


def ufunc_at(ufunc: np.ufunc, a, i, v) -> np.ndarray:
    """`ufunc.at(a, i, v)` on a copy: blocks along axis 0, combined in order."""
    return _block_scatter(a, 0, i, v, reduction=reduction_of_ufunc(ufunc))


def numpy_put(a, ind, v, mode=DEFAULT_MODE) -> np.ndarray:
    """`np.put(a, ind, v, mode=...)` on a copy: torch.take's scatter, on the
    input flattened, in numpy's mode (its spellings are gmx's scatter modes)."""
    a, ind = np.asarray(a), np.asarray(ind)
    plan = torch_take_plan(a.shape, ind.shape)
    return apply_scatter_plan(plan, a, ind, v, mode=parse_mode(mode, OpKind.SCATTER))


def jax_at(x, idx, method: str, v, mode=None) -> np.ndarray:
    """JAX's `x.at[idx].<method>(v, mode=mode)`: blocks along axis 0,
    `method` a row of JAX_METHODS, `mode` of JAX_MODES (None: its default).
    JAX wraps a negative index once before any mode; where the mode maps
    every value into range (clip) that wrap is elementwise work first."""
    x, idx, gmx_mode = np.asarray(x), np.asarray(idx), _spelled(JAX_MODES, mode, "JAX's mode")
    if mode_rule(gmx_mode).maps_into_range and x.ndim:
        idx = np.where(idx < 0, idx + x.shape[0], idx)
    return _block_scatter(x, 0, idx, v, mode=gmx_mode, reduction=_spelled(JAX_METHODS, method, "JAX's .at[] method"))


def _spelled(table: dict, spelling, what: str):
    """The row a frontend's spelling names in one of the tables above; ValueError otherwise."""
    if spelling not in table:
        known = ", ".join(repr(k) for k in table if k is not None)  # (None: the frontend's default)
        raise ValueError(f"unknown {what} {spelling!r}; expected one of {known}")
    return table[spelling]


# --- advanced indexing, index_put ---------------------------------------------------


def advanced_assign(input, dims: Sequence[int], indices, values, reduction=DEFAULT_REDUCTION) -> np.ndarray:
    """`x[i, :, j] = v` on a copy (`axes = dims`; reduction add: `index_put`
    with accumulate, numpy's `np.add.at(x, (i, slice(None), j), v)`)."""
    input = np.asarray(input)
    shape = np.broadcast_shapes(*(np.shape(i) for i in indices))
    plan = advanced_index_plan(input.shape, dims, shape)
    return apply_scatter_plan(plan, input, folded_tuples(indices, plan), values, reduction=reduction)


def index_put(input, indices: Sequence, values, accumulate: bool = False) -> np.ndarray:
    """torch.index_put: index arrays for the leading dims (`x[i, j] = v`)."""
    reduction = Reduction.ADD if accumulate else Reduction.NONE
    return advanced_assign(input, range(len(indices)), indices, values, reduction)


# --- ScatterND and the ND family ----------------------------------------------------


def scatter_nd(data, indices, updates, reduction=DEFAULT_REDUCTION, mode=DEFAULT_MODE) -> np.ndarray:
    """ONNX ScatterND (with `reduction`): GatherND's plan, `axes = [0..n-1]`
    after unit dims; `updates` has GatherND's result shape
    `indices.shape[:-1] + data.shape[n:]`. TF's `tensor_scatter_nd_update`
    / `_add` / `_max` / `_min` are this with none / add / max / min."""
    data, indices = np.asarray(data), np.asarray(indices)
    plan = gather_nd_plan(data.shape, indices.shape, 0)
    return apply_scatter_plan(plan, data, indices, updates, mode=mode, reduction=parse_reduction(reduction))


def tvm_scatter_nd(data, indices, updates, reduction=DEFAULT_REDUCTION) -> np.ndarray:
    """TVM's `scatter_nd(data, indices, updates, mode)`: indices `(M, Y...)`
    hold the tuples in their *first* dim, so ScatterND of the indices
    transposed (TVM's mode "update" is reduction none, "add" add)."""
    return scatter_nd(data, np.moveaxis(np.asarray(indices), 0, -1), updates, reduction)


def tosa_scatter(values_in, indices, input) -> np.ndarray:
    """`tosa.scatter(values_in[N, K, C], indices[N, W], input[N, W, C])`:
    `axes = [1]` with indices `[N, W, 1]` (TOSA forbids duplicates)."""
    values_in, indices = np.asarray(values_in), np.asarray(indices)
    n, w = indices.shape
    plan = make_plan(values_in.shape, (n, w, 1), [1])
    return apply_scatter_plan(plan, values_in, indices, input)


def tensor_scatter(source, dest, indices, scatter_dims: Sequence[int]) -> np.ndarray:
    """Upstream `tensor.scatter %source into %dest[%indices] scatter_dims(...)
    unique`: indices `[B..., k]`, source `B + dest's shape` with the scatter
    dims 1 (`batch_first_scatter`)."""
    return batch_first_scatter(dest, indices, source, scatter_dims)


def stablehlo_scatter(operand, scatter_indices, updates, scatter_dims_to_operand_dims: Sequence[int],
                      reduction=DEFAULT_REDUCTION, mode=DEFAULT_MODE) -> np.ndarray:
    """`stablehlo.scatter` in the form JAX and torch-mlir emit:
    `index_vector_dim` the indices' last dim, every indexed dim inserted
    (`inserted_window_dims`, window size 1), the others whole windows
    (`update_window_dims` the updates' trailing dims); its region's body is
    the reduction. Out of range, StableHLO skips the update, a negative
    one too: mode skip (on JAX's index before its wrap, mode drop)."""
    return batch_first_scatter(operand, scatter_indices, updates, scatter_dims_to_operand_dims, reduction, mode)


def batch_first_scatter(dest, indices, updates, dims: Sequence[int], reduction=DEFAULT_REDUCTION,
                        mode=DEFAULT_MODE) -> np.ndarray:
    """Tuples `indices[B..., k]` into `dims` of `dest`, each writing the
    slab of the other dims; `updates` hold B first, then the slab (unit dims
    where `dims` are allowed). `x[i, :, j] = v`'s plan where `dims[0] == 0`
    (B sits at dim 0 for both); elsewhere a transpose (ScatterShapeError)."""
    dest, indices = np.asarray(dest), np.asarray(indices)
    if not dims or dims[0] != 0:
        raise ScatterShapeError(f"scatter dims {list(dims)} do not start at dim 0: the batch of the updates "
                                "comes first, a transpose rather than a reshape")
    plan = advanced_index_plan(dest.shape, dims, indices.shape[:-1])
    return apply_scatter_plan(plan, dest, indices, updates, mode=mode, reduction=parse_reduction(reduction))


def tm_tensor_scatter(original, indices, updates, dimension_map: Sequence[int],
                      reduction=DEFAULT_REDUCTION) -> np.ndarray:
    """torch-mlir's `tm_tensor.scatter ins(%updates, %indices) outs(%original)
    dimension_map = [...]`: indices `[N, k]`, updates `[N, slice...]`, the
    slice being the original's dims past the k mapped ones; the combiner
    region's body is the reduction (`arith.addf`: add; yielding the update:
    none). ScatterND with `axes = dimension_map`, for the leading dims torch-mlir maps."""
    if list(dimension_map) != list(range(len(dimension_map))):
        raise ScatterShapeError(f"dimension_map {list(dimension_map)} is not the leading dims")
    return scatter_nd(original, indices, updates, reduction)


__all__ = [
    "JAX_METHODS",
    "JAX_MODES",
    "TORCH_REDUCTIONS",
    "advanced_assign",
    "apply_scatter_plan",
    "index_add",
    "index_copy",
    "index_fill",
    "index_put",
    "jax_at",
    "numpy_assign",
    "numpy_put",
    "reduction_of_ufunc",
    "scatter_elements",
    "batch_first_scatter",
    "scatter_nd",
    "stablehlo_scatter",
    "tensor_scatter",
    "tm_tensor_scatter",
    "torch_scatter",
    "torch_scatter_reduce",
    "tosa_scatter",
    "tvm_scatter_nd",
    "ufunc_at",
]
