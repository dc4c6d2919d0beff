"""The scatter entries of the one variant registry (`variants`): one
`ScatterVariant` per scatter users write, and `SCATTER_VARIANTS`.

Each entry gives its contenders' calls (`numpy_fn`, `torch_fn` and its
in-place spelling `torch_inplace_fn`, `onnx_graph` where ONNX has the
scatter), the reference's result through
`gmx.reference`'s mapping of its frontend onto `scatter_multiaxis`
(`reference_fn`), and its gmx program (`gmx_program`: the op between the
mapping's reshapes, in MLIR text). The gmx program runs once
`gmx.scatter_multiaxis` lowers; the entries do not need it.

Values: data and updates are small integers (in the study's dtype), so
that sums and products are exact in every order: torch and ONNX Runtime do
not promise gmx's row-major order. Indices are in [0, size) (torch's
scatters refuse negative ones) and, where there is no reduction, share no
position (which update wins is unspecified in torch and ONNX).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gmx.dialect.modes import DEFAULT_MODE, MODE_ATTR, Mode, OpKind
from gmx.dialect.reductions import DEFAULT_REDUCTION, REDUCTION_ATTR, RULES, Reduction
from gmx.dialect.shapes import ShapeError, infer_scatter_shape
from gmx.reference import (
    ReshapePlan,
    advanced_assign,
    advanced_index_plan,
    gather_elements_plan,
    gather_nd_plan,
    index_add,
    index_copy,
    onnx_gather_plan,
    scatter_nd,
    torch_scatter,
    torch_scatter_reduce,
)
from gmx.reference.scatter_mappings import TORCH_REDUCTIONS

from .dtypes import DATA_DTYPES, INDEX_DTYPES
from .frontends import Frontend
from .variant_base import (
    BenchmarkKind,
    BenchmarkShapes,
    Study,
    StudyError,
    Variant,
    check_axis,
    check_rank,
    check_same_rank,
    check_within,
    element_sweep_options,
    fmt_dims,
    sweep_dims,
)

# The classes of docs/semantics.md#every-known-scatter.
ELEMENT = "element scatter"
BLOCK = "block scatter"
ND = "ScatterND"
MULTIAXIS = "multiaxis scatter"

VALUE_RANGE = 5  # data and updates are integers in [-5, 5): exact sums and products in any order


def small_values(rng, shape, dtype: str) -> np.ndarray:
    return rng.integers(-VALUE_RANGE, VALUE_RANGE, shape).astype(DATA_DTYPES[dtype])


# JAX's `x.at[where]` method of each reduction (`ScatterVariant.jax_fn`)
# where its name is not the reduction's own spelling (add, max, min are).
JAX_METHODS = {Reduction.NONE: "set", Reduction.MUL: "multiply"}


def jax_update(reduction: Reduction, x, where, updates):
    """`x.at[where].<set | add | multiply | max | min>(updates)`."""
    return getattr(x.at[where], JAX_METHODS.get(reduction, reduction.value))(updates)


def jax_along(idx, axis: int) -> tuple:
    """The positions of a scatter along `axis` (torch.scatter's): `idx`
    on that axis, every other dim's own position (broadcasting aranges)."""
    import jax.numpy as jnp

    grid = [jnp.arange(n).reshape([n if e == d else 1 for e in range(idx.ndim)]) for d, n in enumerate(idx.shape)]
    grid[axis] = idx
    return tuple(grid)


@dataclass(frozen=True)
class ScatterVariant(Variant):
    """A scatter variant: a gather variant's fields, with the frontend's
    reduction, and the arguments a caller may donate (`gmx.runtime.compile`'s
    `donate=`: the call writes its result into their buffers)."""

    op: OpKind = OpKind.SCATTER
    reduction: Reduction = DEFAULT_REDUCTION
    donated: tuple[int, ...] = ()
    first: Frontend | None = None  # the default form (`RAISED` or `OWN`); None: the frontend's own

    # -- arguments and inputs --------------------------------------------------
    def arguments(self, s: Study) -> tuple[str, ...]:
        return ("x", "idx", "upd")

    def updates_shape(self, s: Study) -> tuple[int, ...]:
        raise NotImplementedError

    def input_types(self, s):
        return [(s.dtype, s.shape), (s.index_dtype, s.indices_shape), (s.dtype, self.updates_shape(s))]

    def inputs(self, s, rng):
        return (small_values(rng, s.shape, s.dtype), self.indices(s, rng).astype(INDEX_DTYPES[s.index_dtype]),
                small_values(rng, self.updates_shape(s), s.dtype))

    def indices(self, s: Study, rng) -> np.ndarray:
        """Index values in range; without a reduction, no two updates share a position."""
        raise NotImplementedError

    # -- the mapping and the gmx program ---------------------------------------------
    def plan(self, s: Study) -> ReshapePlan:
        """The reshapes around the op (`gmx.reference.mappings`)."""
        raise NotImplementedError

    def check(self, s):
        try:
            plan = self.plan(s)
            infer_scatter_shape(plan.input_shape, plan.indices_shape, plan.output_shape, plan.axes)
        except ShapeError as error:
            raise StudyError(f"{self.name}: {error}") from None

    def gmx_program(self, s):
        return scatter_program(self.input_types(s), self.plan(s), self.mode or DEFAULT_MODE, self.reduction)

    def reference_expression(self, s):
        plan = self.plan(s)
        return (f"gmx.reference.scatter_multiaxis on {fmt_dims(plan.input_shape)}, "
                f"{fmt_dims(plan.indices_shape)}, {fmt_dims(plan.output_shape)}, axes {list(plan.axes)}")

    @property
    def numpy_is_reference(self) -> bool:
        return False

    def frontends(self):
        """A gmx entry is its own program only (its torch form writes in place);
        every other entry also has its gmx program (`gmx_program`). `first`
        comes first: the form gmx-study and gmx-bench take by default."""
        if self.frontend == "gmx":
            return (Frontend.GMX,)
        others = (*super().frontends(), Frontend.GMX)
        return tuple(sorted(others, key=lambda f: f != self.first))


# --- element scatters ---------------------------------------------------------------


def unique_along(rng, shape, axis: int, size: int) -> np.ndarray:
    """Indices of `shape` in [0, size), no two equal along `axis` (a prefix of a permutation per lane)."""
    keys = rng.random(shape[:axis] + (size,) + shape[axis + 1 :])
    return np.argsort(keys, axis=axis).take(range(shape[axis]), axis=axis)


class ElementScatter(ScatterVariant):
    """torch.scatter / scatter_reduce along `axis`: updates shaped like the indices."""

    def updates_shape(self, s):
        return s.indices_shape

    def check(self, s):
        check_axis(s)
        check_same_rank(s)
        check_within(s)
        if self.reduction is DEFAULT_REDUCTION and s.indices_shape[s.axis_index] > s.shape[s.axis_index]:
            raise StudyError(f"{self.name}: more indices than positions along axis {s.axis_index}: "
                             "some would share one, and which wins is unspecified")
        super().check(s)

    def indices(self, s, rng):
        size = s.shape[s.axis_index]
        if self.reduction is DEFAULT_REDUCTION:
            return unique_along(rng, s.indices_shape, s.axis_index, size)
        return rng.integers(0, size, s.indices_shape)

    def plan(self, s):
        return gather_elements_plan(s.shape, s.indices_shape, s.axis_index)

    def jax_fn(self, s):
        return lambda x, idx, upd: jax_update(self.reduction, x, jax_along(idx, s.axis_index), upd)

    def sweep_options(self, n):
        return element_sweep_options(n)


class TorchScatter(ElementScatter):
    def expression(self, s):
        return f"torch.scatter(x, {s.axis}, idx, upd)"

    def numpy_expression(self, s):
        return f"np.put_along_axis(x.copy(), idx, upd, {s.axis})"

    def numpy_fn(self, s):
        def put(x, idx, upd):
            out = x.copy()
            np.put_along_axis(out, idx, upd, s.axis_index)
            return out

        return put

    def reference_fn(self, s):
        return lambda x, idx, upd: torch_scatter(x, s.axis, idx, upd)

    def torch_fn(self, s):
        import torch

        return lambda x, idx, upd: torch.scatter(x, s.axis, idx, upd)

    def torch_inplace_fn(self, s):
        return lambda x, idx, upd: x.scatter_(s.axis, idx, upd)

    def onnx_graph(self, s):
        return [("ScatterElements", ["x", "idx", "upd"], ["out"], {"axis": s.axis})]


class ScatterReduce(ElementScatter):
    """torch.scatter_reduce(x, axis, idx, src, reduce) with include_self=True."""

    TORCH_NAMES = {reduction: name for name, reduction in TORCH_REDUCTIONS.items()}

    def expression(self, s):
        return f'torch.scatter_reduce(x, {s.axis}, idx, upd, "{self.TORCH_NAMES[self.reduction]}")'

    def numpy_expression(self, s):
        return f"np.{RULES[self.reduction].ufunc.__name__}.at(x.copy(), (rows, idx), upd)"

    def numpy_fn(self, s):
        ufunc, axis = RULES[self.reduction].ufunc, s.axis_index

        def at(x, idx, upd):
            out = x.copy()
            grid = list(np.ogrid[tuple(slice(0, n) for n in idx.shape)])
            grid[axis] = idx
            ufunc.at(out, tuple(grid), upd)
            return out

        return at

    def reference_fn(self, s):
        return lambda x, idx, upd: torch_scatter_reduce(x, s.axis, idx, upd, self.TORCH_NAMES[self.reduction])

    def torch_fn(self, s):
        import torch

        reduce = self.TORCH_NAMES[self.reduction]
        return lambda x, idx, upd: torch.scatter_reduce(x, s.axis, idx, upd, reduce)

    def torch_inplace_fn(self, s):
        reduce = self.TORCH_NAMES[self.reduction]
        return lambda x, idx, upd: x.scatter_reduce_(s.axis, idx, upd, reduce)

    def onnx_graph(self, s):
        return None  # ScatterElements' max and min need opset 18; the frontends' models are opset 17


# --- block scatters: rows along dim 0 -------------------------------------------------


class RowScatter(ScatterVariant):
    """Rows of `upd` added (or copied) into rows `idx` of `x` [rows, width]."""

    def updates_shape(self, s):
        return s.indices_shape + s.shape[1:]

    def check(self, s):
        check_rank(s, rank=2)
        check_rank(s, rank=1, what="indices")
        if self.reduction is DEFAULT_REDUCTION and s.indices_shape[0] > s.shape[0]:
            raise StudyError(f"{self.name}: more rows copied than the data has: some would share one")
        super().check(s)

    def indices(self, s, rng):
        if self.reduction is DEFAULT_REDUCTION:
            return rng.permutation(s.shape[0])[: s.indices_shape[0]]
        return rng.integers(0, s.shape[0], s.indices_shape)

    def plan(self, s):
        return onnx_gather_plan(s.shape, s.indices_shape, 0)

    def numpy_expression(self, s):
        return "np.add.at(x.copy(), idx, upd)"

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, c), "indices_shape": (r,)}

    def numpy_fn(self, s):
        def add_at(x, idx, upd):
            out = x.copy()
            np.add.at(out, idx, upd)
            return out

        return add_at

    def reference_fn(self, s):
        return lambda x, idx, upd: index_add(x, 0, idx, upd)

    def jax_fn(self, s):
        return lambda x, idx, upd: jax_update(self.reduction, x, idx, upd)

    def onnx_graph(self, s):
        """ScatterND of the rows, reduction add (opset 16)."""
        x, idx, upd = s.arguments()
        return _rows_as_tuples(s, idx) + [("ScatterND", [x, "tuples", upd], ["out"], {"reduction": Reduction.ADD.value})]


