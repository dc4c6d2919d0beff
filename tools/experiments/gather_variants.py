"""The gather entries of the one variant registry (`variants`): one
`Variant` subclass per way a frontend writes a gather, and `GATHER_VARIANTS`.

Index values: eager torch.gather, index_select and embedding reject negative
indices, so those use [0, size); ONNX, torch.take, take_along_dim, advanced
indexing and gmx accept [-size, size), and use all of it. A variant with an
out-of-range `mode` (numpy.take's "wrap" and "clip", JAX's "fill") uses
[-3 size, 3 size): most indices lie outside the axis.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np

from gmx.dialect.modes import Mode, mode_rule
from gmx.dialect.shapes import GatherShapeError, infer_output_shape, logical_indices_shape

from .dtypes import INDEX_DTYPES, random_data
from .frontends import gmx_program
from .variant_base import (
    MODE_FILL_VALUE,
    BenchmarkKind,
    BenchmarkShapes,
    Study,
    StudyError,
    Variant,
    check_axis,
    check_broadcastable,
    check_rank,
    check_same_rank,
    check_within,
    element_sweep_options,
    fmt_dims,
    index_tuples,
    index_values,
    sweep_dims,
)

# The equivalence classes of docs/semantics.md#equivalence-classes.
ELEMENT = "single axis element gather"
FLAT = "single axis element gather, 1-D input"
BLOCK = "single axis block gather"
ND = "multiple contiguous axes block gather"
MULTIAXIS = "multiaxis gather"



def _prefix(x, idx, axis: int):
    """`x` cut to `idx`'s extent off `axis` (torch.gather reads only that part)."""
    return x[tuple(slice(None) if d == axis else slice(0, m) for d, m in enumerate(idx.shape))]


def _wrap(idx, size: int):
    """Negative indices wrapped once (torch has no gather that does it)."""
    import torch

    return torch.where(idx < 0, idx + size, idx)


# --- shared by frontends -------------------------------------------------------


class BlockGather(Variant):
    """ONNX Gather, numpy.take, index_select: blocks of the data along the axis."""

    def check(self, s):
        check_axis(s)

    def numpy_expression(self, s):
        return f"np.take(x, idx, axis={s.axis})"

    def numpy_fn(self, s):
        return lambda x, idx: np.take(x, idx, axis=s.axis)

    def onnx_graph(self, s):
        return [("Gather", ["x", "idx"], ["out"], {"axis": s.axis})]

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, c + 16), "indices_shape": (c,), "axis": 1}


class ElementGather(Variant):
    """ONNX GatherElements, torch.gather: same rank, indices no larger than
    the data off the axis."""

    def check(self, s):
        check_axis(s)
        check_same_rank(s)
        check_within(s)

    def numpy_expression(self, s):
        return f"np.take_along_axis(x, idx, {s.axis})"

    def numpy_fn(self, s):
        return lambda x, idx: np.take_along_axis(_prefix(x, idx, s.axis_index), idx, s.axis)

    def onnx_graph(self, s):
        return [("GatherElements", ["x", "idx"], ["out"], {"axis": s.axis})]

    def sweep_options(self, n):
        return element_sweep_options(n)


# --- ONNX -----------------------------------------------------------------------


class OnnxGather(BlockGather):
    def expression(self, s):
        return f"onnx.Gather(x, idx, axis={s.axis})"

    def torch_fn(self, s):
        lead = (slice(None),) * s.axis_index
        return lambda x, idx: x[lead + (idx,)]

    def onnx_node(self, s):
        return "Gather", {"axis": s.axis}


class OnnxGatherElements(ElementGather):
    def expression(self, s):
        return f"onnx.GatherElements(x, idx, axis={s.axis})"

    def torch_fn(self, s):
        import torch

        size = self.indexed_size(s)
        return lambda x, idx: torch.gather(x, s.axis, _wrap(idx, size))

    def onnx_node(self, s):
        return "GatherElements", {"axis": s.axis}


