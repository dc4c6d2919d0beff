"""--gmx-lower-stablehlo-sort: JAX's and torch-mlir's StableHLO sorts
(sort, argsort, topk) run equal to JAX and torch eager, gathers around
them raised."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gmx.dialect import OP_NAME, make_context
from gmx.dialect.mlir import ir
from gmx.passes.lowering.gmx_lower_stablehlo_sort import compare_kind, enum_word
from gmx.passes.pipeline import build_pass_manager
from gmx.runtime import compile
from gmx.tools.experiments.frontends import jax_to_stablehlo, torch_export

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _keys() -> np.ndarray:
    """Ties, NaNs of both signs, -0.0 and 0.0, infinities: what a total
    order and a stable sort decide."""
    x = np.random.default_rng(0).random((3, 7), dtype=np.float32)
    x[0, 1] = x[0, 4] = x[0, 6]
    x[1, 2], x[1, 5] = np.nan, -np.nan
    x[2, :4] = [0.0, -0.0, np.inf, -np.inf]
    return x


def _gmx_ops(text: str) -> int:
    with make_context():
        module = ir.Module.parse(text)
        build_pass_manager(["gmx-canonicalize"]).run(module.operation)
        return str(module).count(f'"{OP_NAME}"')


def test_compare_kinds():
    with make_context():
        assert compare_kind(None, ir.F32Type.get()) == "FLOAT"
        assert compare_kind("NOTYPE", ir.IntegerType.get_signless(32)) == "SIGNED"
        assert compare_kind(None, ir.IntegerType.get_signless(1)) == "UNSIGNED"
        assert compare_kind("TOTALORDER", ir.F32Type.get()) == "TOTALORDER"
    assert enum_word("#stablehlo<comparison_direction GE>") == "GE"


@pytest.mark.parametrize("name", ["sort", "argsort", "sorted_rows"])
def test_jax_sorts_equal_jax(name):
    functions = {
        "sort": lambda a: jnp.sort(a, axis=1),
        "argsort": lambda a: jnp.argsort(a, axis=1, stable=True),
        # MAE-style: rows reordered by their keys (a gather around the sort)
        "sorted_rows": lambda a: jnp.take_along_axis(a, jnp.argsort(a[:, :3], axis=1), axis=1),
    }
    x = _keys()
    text = jax_to_stablehlo(functions[name], [x])
    if name == "sorted_rows":
        assert _gmx_ops(text) == 1
    np.testing.assert_array_equal(compile(text)(x), np.asarray(functions[name](x)))


def test_jax_top_k_equals_jax():
    """JAX's top_k is CHLO (`chlo.top_k`): legalized to a StableHLO sort."""
    x = _keys()
    text = jax_to_stablehlo(lambda a: jax.lax.top_k(a, 3), [x])
    assert "chlo.top_k" in text
    for got, want in zip(compile(text)(x), jax.lax.top_k(x, 3)):
        np.testing.assert_array_equal(got, np.asarray(want))


def test_jax_integer_sort_descending():
    x = np.array([[3, -1, 7, 7, 0, -9]], dtype=np.int32)
    f = lambda a: jnp.flip(jnp.sort(a, axis=1), axis=1)  # noqa: E731
    np.testing.assert_array_equal(compile(jax_to_stablehlo(f, [x]))(x), np.asarray(f(x)))


def test_torch_topk_then_index_select_equals_eager():
    def top_rows(x, scores):
        return torch.index_select(x, 0, torch.topk(scores, 2).indices)

    inputs = [torch.randn(5, 3), torch.tensor([0.5, 3.0, -1.0, 2.0, 0.0])]
    text = torch_export(top_rows, inputs, output_type="stablehlo")
    assert "stablehlo.sort" in text and _gmx_ops(text) == 1
    np.testing.assert_array_equal(compile(text)(*[t.numpy() for t in inputs]), top_rows(*inputs).numpy())