def _rows_as_tuples(s: Study, idx: str) -> list[tuple]:
    """ONNX nodes: the row indices `idx` [n] as int64 tuples [n, 1] (`tuples`)."""
    nodes = [("Constant", [], ["last"], {"value": np.array([-1], np.int64)})]
    if s.index_dtype != "i64":
        nodes.append(("Cast", [idx], ["idx64"], {"to": 7}))  # TensorProto.INT64: ScatterND reads int64
        idx = "idx64"
    return nodes + [("Unsqueeze", [idx, "last"], ["tuples"], {})]


class IndexAdd(RowScatter):
    """torch.index_add of rows: an embedding's gradient, a mixture of experts' combine."""

    def expression(self, s):
        return "torch.index_add(x, 0, idx, upd)"

    def torch_fn(self, s):
        import torch

        return lambda x, idx, upd: torch.index_add(x, 0, idx, upd)

    def torch_inplace_fn(self, s):
        return lambda x, idx, upd: x.index_add_(0, idx, upd)


class GnnScatterAdd(RowScatter):
    """A graph network's aggregation: edge messages summed into their
    destination nodes with scatter_add (the index expanded over the features)."""

    def expression(self, s):
        return "x.scatter_add(0, dst[:, None].expand(-1, F), msg)"

    def torch_fn(self, s):
        def aggregate(x, dst, msg):
            return x.scatter_add(0, dst[:, None].expand(-1, x.shape[1]), msg)

        return aggregate

    def torch_inplace_fn(self, s):
        def aggregate_(x, dst, msg):
            return x.scatter_add_(0, dst[:, None].expand(-1, x.shape[1]), msg)

        return aggregate_

    def arguments(self, s):
        return ("x", "dst", "msg")