class OnnxGatherND(Variant):
    def inputs(self, s, rng):
        b, n = s.batch_dims, s.indices_shape[-1]
        sizes = s.shape[b : b + n]
        return random_data(s.shape, s.dtype, rng), index_tuples(rng, s.indices_shape[:-1], sizes, True, s.index_dtype)

    def check(self, s):
        q, b = len(s.indices_shape), s.batch_dims
        check_rank(s, at_least=1, what="indices")
        if not 0 <= b < min(q, s.rank):
            raise StudyError(
                f"{self.name}: batch_dims {b} must lie in [0, min(data rank {s.rank}, indices rank {q}))"
            )
        n = s.indices_shape[-1]
        if not 1 <= n <= s.rank - b:
            raise StudyError(
                f"{self.name}: the last indices dim ({n}, the tuple size) must lie in "
                f"[1, data rank {s.rank} - batch_dims {b}]"
            )
        if s.indices_shape[:b] != s.shape[:b]:
            raise StudyError(
                f"{self.name}: the {b} batch dims must be equal: data {fmt_dims(s.shape[:b])}, "
                f"indices {fmt_dims(s.indices_shape[:b])}"
            )

    def expression(self, s):
        return f"onnx.GatherND(x, idx, batch_dims={s.batch_dims})"

    def numpy_expression(self, s):
        return "x[*batch_aranges, *np.moveaxis(idx, -1, 0)]"

    def numpy_fn(self, s):
        return lambda x, idx: x[_batch_grids(np.arange, idx, s.batch_dims) + tuple(np.moveaxis(idx, -1, 0))]

    def torch_fn(self, s):
        import torch

        return lambda x, idx: x[_batch_grids(torch.arange, idx, s.batch_dims) + tuple(idx.unbind(-1))]

    def onnx_node(self, s):
        return "GatherND", {"batch_dims": s.batch_dims}

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, 4, c), "indices_shape": (r, 2), "batch_dims": 0}


def _batch_grids(arange, idx, b: int) -> tuple:
    """Open grids over the first `b` dims of idx's tuple positions."""
    positions = len(idx.shape) - 1
    return tuple(
        arange(idx.shape[k]).reshape((1,) * k + (idx.shape[k],) + (1,) * (positions - k - 1)) for k in range(b)
    )


# --- torch ----------------------------------------------------------------------


class Take(Variant):
    def indexed_size(self, s):
        return math.prod(s.shape)

    def expression(self, s):
        return "torch.take(x, idx)"

    def numpy_expression(self, s):
        return "np.take(x, idx)"

    def numpy_fn(self, s):
        return lambda x, idx: np.take(x, idx)

    def onnx_graph(self, s):
        flat = ("Constant", [], ["flat"], {"value": np.array([-1], np.int64)})
        return [flat, ("Reshape", ["x", "flat"], ["flat_x"], {}), ("Gather", ["flat_x", "idx"], ["out"], {"axis": 0})]

    def torch_fn(self, s):
        import torch

        return lambda x, idx: torch.take(x, idx)

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, c + 16), "indices_shape": (r, c)}


class TakeAlongAxis(ElementGather):
    def check(self, s):
        check_axis(s)
        check_same_rank(s)
        check_broadcastable(s)

    def expression(self, s):
        return f"torch.take_along_dim(x, idx, dim={s.axis})"

    def numpy_fn(self, s):
        return lambda x, idx: np.take_along_axis(x, idx, s.axis)

    def onnx_graph(self, s):
        """GatherElements after expanding each side to the broadcast shape
        off the axis (ONNX's GatherElements does not broadcast)."""
        a = s.axis_index
        wide = [max(n, m) for n, m in zip(s.shape, s.indices_shape)]
        nodes, names = [], {}
        for name, shape in (("x", s.shape), ("idx", s.indices_shape)):
            target = [shape[d] if d == a else wide[d] for d in range(s.rank)]
            names[name] = name
            if list(shape) != target:
                nodes.append(("Constant", [], [f"{name}_shape"], {"value": np.array(target, np.int64)}))
                nodes.append(("Expand", [name, f"{name}_shape"], [f"{name}_wide"], {}))
                names[name] = f"{name}_wide"
        return nodes + [("GatherElements", [names["x"], names["idx"]], ["out"], {"axis": s.axis})]

    def torch_fn(self, s):
        import torch

        return lambda x, idx: torch.take_along_dim(x, idx, s.axis)


