"""The decisions of --gmx-canonicalize about index values the user computed,
without IR: which sums are linearisations (`linear_indices.exact_split`), what
a frontend's negative-index normalisation is, and which constant coordinate
produces a broadcast output dim; and a property over random PyTorch programs
of those forms: one gmx op, no linearisation left, PyTorch's result bit for bit."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from gmx.passes.raising.linear_indices import IN_RANGE, NORMALISED, UNKNOWN, exact_split
from gmx.passes.raising.gather_spec import Indexed, Iota, Zero
from gmx.passes.raising.spec_rewrites import broadcast_dims, broadcast_index_candidates
from gmx.passes.raising.index_maps import normalises_negative_indices, wraps_like_gmx
from gmx.passes.raising.integer_ops import wrap_to_width

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

# a (3, 4) input flattened: row stride 4, column stride 1
SIZES = {4: 3, 1: 4}


def test_a_coordinate_per_stride_splits():
    # ONNX GatherND: both coordinates normalised for their dims
    assert exact_split([(4, NORMALISED), (1, NORMALISED)], SIZES)
    # i * 4 + arange(4): the low term is known to be a column
    assert exact_split([(4, UNKNOWN), (1, IN_RANGE)], SIZES)


def test_the_users_terms_do_not_split():
    # i * 4 + j: j = 5 is a valid flat index and no column
    assert not exact_split([(4, UNKNOWN), (1, UNKNOWN)], SIZES)
    # index_select(0, i + j) under a row stride of 4: both terms at 4
    assert not exact_split([(4, UNKNOWN), (4, UNKNOWN)], SIZES)
    # index_select(0, i * 3): 12 is no stride of the input
    assert not exact_split([(12, UNKNOWN)], SIZES)
    assert not exact_split([(12, IN_RANGE), (4, UNKNOWN)], SIZES)


def test_a_normalisation_maps_valid_indices_to_positions():
    size = 5
    assert normalises_negative_indices(lambda t: np.where(t < 0, t + size, t), size)
    # a narrowing cast around it changes nothing on [-size, size)
    assert normalises_negative_indices(lambda t: wrap_to_width(np.where(t < 0, t + size, t), 32), size)
    assert not normalises_negative_indices(lambda t: t, size)  # the identity keeps negatives
    assert not normalises_negative_indices(lambda t: np.where(t < 0, t + 4, t), size)  # another dim's
    assert not normalises_negative_indices(lambda t: np.where(t < 0, t + size, t), 0)


def _onnx_where_in_tosa(added: int):
    """torch-mlir's TOSA of ONNX's `where(i < 0, i + n, i)`: the add in i32
    after a narrowing cast, the result narrowed again for the scatter."""
    return lambda t: wrap_to_width(np.where(t < 0, wrap_to_width(wrap_to_width(t, 32) + added, 32), t), 32)


def test_gmx_reads_the_narrowed_index_where_the_program_adds_after_narrowing():
    size, narrowed = 5, (lambda t: wrap_to_width(t, 32))
    # on the wide index: the narrowing maps 2**32 + 1 to 1, a position gmx would reject
    assert not wraps_like_gmx(_onnx_where_in_tosa(size), 64, size)
    # on the narrowed index: wherever the program's position is valid, gmx reads it
    assert wraps_like_gmx(_onnx_where_in_tosa(size), 64, size, narrowed)
    assert not wraps_like_gmx(_onnx_where_in_tosa(size - 1), 64, size, narrowed)  # another dim's wrap
    assert wraps_like_gmx(lambda t: np.where(t < 0, t + size, t), 64, size)  # the wide where: the index itself


def test_broadcast_dims_are_produced_by_no_coordinate():
    # w[arange(8).expand(2, 8)] on (10, 4): the iotas give the 8 and the 4
    assert broadcast_dims([Iota(1), Iota(2)], [2, 8, 4]) == [0]
    # an index tensor spanning the 2 produces it
    index = Indexed(None, (2, 8, 1))
    assert broadcast_dims([index, Iota(2)], [2, 8, 4]) == []
    assert broadcast_dims([Zero(), Iota(1)], [1, 4]) == []


def test_the_broadcast_index_is_the_iota_after_the_broadcast_dims():
    # w[arange(8).expand(2, 8)]: the rows' iota (output dim 1), not the columns'
    assert broadcast_index_candidates([Iota(1), Iota(2)], [2, 8, 4], [10, 4])[0] == 0
    # x[:, arange(3).expand(2, 3)]: out (4, 2, 3, 6), the middle iota
    assert broadcast_index_candidates([Iota(0), Iota(2), Iota(3)], [4, 2, 3, 6], [4, 5, 6])[0] == 1
    # a zero on a unit dim cannot produce anything; on a real dim it can, last
    assert broadcast_index_candidates([Zero(), Iota(1)], [3, 4], [1, 4]) == [1]
    assert broadcast_index_candidates([Zero(), Iota(1)], [3, 4], [5, 4]) == [1, 0]


# --- property: random programs through torch-mlir ----------------------------

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir.fx")

import gmx.runtime  # noqa: E402
from gmx.dialect import OP_NAME  # noqa: E402
from gmx.tools.experiments.dtypes import from_torch  # noqa: E402
from gmx.tools.experiments.frontends import torch_to_tosa  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402
from torch_corpus import assert_bitwise_equal  # noqa: E402


@dataclass(frozen=True)
class ArithmeticCase:
    """x.index_select(dim, a * i + b * j + c), the same through x[..., idx],
    y.reshape(-1).index_select(0, a * i + j) (j beyond y's columns), y's
    rows as y.reshape(-1)[i[:, None] * a + arange(a)] (block), or a constant
    arange(n) broadcast by expand / repeat to (m, n) at `dim`."""

    kind: str  # select | subscript | flat | block | expand | repeat
    shape: tuple
    dim: int
    a: int
    b: int
    c: int
    count: int  # index length (select, subscript, flat) or m (expand, repeat)
    n: int  # expand, repeat: the arange's length
    seed: int

    def forward(self, x, *indices):
        if self.kind in ("expand", "repeat"):
            arange = torch.arange(self.n)
            index = arange.expand(self.count, self.n) if self.kind == "expand" else arange.repeat(self.count, 1)
            return x[(slice(None),) * self.dim + (index,)]
        if self.kind == "block":
            return x.reshape(-1)[(indices[0][:, None] * self.a + torch.arange(self.a)).reshape(-1)]
        i, j = indices
        if self.kind == "flat":
            return x.reshape(-1).index_select(0, i * self.a + j)
        index = i * self.a + j * self.b + self.c
        if self.kind == "select":
            return x.index_select(self.dim, index)
        return x[(slice(None),) * self.dim + (index,)]

    def inputs(self) -> tuple:
        g = torch.Generator().manual_seed(self.seed)
        x = torch.randn(self.shape, generator=g)
        if self.kind in ("expand", "repeat"):
            return (x,)
        if self.kind == "block":  # rows, negative ones too
            return (x, torch.randint(-self.shape[0], self.shape[0], (self.count,), generator=g))
        if self.kind == "flat":  # i * a + j < size with j up to 2 a - 1: beyond y's columns
            rows = max((math.prod(self.shape) - 2 * self.a + 1) // self.a, 1)
            i = torch.randint(0, rows, (self.count,), generator=g)
            return (x, i, torch.randint(0, 2 * self.a, (self.count,), generator=g))
        # i * a + j * b + c < size: i below `rows`, j in {0, 1}
        rows = max((self.shape[self.dim] - self.c - self.b) // self.a, 1)
        i = torch.randint(0, rows, (self.count,), generator=g)
        j = torch.randint(0, 2, (self.count,), generator=g)
        return (x, i, j)


@st.composite
def arithmetic_cases(draw) -> ArithmeticCase:
    kind = draw(st.sampled_from(["select", "subscript", "flat", "block", "expand", "repeat"]))
    # no size-1 dims: their linearisation is another form
    shape = list(draw(st.lists(st.integers(2, 4), min_size=1, max_size=3)))
    dim = draw(st.integers(0, len(shape) - 1))
    a, b, c = draw(st.integers(1, 3)), draw(st.integers(0, 2)), draw(st.integers(0, 2))
    n = draw(st.integers(1, 4))
    if kind in ("flat", "block"):
        shape = [draw(st.integers(2, 4)), draw(st.integers(2, 4))]
        a = shape[1] if kind == "block" else draw(st.sampled_from([shape[1] - 1, shape[1]]))
    elif kind in ("expand", "repeat"):
        shape[dim] = max(shape[dim], n)
    else:
        shape[dim] = max(shape[dim], a * 2 + b + c + 1)
    seed = draw(st.integers(0, 2**31 - 1))
    return ArithmeticCase(kind, tuple(shape), dim, a, b, c, draw(st.integers(1, 3)), n, seed)


@settings(derandomize=True, max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arithmetic_cases())
def test_user_index_arithmetic_and_broadcast_constants_fuse(case):
    note(repr(case))
    event(case.kind)
    inputs = case.inputs()
    with torch.no_grad():
        expected = from_torch(case.forward(*inputs))
    fused = run_pipeline(torch_to_tosa(case.forward, inputs), ["gmx-canonicalize"])
    note(fused.text)
    counts = fused.counts
    # a broadcast to (1, n) broadcasts nothing: an iota, a slice of x or x itself
    gathers = 0 if case.kind in ("expand", "repeat") and case.count == 1 else 1
    assert counts[OP_NAME] == gathers, f"{counts[OP_NAME]} {OP_NAME} ops, expected {gathers}"
    for name in ("tosa.gather", "tosa.reduce_sum", "tosa.concat", "tosa.tile"):
        assert counts[name] == 0, f"{name} left: {dict(counts)}"
    result = gmx.runtime.run(fused.text, *(from_torch(t) for t in inputs))
    assert_bitwise_equal(result, (expected,), repr(case))