class KvCacheUpdate(ScatterVariant):
    """One token's keys (or values) written into a cache [batch, heads,
    positions, dim] at a position tensor: `cache.index_copy_(2, pos, new)`.
    The cache is donated (`donated`): gmx.runtime.compile(..., donate=(0,))
    writes the result into the cache's buffer instead of copying all of it;
    torch's contender is the in-place index_copy_ (writing the same values
    each call: the inputs it shares stay as they were)."""

    def arguments(self, s):
        return ("cache", "pos", "new")

    def updates_shape(self, s):
        return s.shape[:2] + s.indices_shape + s.shape[3:]

    def check(self, s):
        check_rank(s, rank=4)
        check_rank(s, rank=1, what="indices")
        if s.indices_shape[0] > s.shape[2]:
            raise StudyError(f"{self.name}: more positions written than the cache has")
        super().check(s)

    def indices(self, s, rng):
        return rng.permutation(s.shape[2])[: s.indices_shape[0]]

    def plan(self, s):
        return onnx_gather_plan(s.shape, s.indices_shape, 2)

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, 1, 16, c), "indices_shape": (1,)}

    def expression(self, s):
        return "cache.index_copy_(2, pos, new)"

    def numpy_expression(self, s):
        return "cache.copy()[:, :, pos] = new"

    def numpy_fn(self, s):
        def write(cache, pos, new):
            out = cache.copy()
            out[:, :, pos] = new
            return out

        return write

    def reference_fn(self, s):
        return lambda cache, pos, new: index_copy(cache, 2, pos, new)

    def torch_fn(self, s):
        return lambda cache, pos, new: cache.index_copy_(2, pos, new)

    def torch_inplace_fn(self, s):
        """`torch_fn` itself: the cache's own spelling is in place."""
        return self.torch_fn(s)

    def jax_fn(self, s):
        """JAX's KV-cache idiom: a dynamic_update_slice at the position
        (with the cache donated, XLA writes the token in place; as a
        scatter, `cache.at[:, :, pos].set(new)`, it copied the whole cache)."""
        def write(cache, pos, new):
            import jax

            return jax.lax.dynamic_update_slice_in_dim(cache, new, pos[0], axis=2)

        return write