class TorchGather(ElementGather):
    def expression(self, s):
        return f"torch.gather(x, {s.axis}, idx)"

    def torch_fn(self, s):
        import torch

        return lambda x, idx: torch.gather(x, s.axis, idx)


class IndexSelect(BlockGather):
    def check(self, s):
        check_axis(s)
        check_rank(s, rank=1, what="indices")

    def expression(self, s):
        return f"torch.index_select(x, {s.axis}, idx)"

    def torch_fn(self, s):
        import torch

        return lambda x, idx: torch.index_select(x, s.axis, idx)


class Embedding(Variant):
    def arguments(self, s):
        return ("idx", "w")

    def input_types(self, s):
        return [(s.index_dtype, s.indices_shape), (s.dtype, s.shape)]

    def indexed_size(self, s):
        return s.shape[0]

    def inputs(self, s, rng):
        w, idx = super().inputs(s, rng)
        return idx, w

    def check(self, s):
        check_rank(s, rank=2)

    def expression(self, s):
        return "F.embedding(idx, w)"

    def numpy_expression(self, s):
        return "np.take(w, idx, axis=0)"

    def numpy_fn(self, s):
        return lambda idx, w: np.take(w, idx, axis=0)

    def onnx_graph(self, s):
        return [("Gather", ["w", "idx"], ["out"], {"axis": 0})]

    def torch_fn(self, s):
        import torch.nn.functional as F

        return lambda idx, w: F.embedding(idx, w)

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, c), "indices_shape": (r,)}


class AdvancedIndex(Variant):
    def arguments(self, s):
        return ("x",) + tuple(p for p in s.pattern if p != ":")

    def input_types(self, s):
        return [(s.dtype, s.shape)] + [(s.index_dtype, s.indices_shape)] * (len(self.arguments(s)) - 1)

    def inputs(self, s, rng):
        data = random_data(s.shape, s.dtype, rng)
        sizes = [s.shape[d] for d, p in enumerate(s.pattern) if p != ":"]
        return (data,) + tuple(index_values(rng, s.indices_shape, n, True, s.index_dtype) for n in sizes)

    def check(self, s):
        check_pattern(s)

    def expression(self, s):
        names = iter(self.arguments(s)[1:])
        return f"x[{', '.join(':' if p == ':' else next(names) for p in s.pattern)}]"

    def numpy_expression(self, s):
        return self.expression(s)

    def numpy_fn(self, s):
        return _indexer(s.pattern)

    def torch_fn(self, s):
        return _indexer(s.pattern)

    def onnx_graph(self, s):
        """One index: Gather along its dim. Several: the indexed dims moved
        to the front (Transpose) and GatherND of the stacked indices; None
        where numpy keeps adjacent indexed dims in place past dim 0 (the
        result would need a transpose back)."""
        names = [(d, p) for d, p in enumerate(s.pattern) if p != ":"]
        if len(names) == 1:
            (d, name), = names
            return [("Gather", ["x", name], ["out"], {"axis": d})]
        dims = [d for d, _ in names]
        if dims == list(range(dims[0], dims[0] + len(dims))) and dims[0] > 0:
            return None  # adjacent past dim 0: numpy keeps the result dims there
        rest = [d for d in range(s.rank) if d not in dims]
        nodes = [("Transpose", ["x"], ["front"], {"perm": dims + rest})]
        last = np.array([-1], np.int64)
        nodes.append(("Constant", [], ["last"], {"value": last}))
        for _, name in names:
            if s.index_dtype != "i64":  # GatherND reads int64 only
                nodes.append(("Cast", [name], [f"{name}_64"], {"to": 7}))  # TensorProto.INT64
                name = f"{name}_64"
            nodes.append(("Unsqueeze", [name, "last"], [f"{name}_1"], {}))
        stacked = [f"{name}_1" if s.index_dtype == "i64" else f"{name}_64_1" for _, name in names]
        nodes.append(("Concat", stacked, ["tuples"], {"axis": -1}))
        return nodes + [("GatherND", ["front", "tuples"], ["out"], {})]

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, c, 8), "indices_shape": (r,), "pattern": ("i", ":", "j")}


