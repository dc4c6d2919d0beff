"""Property: any single PyTorch gather, exported to TOSA by torch-mlir and run
through --gmx-canonicalize, becomes exactly one gmx.gather_multiaxis (no
tosa.gather left) and computes PyTorch eager's result bit for bit.

The strategy draws random programs: torch.gather, take_along_dim with
broadcasting (index values spanning several multiples of the size, which
PyTorch wraps), index_select, advanced indexing with 1-3 index tensors at
random positions with broadcasting index shapes (negative values included),
and F.embedding; input rank 1-4 with dims 1-4, a random dim (negative too),
element type f32/f16/i32/i64 and index type i32/i64 where PyTorch allows it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir.fx")

import torch.nn.functional as F  # noqa: E402

import gmx.runtime  # noqa: E402
from gmx.dialect import OP_NAME  # noqa: E402
from gmx.tools.experiments.dtypes import from_torch  # noqa: E402
from gmx.tools.experiments.frontends import torch_to_tosa  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402
from torch_corpus import assert_bitwise_equal  # noqa: E402

DTYPES = {"f32": torch.float32, "f16": torch.float16, "i32": torch.int32, "i64": torch.int64}
INDEX_DTYPES = {"i32": torch.int32, "i64": torch.int64}


@dataclass(frozen=True)
class GatherCase:
    """One random gather program (hashable: exports are cached by case)."""

    kind: str  # gather | take_along_dim | index_select | advanced | embedding
    shape: tuple  # input (for embedding: the weight)
    dtype: str
    dim: int | None  # gather, take_along_dim, index_select
    index_shapes: tuple  # one shape per index tensor
    index_dtype: str
    positions: tuple  # advanced: input dim indexed by each index tensor
    negative: bool  # index values in [-span * size, span * size), else [0, size)
    span: int
    seed: int

    def describe(self) -> str:
        x = f"x: {self.dtype}{list(self.shape)}"
        idx = ", ".join(f"{self.index_dtype}{list(s)}" for s in self.index_shapes)
        if self.kind == "advanced":
            where = ", ".join(
                f"idx{self.positions.index(d)}" if d in self.positions else ":"
                for d in range(max(self.positions) + 1)
            )
            return f"{x}[{where}] with {idx}"
        if self.kind == "embedding":
            return f"F.embedding({idx}, w: {self.dtype}{list(self.shape)})"
        return f"torch.{self.kind}({x}, dim={self.dim}, {idx})"

    def axis_sizes(self) -> list:
        """The size of the input axis each index tensor indexes."""
        if self.kind == "advanced":
            return [self.shape[p] for p in self.positions]
        if self.kind == "embedding":
            return [self.shape[0]]
        return [self.shape[self.dim]]

    def forward(self, x, *indices):
        if self.kind == "gather":
            return torch.gather(x, self.dim, indices[0])
        if self.kind == "take_along_dim":
            return torch.take_along_dim(x, indices[0], self.dim)
        if self.kind == "index_select":
            return torch.index_select(x, self.dim, indices[0])
        if self.kind == "embedding":
            return F.embedding(indices[0], x)
        key = [slice(None)] * (max(self.positions) + 1)
        for position, index in zip(self.positions, indices):
            key[position] = index
        return x[tuple(key)]

    def inputs(self) -> tuple:
        g = torch.Generator().manual_seed(self.seed)
        dtype = DTYPES[self.dtype]
        if dtype.is_floating_point:
            x = torch.randn(self.shape, generator=g).to(dtype)
        else:
            x = torch.randint(-100, 100, self.shape, generator=g).to(dtype)
        indices = []
        for shape, size in zip(self.index_shapes, self.axis_sizes()):
            low, high = (-self.span * size, self.span * size) if self.negative else (0, size)
            indices.append(torch.randint(low, high, shape, generator=g).to(INDEX_DTYPES[self.index_dtype]))
        return (x, *indices)


@st.composite
def gather_cases(draw) -> GatherCase:
    """Every indexed axis has size >= 2: over a size-1 axis every valid index
    is 0 and the pass may fold the gather away (an identity or a broadcast)."""
    kind = draw(st.sampled_from(["advanced", "gather", "take_along_dim", "advanced", "index_select", "embedding"]))
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    index_dtype = draw(st.sampled_from(sorted(INDEX_DTYPES)))
    seed = draw(st.integers(0, 2**31 - 1))
    size = st.integers(1, 4)
    axis_size = st.integers(2, 4)
    if kind == "embedding":
        shape = (draw(axis_size), draw(size))
        index_shape = tuple(draw(st.lists(size, min_size=1, max_size=2)))
        weight_dtype = "f32" if dtype.startswith("i") else dtype
        return GatherCase(kind, shape, weight_dtype, None, (index_shape,), index_dtype, (), False, 1, seed)
    shape = draw(st.lists(size, min_size=1, max_size=4))
    rank = len(shape)
    if kind == "advanced":
        # 1-3 index tensors at distinct positions (in any order), with shapes
        # broadcasting to a common shape of rank 1-2; values in [-size, size)
        count = draw(st.integers(1, min(3, rank)))
        positions = tuple(draw(st.permutations(range(rank)))[:count])
        for p in positions:
            shape[p] = draw(axis_size)
        common = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
        index_shapes = []
        for _ in positions:  # drop leading dims, and set some of the rest to 1
            suffix = common[draw(st.integers(0, len(common) - 1)):]
            index_shapes.append(tuple(n if draw(st.booleans()) else 1 for n in suffix))
        return GatherCase(kind, tuple(shape), dtype, None, tuple(index_shapes), index_dtype, positions, True, 1,
                          seed)
    dim = draw(st.integers(-rank, rank - 1))
    axis = dim % rank
    shape[axis] = draw(axis_size)
    shape = tuple(shape)
    if kind == "gather":  # index no larger than the input off the axis
        index_shape = tuple(draw(size) if d == axis else draw(st.integers(1, n)) for d, n in enumerate(shape))
        return GatherCase(kind, shape, dtype, dim, (index_shape,), index_dtype, (), False, 1, seed)
    if kind == "take_along_dim":  # off the axis: broadcast both ways
        index_shape = tuple(
            draw(size) if d == axis or n == 1 else draw(st.sampled_from([1, n])) for d, n in enumerate(shape)
        )
        # i64 only (PyTorch's rule); PyTorch wraps any value modulo the size
        return GatherCase(kind, shape, dtype, dim, (index_shape,), "i64", (), True, draw(st.integers(1, 3)), seed)
    index_shape = (draw(size),)  # index_select
    return GatherCase(kind, shape, dtype, dim, (index_shape,), index_dtype, (), False, 1, seed)


@functools.lru_cache(maxsize=256)
def exported(case: GatherCase) -> str:
    return torch_to_tosa(case.forward, case.inputs())


@settings(derandomize=True, max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gather_cases())
def test_any_torch_gather_becomes_one_gmx_op(case):
    note(case.describe())
    event(f"{case.kind}, rank {len(case.shape)}")
    inputs = case.inputs()
    with torch.no_grad():
        expected = from_torch(case.forward(*inputs))
    text = exported(case)
    unfused = run_pipeline(text, []).counts
    assert unfused["tosa.gather"] == 1, f"the generator made {unfused['tosa.gather']} tosa.gather: {case.describe()}"
    fused = run_pipeline(text, ["gmx-canonicalize"])
    note(fused.text)
    counts = fused.counts
    assert counts[OP_NAME] == 1, f"{counts[OP_NAME]} {OP_NAME} ops, expected 1"
    assert counts["tosa.gather"] == 0, "tosa.gather left after the pass"
    result = gmx.runtime.run(fused.text, *(from_torch(t) for t in inputs))
    assert_bitwise_equal(result, (expected,), case.describe())