# --- advanced indexing and ScatterND ----------------------------------------------------


def unique_tuples(rng, count: int, sizes) -> np.ndarray:
    """`count` distinct coordinate tuples [count, len(sizes)] over dims of `sizes`."""
    flat = rng.choice(math.prod(sizes), count, replace=False)
    return np.stack(np.unravel_index(flat, sizes), axis=-1)


class AdvancedIndexPut(ScatterVariant):
    """`x[i, :, j] = v` (numpy, torch) on a copy of `x`."""

    def arguments(self, s):
        return ("x", "i", "j", "v")

    def updates_shape(self, s):
        return s.indices_shape + s.shape[1:2]

    def input_types(self, s):
        return [(s.dtype, s.shape), (s.index_dtype, s.indices_shape), (s.index_dtype, s.indices_shape),
                (s.dtype, self.updates_shape(s))]

    def inputs(self, s, rng):
        pairs = unique_tuples(rng, math.prod(s.indices_shape), (s.shape[0], s.shape[2]))
        i, j = (pairs[:, k].reshape(s.indices_shape).astype(INDEX_DTYPES[s.index_dtype]) for k in range(2))
        return small_values(rng, s.shape, s.dtype), i, j, small_values(rng, self.updates_shape(s), s.dtype)

    def check(self, s):
        check_rank(s, rank=3)
        check_rank(s, rank=1, what="indices")
        if s.indices_shape[0] > s.shape[0] * s.shape[2]:
            raise StudyError(f"{self.name}: more (i, j) pairs than positions: some would share one")
        super().check(s)

    def plan(self, s):
        return advanced_index_plan(s.shape, (0, 2), s.indices_shape)

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, c, 8), "indices_shape": (r,)}

    def expression(self, s):
        return "x[i, :, j] = v"

    def numpy_expression(self, s):
        return "x.copy()[i, :, j] = v"

    def numpy_fn(self, s):
        def put(x, i, j, v):
            out = x.copy()
            out[i, :, j] = v
            return out

        return put

    def torch_fn(self, s):
        def put(x, i, j, v):
            out = x.clone()
            out[i, :, j] = v
            return out

        return put

    def torch_inplace_fn(self, s):
        def put_(x, i, j, v):
            x[i, :, j] = v
            return x

        return put_

    def reference_fn(self, s):
        return lambda x, i, j, v: advanced_assign(x, (0, 2), (i, j), v)

    def jax_fn(self, s):
        return lambda x, i, j, v: x.at[i, :, j].set(v)

    def gmx_program(self, s):
        return scatter_program(self.input_types(s), self.plan(s), DEFAULT_MODE, self.reduction, tuple_args=2)


