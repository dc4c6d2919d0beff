"""--gmx-canonicalize on what torch-mlir really emits for PyTorch gathers.

For every program of `torch_corpus.CORPUS` and both pipelines (the TOSA as
exported, and after `tosa-to-tensor`, where the reshapes are
`tensor.expand_shape`/`collapse_shape` and `tosa.concat` is
`tensor.empty` + `tensor.insert_slice`), the pass must leave

  (a) exactly `program.gathers` `gmx.gather_multiaxis` ops,
  (b) none of the linearisation: no tosa.gather, tosa.reduce_sum, tosa.concat,
      tosa.tile, tosa.mul, nor tensor.insert_slice (what tosa-to-tensor makes
      of the concat), except at most the ops listed in `program.kept`, which
      belong to the program itself (tensor.concat is allowed: it is how
      coordinate tuples of several index tensors are folded into gmx's last
      indices dim),
  (c) a program whose results are bit for bit PyTorch eager's.

`test_unfused_export_matches_eager` checks the corpus itself: the exported
TOSA, without the pass, already computes PyTorch's results.
"""

from __future__ import annotations

import collections

import pytest

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir.fx")

import gmx.runtime  # noqa: E402
from gmx.dialect import OP_NAME  # noqa: E402
from gmx.tools.experiments.sites import LINEARISATION_OPS  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402
from torch_corpus import CORPUS, assert_bitwise_equal, eager, exported, numpy_inputs  # noqa: E402

PIPELINES = {
    "tosa": ["gmx-canonicalize"],
    "tensor": ["tosa-to-tensor", "gmx-canonicalize"],
}

# What is left of a gather's linearisation if the pass missed it. None of the
# programs concatenates or tiles by itself; `Program.kept` lists the
# exceptions (the user's own multiply, take_along_dim's remainder).
FORBIDDEN = LINEARISATION_OPS


def check_fused(program, counts: collections.Counter) -> None:
    assert counts[OP_NAME] == program.gathers, (
        f"{program.name}: {counts[OP_NAME]} {OP_NAME} ops, expected {program.gathers}"
    )
    kept = dict(program.kept)
    left = {name: counts[name] for name in FORBIDDEN if counts[name] > kept.get(name, 0)}
    assert not left, (
        f"{program.name}: linearisation left after the pass: {left}"
        + (f" (the program itself may keep {kept})" if kept else "")
    )


@pytest.mark.parametrize("pipeline", list(PIPELINES.values()), ids=list(PIPELINES))
@pytest.mark.parametrize("program", CORPUS, ids=lambda p: p.name)
def test_canonicalize_raises_torch_gathers(program, pipeline):
    fused = run_pipeline(exported(program.name), pipeline)
    check_fused(program, fused.counts)
    result = gmx.runtime.run(fused.text, *numpy_inputs(program))
    assert_bitwise_equal(result, eager(program), f"{program.name} after {pipeline}")


@pytest.mark.parametrize("program", CORPUS, ids=lambda p: p.name)
def test_unfused_export_matches_eager(program):
    text = exported(program.name)
    counts = run_pipeline(text, []).counts
    assert counts["tosa.gather"] == program.gathers, (
        f"{program.name}: torch-mlir emitted {counts['tosa.gather']} tosa.gather, corpus says {program.gathers}"
    )
    result = gmx.runtime.run(text, *numpy_inputs(program))
    assert_bitwise_equal(result, eager(program), f"{program.name} unfused")


def test_corpus_covers_the_brief():
    """Names are unique, inputs are reproducible, every family is present."""
    names = [p.name for p in CORPUS]
    assert len(names) == len(set(names))
    for prefix in ("gather_", "tad_", "isel_", "embed_", "F_embedding", "nn_embedding", "adv1_", "adv2_",
                   "adv3_", "multi_"):
        assert any(n.startswith(prefix) for n in names), prefix
    program = CORPUS[0]
    first, second = numpy_inputs(program), numpy_inputs(program)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(first, second))


# torch-mlir casts i64 indices to i32 for tosa.gather; that cast assumes
# in-range values, so the raised gmx op reads the wide index and checks it,
# as PyTorch eager does (before, 2**32 + 1 and -(2**32) + 1 truncated to row 1).
NARROWED_BY_THE_EXPORT = ["gather_r2_d1", "isel_r3_d1", "embed_idx2d_i64", "embed_idx1d_negative", "nn_embedding_idx2d"]


@pytest.mark.parametrize("wide", [2**32 + 1, -(2**32) + 1])
@pytest.mark.parametrize("name", NARROWED_BY_THE_EXPORT)
def test_an_index_past_i32_is_an_index_error(name, wide):
    import torch
    from torch_corpus import BY_NAME, Index

    program = BY_NAME[name]
    fused = run_pipeline(exported(name), PIPELINES["tosa"])
    assert "tosa.cast" not in fused.text, f"{name}: the raised gather reads the narrowed index"
    inputs = list(numpy_inputs(program))
    assert_bitwise_equal(gmx.runtime.run(fused.text, *inputs), eager(program), name)  # in range: unchanged
    (position,) = [n for n, spec in enumerate(program.specs) if isinstance(spec, Index)]
    inputs[position] = inputs[position].copy()
    inputs[position].flat[0] = wide
    with pytest.raises((IndexError, RuntimeError)):  # eager's own error
        eager(program, tuple(torch.from_numpy(a) for a in inputs))
    with pytest.raises(IndexError):
        gmx.runtime.run(fused.text, *inputs)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # torch.export's own, which torch_export keeps quiet
def test_the_runs_one_import_lowers_as_export_and_import_does():
    """`exported(name, form)` (the run's one import, `torch_lower`ed) and
    `torch_export` are torch-mlir's export_and_import text, byte for byte,
    in each form, with locations and without; a form that fails fails alike."""
    from torch_mlir import fx
    from torch_corpus import BY_NAME, imported
    from gmx.tools.experiments.frontends import TORCH_OUTPUT_TYPES, FrontendError, torch_export, torch_lower

    program = BY_NAME["adv2_noncontig_idx_i32"]  # linalg-on-tensors fails (test_linalg_gathers' NO_LINALG_EXPORT)
    for form in TORCH_OUTPUT_TYPES:
        try:
            direct = fx.export_and_import(program.model(), *program.make_inputs(), output_type=form)
        except Exception:
            with pytest.raises(FrontendError):
                torch_lower(imported(program.name), form)
            continue
        for locations in (False, True):
            text = direct.operation.get_asm(enable_debug_info=locations)
            assert torch_lower(imported(program.name), form, locations=locations) == text, (form, locations)
        assert torch_export(program.model(), program.make_inputs(), output_type=form, locations=True) == text, form