def _indexer(pattern: tuple[str, ...]) -> Callable:
    """`x[i, :, j]` for pattern (i, :, j): the same code indexes numpy and torch."""

    def index(x, *indices):
        given = iter(indices)
        return x[tuple(slice(None) if p == ":" else next(given) for p in pattern)]

    return index


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


def parse_pattern(text: str) -> tuple[str, ...]:
    """`i,:,j` -> ("i", ":", "j"); raises StudyError on a malformed entry."""
    entries = tuple(e.strip() for e in text.split(","))
    for entry in entries:
        if entry != ":" and not _NAME.match(entry):
            raise StudyError(
                f"advanced-index: pattern entry '{entry}' in '{text}' must be ':' or an index name such as i"
            )
    return entries


def check_pattern(s: Study) -> None:
    names = [p for p in s.pattern if p != ":"]
    if len(s.pattern) > s.rank:
        raise StudyError(
            f"advanced-index: pattern '{','.join(s.pattern)}' has {len(s.pattern)} entries, "
            f"more than the {s.rank} dims of the data (--shape {fmt_dims(s.shape)})"
        )
    if not names:
        raise StudyError(f"advanced-index: pattern '{','.join(s.pattern)}' names no index tensor")
    for name in names:
        if names.count(name) > 1 or name == "x":
            why = "is the data's name" if name == "x" else "appears twice"
            raise StudyError(f"advanced-index: index name '{name}' {why} in pattern '{','.join(s.pattern)}'")


# --- numpy.take(mode=...) as gmx ---------------------------------------------------

MODE_RANGE = 3  # mode variants draw indices from [-3 size, 3 size)