class OnnxScatterND(ScatterVariant):
    """ONNX ScatterND: n-tuples into the leading dims, slices of the rest."""

    def updates_shape(self, s):
        return s.indices_shape[:-1] + s.shape[s.indices_shape[-1] :]

    def check(self, s):
        check_rank(s, at_least=1, what="indices")
        n = s.indices_shape[-1]
        if not 1 <= n <= s.rank:
            raise StudyError(f"{self.name}: the tuple size {n} must lie in [1, data rank {s.rank}]")
        if math.prod(s.indices_shape[:-1]) > math.prod(s.shape[:n]):
            raise StudyError(f"{self.name}: more tuples than positions: some would share one")
        super().check(s)

    def indices(self, s, rng):
        n = s.indices_shape[-1]
        return unique_tuples(rng, math.prod(s.indices_shape[:-1]), s.shape[:n]).reshape(s.indices_shape)

    def plan(self, s):
        return gather_nd_plan(s.shape, s.indices_shape, 0)

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, 4, c), "indices_shape": (r, 2)}

    def expression(self, s):
        return "onnx.ScatterND(x, idx, upd)"

    def numpy_expression(self, s):
        return "x.copy()[tuple(np.moveaxis(idx, -1, 0))] = upd"

    def numpy_fn(self, s):
        def put(x, idx, upd):
            out = x.copy()
            out[tuple(np.moveaxis(idx, -1, 0))] = upd
            return out

        return put

    def torch_fn(self, s):
        return lambda x, idx, upd: x.index_put(tuple(idx.unbind(-1)), upd)

    def torch_inplace_fn(self, s):
        return lambda x, idx, upd: x.index_put_(tuple(idx.unbind(-1)), upd)

    def reference_fn(self, s):
        return lambda x, idx, upd: scatter_nd(x, idx, upd)

    def jax_fn(self, s):
        def put(x, idx, upd):
            import jax.numpy as jnp

            return x.at[tuple(jnp.moveaxis(idx, -1, 0))].set(upd)

        return put

    def onnx_node(self, s):
        return "ScatterND", {}


