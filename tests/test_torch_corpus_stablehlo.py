"""--gmx-canonicalize on what torch-mlir emits as StableHLO for PyTorch gathers.

Every program of `torch_corpus.CORPUS` exported with `output_type="stablehlo"`
must leave, after the pass,

  (a) exactly `program.gathers` `gmx.gather_multiaxis` ops, each in mode
      "clip" (StableHLO's clamp) but those at constant indices inside their
      axis (`INERT`: any mode reads them the same), and no `stablehlo.gather` /
      `stablehlo.dynamic_gather` left;
  (b) a program bit for bit PyTorch eager's, on the inputs with every index
      made non-negative (`in_range_inputs`; PyTorch's result is the same):
      torch-mlir's StableHLO does not wrap a negative index as PyTorch does,
      StableHLO clamps it to 0, so with the corpus's own negative indices
      the export itself differs from eager;
  (c) with the corpus's own inputs (negative indices too), the StableHLO
      reference interpreter's result (`eval_module` on the export, an oracle
      independent of gmx), where gmx lowers mode "clip" (`modes_lowered`;
      where it does not, the unraised export is run against it).

torch-mlir's StableHLO clamps a negative constant index of the program too
(`CONSTANT_NEGATIVE`): (b) is a strict xfail there, (c) holds.

torch-mlir cannot export the four programs with a 0-d index to StableHLO
(its `stablehlo.convert` gets two shapes): strict xfails, they flip when it can.
Dynamic exports (`?` batch and index-count dims) are checked at the end.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir.fx")

import gmx.runtime  # noqa: E402
from gmx.dialect import OP_NAME  # noqa: E402
from gmx.tools.experiments.frontends import FrontendError, torch_export  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402
from stablehlo_oracle import interpret, modes_lowered  # noqa: E402
from torch_corpus import (  # noqa: E402
    CORPUS,
    assert_bitwise_equal,
    eager,
    in_range_inputs,
    in_range_tensors,
    numpy_inputs,
)
from torch_corpus import exported as corpus_export  # noqa: E402

# x[::2] is a strided stablehlo.slice here, not a gather as in TOSA.
GATHERS = {"slice_step2_then_adv": 1}
# A negative index that is a constant of the program: torch-mlir's StableHLO
# clamps it (to 0) where PyTorch wraps it, so the export itself is not eager's.
CONSTANT_NEGATIVE = {"adv1_mid_const_index"}
# Gathers at constant indices inside their axis read the same in every mode:
# drop-inert-mode drops StableHLO's clamp.
INERT = {"bcast_arange_expand", "bcast_arange_repeat", "bcast_arange_expand_mid", "bcast_const_expand"}
NO_EXPORT = {"isel_0d_r2_d0", "isel_0d_r3_d1", "isel_0d_r1", "isel_0d_const"}
GATHER_LIKE = ("stablehlo.gather", "stablehlo.dynamic_gather", "stablehlo.torch_index_select")
# What StableHLO's interpreter reads and writes as plain numpy (no bf16, f16, bool).
INTERPRETED = {np.dtype(t) for t in ("float32", "float64", "int32", "int64")}


def exported(name: str) -> str:
    """The program as StableHLO (`torch_corpus.exported`: the run's one import, lowered)."""
    return corpus_export(name, "stablehlo")


@functools.lru_cache(maxsize=None)
def raised(name: str) -> str:
    return run_pipeline(exported(name), ["gmx-canonicalize"]).text


def _cases():
    for program in CORPUS:
        marks = []
        if program.name in NO_EXPORT:
            marks = [pytest.mark.xfail(raises=FrontendError, strict=True, reason="torch-mlir: 0-d index to StableHLO")]
        if program.name in CONSTANT_NEGATIVE:
            marks = [pytest.mark.xfail(raises=AssertionError, strict=True,
                                       reason="torch-mlir's StableHLO clamps the program's constant -1")]
        yield pytest.param(program, id=program.name, marks=marks)


@pytest.mark.parametrize("program", list(_cases()))
def test_stablehlo_export_raises_and_matches_eager(program):
    text, gathers = raised(program.name), GATHERS.get(program.name, program.gathers)
    assert text.count(f'"{OP_NAME}"') == gathers, text
    assert text.count('mode = "clip"') == (0 if program.name in INERT else gathers), text
    left = [name for name in GATHER_LIKE if name in text]
    assert not left, f"{program.name}: {left} left\n{text}"
    assert_bitwise_equal(gmx.runtime.run(text, *in_range_inputs(program)), eager(program), program.name)


def _negative(program) -> bool:
    return program.name in CONSTANT_NEGATIVE or any(getattr(s, "negative", False) for s in program.specs)


@pytest.mark.parametrize("program", [p for p in CORPUS if p.name not in NO_EXPORT and _negative(p)
                                     and all(np.asarray(a).dtype in INTERPRETED for a in numpy_inputs(p))],
                         ids=lambda p: p.name)
def test_stablehlo_export_matches_the_interpreter_on_negative_indices(program):
    """(c). The interpreter misreads `dense_resource` constants (a frozen
    weight reads ~1e-10); there the export run unraised (upstream's
    stablehlo-legalize-to-linalg, its own clamping gather) is the oracle."""
    inputs = numpy_inputs(program)
    text = exported(program.name)
    want = gmx.runtime.run(text, *inputs) if "dense_resource" in text else interpret(text, *inputs)
    got = gmx.runtime.run(raised(program.name) if modes_lowered() else text, *inputs)
    assert_bitwise_equal(got, want, program.name)


def test_in_range_inputs_keep_eager_results():
    """(b)'s premise: PyTorch gives the same result on the non-negative inputs,
    and they differ from the corpus's own where it has negative indices."""
    changed = 0
    for program in CORPUS:
        original, in_range = program.make_inputs(), in_range_tensors(program)
        changed += any(not torch.equal(a, b) for a, b in zip(original, in_range))
        assert_bitwise_equal(eager(program, in_range), eager(program), program.name)
    assert changed > 40


# --- dynamic dims -------------------------------------------------------------------------

X, W = torch.randn(4, 5, 6, generator=torch.Generator().manual_seed(14)), torch.randn(10, 4)
DYNAMIC = {
    "gather_dynamic_batch": (lambda x, i: torch.gather(x, 1, i), (X, torch.randint(0, 5, (4, 3, 6))),
                             [{0: "b"}, {0: "b"}]),
    "index_select_dynamic_count": (lambda x, i: torch.index_select(x, 1, i), (X, torch.randint(0, 5, (7,))),
                                   [None, {0: "n"}]),
    "embedding_dynamic_batch_and_tokens": (lambda w, i: w[i], (W, torch.randint(0, 10, (2, 3))),
                                           [None, {0: "b", 1: "t"}]),
    "advanced_dynamic_count": (lambda x, i, j: x[i, :, j], (X, torch.randint(0, 4, (3,)), torch.randint(0, 6, (3,))),
                               [None, {0: "n"}, {0: "n"}]),
}


@functools.lru_cache(maxsize=None)
def dynamic_raised(name: str) -> str:
    """The dynamic export after --gmx-canonicalize (both tests below read it)."""
    fn, inputs, dims = DYNAMIC[name]
    return run_pipeline(torch_export(fn, inputs, dims, output_type="stablehlo"), ["gmx-canonicalize"]).text


@pytest.mark.parametrize("name", DYNAMIC)
def test_dynamic_stablehlo_export_raises(name):
    text = dynamic_raised(name)
    assert "?" in text.split("\n", 2)[1], "the export is not dynamic"
    assert text.count(f'"{OP_NAME}"') == 1, text
    assert not [op for op in GATHER_LIKE if op in text], text


@pytest.mark.parametrize("name", [
    "gather_dynamic_batch", "index_select_dynamic_count", "embedding_dynamic_batch_and_tokens",
    pytest.param("advanced_dynamic_count", marks=pytest.mark.xfail(
        strict=True, reason="stablehlo-legalize-to-linalg lowers no stablehlo.dynamic_broadcast_in_dim / dynamic_reshape")),
])
def test_dynamic_stablehlo_export_runs(name):
    fn, inputs, _ = DYNAMIC[name]
    text = dynamic_raised(name)
    arrays = [t.numpy() for t in inputs]
    assert_bitwise_equal(gmx.runtime.run(text, *arrays), (fn(*inputs).numpy(),), name)