class TakeMode(Variant):
    """numpy.take(x, idx, axis, mode=...) (JAX's jnp.take for "fill") as the
    gmx op it is: idx has unit dims but at the axis, `axes = [axis]`."""

    def inputs(self, s, rng):
        size = max(self.indexed_size(s), 1)  # an empty axis (fill): any values
        low, high = -MODE_RANGE * size, MODE_RANGE * size
        return random_data(s.shape, s.dtype, rng), rng.integers(low, high, s.indices_shape).astype(INDEX_DTYPES[s.index_dtype])

    def check(self, s):
        check_axis(s)
        check_same_rank(s)
        off_axis = [m for d, m in enumerate(s.indices_shape) if d != s.axis_index]
        if any(m != 1 for m in off_axis):
            raise StudyError(f"{self.name}: indices must have size 1 off the axis {s.axis_index}, got {fmt_dims(s.indices_shape)}")
        if self.indexed_size(s) == 0 and mode_rule(self.mode).empty_axis_is_error:
            raise StudyError(f"{self.name}: the axis {s.axis_index} has size 0: every index is out of bounds")

    def gmx_program(self, s):
        types = self.input_types(s)
        return gmx_program(*types, [s.axis_index], mode=self.mode, fill_value=self.fill_value)

    def expression(self, s):
        fill = f", fill_value={MODE_FILL_VALUE}" if self.fill_value is not None else ""
        return f'gmx.gather_multiaxis(x, idx, axes=[{s.axis_index}], mode="{self.mode.value}"{fill})'

    def numpy_expression(self, s):
        if self.fill_value is not None:
            return f"np.where(valid, np.take(x, where(valid, wrapped, 0), axis={s.axis}), {MODE_FILL_VALUE})"
        return f'np.take(x, idx.reshape(-1), axis={s.axis}, mode="{self.mode.value}")'

    def numpy_fn(self, s):
        axis, size = s.axis_index, self.indexed_size(s)
        if self.fill_value is None:
            return lambda x, idx: np.take(x, idx.reshape(-1).astype(np.int64), axis=axis, mode=self.mode.value)

        def fill(x, idx):
            wide = idx.reshape(-1).astype(np.int64)
            wrapped = np.where(wide < 0, wide + size, wide)
            valid = (wrapped >= 0) & (wrapped < size)
            shape = [1] * x.ndim
            shape[axis] = valid.size
            if size == 0:  # nothing to read: all fill values
                return np.full(x.shape[:axis] + (valid.size,) + x.shape[axis + 1:], MODE_FILL_VALUE, x.dtype)
            taken = np.take(x, np.where(valid, wrapped, 0), axis=axis)
            return np.where(valid.reshape(shape), taken, np.asarray(MODE_FILL_VALUE).astype(x.dtype))

        return fill

    def torch_fn(self, s):
        import torch

        axis, size = s.axis_index, self.indexed_size(s)

        def take(x, idx):
            flat = idx.reshape(-1).to(torch.int64)
            if self.mode is Mode.WRAP:
                return torch.index_select(x, axis, torch.remainder(flat, size))
            if self.mode is Mode.CLIP:
                return torch.index_select(x, axis, flat.clamp(0, size - 1))
            wrapped = torch.where(flat < 0, flat + size, flat)
            valid = (wrapped >= 0) & (wrapped < size)
            taken = torch.index_select(x, axis, torch.where(valid, wrapped, 0))
            shape = [1] * x.dim()
            shape[axis] = flat.numel()
            return torch.where(valid.reshape(shape), taken, torch.tensor(MODE_FILL_VALUE, dtype=x.dtype))

        return take

    def onnx_graph(self, s):
        """Gather of the flattened indices after Mod (floor modulo for
        integers, fmod=0) or Clip; ONNX has no fill."""
        if self.fill_value is not None:
            return None
        size, dtype = self.indexed_size(s), INDEX_DTYPES[s.index_dtype]
        nodes = [("Constant", [], ["flat"], {"value": np.array([-1], np.int64)}),
                 ("Reshape", ["idx", "flat"], ["flat_idx"], {})]
        if self.mode is Mode.WRAP:
            nodes += [("Constant", [], ["size"], {"value": np.array(size, dtype)}),
                      ("Mod", ["flat_idx", "size"], ["mapped"], {"fmod": 0})]
        else:
            nodes += [("Constant", [], ["low"], {"value": np.array(0, dtype)}),
                      ("Constant", [], ["high"], {"value": np.array(size - 1, dtype)}),
                      ("Clip", ["flat_idx", "low", "high"], ["mapped"], {})]
        return nodes + [("Gather", ["x", "mapped"], ["out"], {"axis": s.axis})]

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, c + 16), "indices_shape": (1, c), "axis": 1}


# --- gmx --------------------------------------------------------------------------


class Multiaxis(Variant):
    def inputs(self, s, rng):
        logical = logical_indices_shape(s.indices_shape, s.axes)
        sizes = [s.shape[a] for a in s.axes]
        tuples = index_tuples(rng, logical, sizes, True, s.index_dtype)
        return random_data(s.shape, s.dtype, rng), tuples.reshape(s.indices_shape)

    def check(self, s):
        if not s.axes:
            raise StudyError("multiaxis: --axes must name at least one axis")
        try:
            infer_output_shape(s.shape, s.indices_shape, s.axes)
        except GatherShapeError as error:
            raise StudyError(f"multiaxis: {error}") from None

    def gmx_program(self, s):
        return gmx_program(*self.input_types(s), s.axes)

    def expression(self, s):
        return f"gmx.gather_multiaxis(x, idx, axes={list(s.axes)})"

    def numpy_expression(self, s):
        return f"gmx.reference.gather_multiaxis(x, idx, {list(s.axes)})"

    def numpy_fn(self, s):
        from gmx.reference import gather_multiaxis

        return lambda x, idx: gather_multiaxis(x, idx, s.axes)

    def torch_fn(self, s):
        return _torch_multiaxis(s.axes)

    def sweep_options(self, n):
        r, c = sweep_dims(n)
        return {"shape": (r, c, 8), "indices_shape": (r, 1, 2), "axes": (2, 0)}