# --- the gmx program ------------------------------------------------------------------------


def _tensor(element: str, shape) -> str:
    return f"tensor<{fmt_dims(shape)}x{element}>" if shape else f"tensor<{element}>"


def scatter_program(types, plan: ReshapePlan, mode: Mode, reduction: Reduction, tuple_args: int = 1) -> str:
    """`@main` over the frontend's arguments (data, `tuple_args` index
    arrays, updates): the gmx.scatter_multiaxis of `plan` between
    `tensor.reshape`s (several index arrays stacked into tuples with
    `tensor.concat`), its result reshaped to the data's shape."""
    (dtype, shape), *index_types, (_, updates_shape) = types
    index_element = index_types[0][0]
    names = ["x", *(f"i{k}" for k in range(tuple_args)), "u"]
    arguments = ", ".join(f"%{n}: {_tensor(t, s)}" for n, (t, s) in zip(names, types))
    lines, counter = [], iter(range(1000))

    def reshape(value: str, element: str, source, target) -> str:
        if tuple(source) == tuple(target):
            return value
        k = next(counter)
        lines.append(f"  %s{k} = arith.constant dense<[{', '.join(map(str, target))}]> : tensor<{len(target)}xi64>")
        lines.append(f"  %r{k} = tensor.reshape {value}(%s{k}) : ({_tensor(element, source)}, "
                     f"tensor<{len(target)}xi64>) -> {_tensor(element, target)}")
        return f"%r{k}"

    count = math.prod(index_types[0][1])
    columns = [reshape(f"%i{k}", index_element, index_types[k][1], (count, 1)) for k in range(tuple_args)]
    indices, folded = columns[0], (count, 1)
    if tuple_args > 1:
        folded = (count, tuple_args)
        lines.append(f"  %tuples = tensor.concat dim(1) {', '.join(columns)} : "
                     f"({', '.join(_tensor(index_element, (count, 1)) for _ in columns)}) -> {_tensor(index_element, folded)}")
        indices = "%tuples"
    else:
        indices = "%i0"
        folded = index_types[0][1]
    indices = reshape(indices, index_element, folded, plan.indices_shape)
    input = reshape("%x", dtype, shape, plan.input_shape)
    updates = reshape("%u", dtype, updates_shape, plan.output_shape)
    attributes = [f"axes = array<i64: {', '.join(map(str, plan.axes))}>"]
    if mode is not DEFAULT_MODE:
        attributes.append(f'{MODE_ATTR} = "{mode.value}"')
    if reduction is not DEFAULT_REDUCTION:
        attributes.append(f'{REDUCTION_ATTR} = "{reduction.value}"')
    op_types = ", ".join(_tensor(t, s) for t, s in ((dtype, plan.input_shape), (index_element, plan.indices_shape),
                                                    (dtype, plan.output_shape)))
    lines.append(f'  %out = "gmx.scatter_multiaxis"({input}, {indices}, {updates}) {{{", ".join(attributes)}}} '
                 f": ({op_types}) -> {_tensor(dtype, plan.input_shape)}")
    result = reshape("%out", dtype, plan.input_shape, shape)
    return (f"func.func @main({arguments}) -> {_tensor(dtype, shape)} {{\n" + "\n".join(lines)
            + f"\n  return {result} : {_tensor(dtype, shape)}\n}}\n")


# --- the entries ----------------------------------------------------------------------

# The form gmx-study and gmx-bench take by default (`first`): torch's
# StableHLO export, which --gmx-canonicalize raises into the op, where it has
# one (torch-mlir's TOSA and linalg-on-tensors scatters are not raised yet,
# and it exports neither index_put with a broadcast index nor scatter_reduce
# to StableHLO); else the entry's gmx program.
RAISED = Frontend.STABLEHLO
OWN = Frontend.GMX

SCATTER_VARIANTS: tuple[Variant, ...] = (
    TorchScatter("torch-scatter", "torch", ELEMENT, (4, 6), (4, 3), {"axis": 1}, negative=False,
                 index_dtypes=("i64",),
                 benchmarks=(BenchmarkShapes("scatter_elements", BenchmarkKind.ELEMENTWISE,
                                             ((1024, 8192), (1024, 4096)), ((8, 16), (8, 12)), {"axis": 1}),),
                 first=RAISED),
    GnnScatterAdd("gnn-scatter-add", "torch", BLOCK, (10, 4), (12,), negative=False, index_dtypes=("i64",),
                  reduction=Reduction.ADD,
                  benchmarks=(BenchmarkShapes("gnn_aggregate", BenchmarkKind.BLOCK,
                                              ((16384, 64), (65536,)), ((32, 8), (64,))),), first=RAISED),
    IndexAdd("index-add", "torch", BLOCK, (10, 4), (6,), negative=False, reduction=Reduction.ADD,
             benchmarks=(BenchmarkShapes("embedding_grad", BenchmarkKind.BLOCK,
                                         ((50000, 128), (32768,)), ((100, 16), (64,))),
                         BenchmarkShapes("moe_combine", BenchmarkKind.BLOCK,
                                         ((4096, 1024), (8192,)), ((16, 64), (32,)))), first=RAISED),
    AdvancedIndexPut("advanced-index-put", "torch", MULTIAXIS, (4, 5, 6), (3,), negative=False,
                     benchmarks=(BenchmarkShapes("advanced_put", BenchmarkKind.ELEMENTWISE,
                                                 ((64, 4096, 64), (1024,)), ((8, 32, 8), (16,))),), first=OWN),
    OnnxScatterND("onnx-scatter-nd", "onnx", ND, (4, 5, 6), (3, 2), negative=False, index_dtypes=("i64",),
                  benchmarks=(BenchmarkShapes("scatter_nd", BenchmarkKind.BLOCK,
                                              ((256, 256, 64), (32768, 2)), ((4, 5, 6), (3, 2))),), first=RAISED),
    ScatterReduce("scatter-reduce-amax", "torch", ELEMENT, (4, 6), (4, 8), {"axis": 1}, negative=False,
                  index_dtypes=("i64",), reduction=Reduction.MAX,
                  benchmarks=(BenchmarkShapes("scatter_amax", BenchmarkKind.ELEMENTWISE,
                                              ((1024, 4096), (1024, 4096)), ((8, 16), (8, 12)), {"axis": 1}),),
                  first=OWN),
    KvCacheUpdate("kv-cache-update", "gmx", BLOCK, (2, 4, 16, 8), (1,), negative=False, index_dtypes=("i64",),
                  donated=(0,),
                  benchmarks=(BenchmarkShapes("kv_cache_update", BenchmarkKind.BLOCK,
                                              ((8, 32, 4096, 128), (1,)), ((2, 4, 16, 8), (1,))),)),
)