def _torch_multiaxis(axes: tuple[int, ...]) -> Callable:
    """gmx.reference.gather_multiaxis in torch: open grids, one advanced index."""
    import torch

    def gather(x, idx):
        out = infer_output_shape(tuple(x.shape), tuple(idx.shape), axes)
        coords = idx.reshape(*logical_indices_shape(tuple(idx.shape), axes), len(axes))
        grid = []
        for d, size in enumerate(out):
            values = torch.zeros(size, dtype=torch.int64) if x.shape[d] == 1 else torch.arange(size)
            grid.append(values.reshape([size if k == d else 1 for k in range(len(out))]))
        for j, axis in enumerate(axes):
            grid[axis] = _wrap(coords[..., j], x.shape[axis])
        return x[tuple(grid)]

    return gather


# --- the entries ----------------------------------------------------------------------

GATHER_VARIANTS: tuple[Variant, ...] = (
    OnnxGather("onnx-gather", "onnx", BLOCK, (4, 5, 6), (3, 2), {"axis": 1}),
    OnnxGatherElements("onnx-gather-elements", "onnx", ELEMENT, (4, 5, 6), (4, 3, 6), {"axis": 1}),
    OnnxGatherND("onnx-gather-nd", "onnx", ND, (4, 5, 6), (3, 2), {"batch_dims": 0}, index_dtypes=("i64",)),
    Take("take", "torch", FLAT, (4, 5, 6), (3, 4), index_dtypes=("i64",)),
    TakeAlongAxis("take-along-axis", "torch", ELEMENT, (4, 5, 6), (4, 3, 6), {"axis": 1}, index_dtypes=("i64",),
                  benchmarks=(BenchmarkShapes("take_along_dim_bcast", BenchmarkKind.BROADCAST,
                                              ((256, 256, 64), (256, 256, 1)), ((8, 16, 4), (8, 12, 1)),
                                              {"axis": 1}),)),
    TorchGather("torch-gather", "torch", ELEMENT, (4, 5, 6), (4, 3, 6), {"axis": 1}, negative=False,
                benchmarks=(BenchmarkShapes("gather_elements", BenchmarkKind.ELEMENTWISE,
                                            ((256, 256, 64), (256, 256, 64)), ((8, 16, 4), (8, 12, 4)),
                                            {"axis": 1}),)),
    IndexSelect("index-select", "torch", BLOCK, (4, 5, 6), (3,), {"axis": 1}, negative=False,
                benchmarks=(BenchmarkShapes("index_select", BenchmarkKind.BLOCK,
                                            ((50000, 256), (16384,)), ((100, 16), (64,)), {"axis": 0}),
                            BenchmarkShapes("onnx_gather_axis1", BenchmarkKind.BLOCK,
                                            ((64, 4096, 64), (1024,)), ((4, 32, 8), (16,)), {"axis": 1}))),
    Embedding("embedding", "torch", BLOCK, (10, 4), (2, 3), negative=False),
    AdvancedIndex("advanced-index", "torch", MULTIAXIS, (4, 5, 6), (3,), {"pattern": ("i", ":", "j")},
                  # an embedding as a lookup `w[idx]`: one plain row gather (torch-mlir
                  # wraps negative indices first; F.embedding, the `embedding` variant, does not)
                  benchmarks=(BenchmarkShapes("embedding", BenchmarkKind.BLOCK,
                                              ((50000, 128), (256, 128)), ((100, 8), (4, 6)),
                                              {"pattern": ("i",)}, linearised=False),
                              BenchmarkShapes("advanced", BenchmarkKind.ELEMENTWISE,
                                              ((64, 4096, 64), (1024,)), ((8, 32, 8), (16,)),
                                              {"pattern": ("i", ":", "j")}))),
    Multiaxis("multiaxis", "gmx", MULTIAXIS, (4, 5, 6), (3, 1, 2), {"axes": (2, 0)}),
    *(TakeMode(f"take-{mode.value}", "gmx", BLOCK, (4, 5, 6), (1, 3, 1), {"axis": 1}, mode=mode)
      for mode in (Mode.WRAP, Mode.CLIP, Mode.FILL)),
)
