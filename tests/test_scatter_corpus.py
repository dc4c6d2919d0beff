"""--gmx-canonicalize on what torch-mlir really emits for PyTorch scatters
(`gmx.tools.experiments.scatter_corpus`), per program and form (TOSA,
linalg-on-tensors, StableHLO):

- export: torch-mlir emits `Form.scatters` scatters of the form
  (`tosa.scatter`, `tm_tensor.scatter`, `stablehlo.scatter`); a form it cannot export is a strict
  xfail with the reason (`Form.blocked`), so the suite flips when it can;
- raised: after the pass, exactly `Form.gmx_ops` `gmx.scatter_multiaxis`
  ops, no scatter of the form left, and no index arithmetic in front of a
  scatter's indices (no linearisation: `LINEARISATION_OPS`, no flattening
  generic: `linalg.index`, no coordinates packed by `tensor.insert_slice`);
- runs: the raised program through gmx.runtime equals eager PyTorch (bit for
  bit, or within the program's tolerance where float sums meet duplicates);
  skipped, with the lowering's own error, while `--gmx-lower-to-llvm`
  cannot lower a gmx scatter (`scatter_lowering`): on by itself once it can.

The ONNX models (`ONNX_CORPUS`: ScatterElements and ScatterND, every
reduction, through torch-mlir's ONNX importer into TOSA, linalg-on-tensors
and StableHLO) take the same three checks, with ONNX's negative-index
`where` counted as index arithmetic too (`ONNX_INDEX_ARITHMETIC`: it is
folded into the gmx op), ONNX's reference evaluator as the reference, and
a fourth: an index out of [-n, n) is an IndexError, as ONNX makes it an
error (the StableHLO form skips it instead: StableHLO's meaning).

The fast subset (`Program.fast`, unblocked forms) runs in the suite; every
program in every form with GMX_FULL_CORPUS=1.
"""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("torch_mlir.fx")

import gmx.runtime  # noqa: E402
from gmx.dialect import SCATTER_OP_NAME, make_context  # noqa: E402
from gmx.dialect.mlir import ir  # noqa: E402
from gmx.passes.walking import ops_named  # noqa: E402
from gmx.tools.experiments.frontends import FrontendError, torch_export  # noqa: E402
from gmx.tools.experiments.sites import LINEARISATION_OPS  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402
from gmx.tools.experiments.corpus_base import matches  # noqa: E402
from gmx.tools.experiments.scatter_corpus import (  # noqa: E402
    BY_NAME,
    CORPUS,
    FORMS,
    ONNX_BY_NAME,
    ONNX_CORPUS,
    ONNX_SOURCE_SCATTERS,
    SOURCE_SCATTERS,
    eager,
    exported,
    numpy_inputs,
    onnx_exported,
    onnx_inputs,
    onnx_reference,
)
from scatter_lowering import skip_unless_scatters_lower  # noqa: E402

FULL = os.environ.get("GMX_FULL_CORPUS", "") not in ("", "0")
# What a scatter's indices must not be computed with after the pass.
INDEX_ARITHMETIC = frozenset(LINEARISATION_OPS) | {"linalg.index", "tensor.insert_slice", "tm_tensor.scatter"}


def cases(check: str, corpus=CORPUS) -> list:
    """(program, form) of `corpus` in the suite: the fast subset, everything with
    GMX_FULL_CORPUS=1; a blocked form a strict xfail of the export (left out
    of the later checks), a check that fails today (`Form.not_yet`) a strict xfail."""
    params = []
    for program in corpus:
        for form, expected in program.forms.items():
            if not (FULL or (program.fast and not expected.blocked)):
                continue
            if expected.blocked and check != "export":
                continue
            marks = [pytest.mark.xfail(strict=True, raises=FrontendError, reason=expected.blocked)] \
                if expected.blocked else []
            if check in expected.not_yet:
                marks.append(pytest.mark.xfail(strict=True, reason=expected.not_yet[check]))
            params.append(pytest.param(program.name, form, marks=marks, id=f"{program.name}@{form}"))
    return params


@functools.cache
def raised(name: str, form: str) -> str:
    """The export after --gmx-canonicalize (strict, as conftest sets it), once per session."""
    return run_pipeline(exported(name, form), ["gmx-canonicalize"]).text


def index_producers(op) -> set[str]:
    """Names of the ops a scatter's indices are computed with (their whole
    backward slice, the bodies of the ops in it included)."""
    names, stack, seen = set(), [op.operands[1]], []
    while stack:
        value = stack.pop()
        owner = value.owner if isinstance(value, ir.OpResult) else None
        if owner is None or any(owner == s for s in seen):
            continue
        owner = owner.operation
        seen.append(owner)
        names.add(owner.name)
        stack.extend(owner.operands)
        for region in owner.regions:
            for block in region.blocks:
                for nested in block.operations:
                    names.add(nested.name)
    return names


@pytest.mark.parametrize("name, form", cases("export"))
def test_export(name, form):
    expected = BY_NAME[name].forms[form]
    counts = run_pipeline(exported(name, form), []).counts
    assert counts[SOURCE_SCATTERS[form]] == expected.scatters, (
        f"{name}@{form}: {counts[SOURCE_SCATTERS[form]]} {SOURCE_SCATTERS[form]} in the export, "
        f"the corpus says {expected.scatters}")


def check_raised(label: str, text: str, gmx_ops: int, source_scatter: str, arithmetic_ops: frozenset) -> None:
    """`text` after --gmx-canonicalize has `gmx_ops` gmx scatters, no
    `source_scatter` left, and none of `arithmetic_ops` in front of a scatter."""
    with make_context():
        module = ir.Module.parse(text)
        scatters = ops_named(module.operation, SCATTER_OP_NAME)
        left = ops_named(module.operation, source_scatter)
        arithmetic = {n for op in scatters for n in index_producers(op) & arithmetic_ops}
    assert len(scatters) == gmx_ops, f"{label}: {len(scatters)} gmx scatters, expected {gmx_ops}"
    assert not left, f"{label}: {len(left)} {source_scatter} left"
    assert not arithmetic, f"{label}: index arithmetic in front of a scatter: {sorted(arithmetic)}"


@pytest.mark.parametrize("name, form", cases("raised"))
def test_raised(name, form):
    check_raised(f"{name}@{form}", raised(name, form), BY_NAME[name].forms[form].gmx_ops, SOURCE_SCATTERS[form],
                 INDEX_ARITHMETIC)


@pytest.mark.parametrize("name, form", cases("runs"))
def test_runs(name, form):
    text = raised(name, form)
    skip_unless_scatters_lower(text)
    program = BY_NAME[name]
    difference = matches(gmx.runtime.run(text, *numpy_inputs(program)), eager(program), program.tolerance)
    assert difference is None, f"{name}@{form}: {difference}"


def test_a_column_past_its_row_is_an_index_error():
    """torch-mlir's TOSA scatter along dim 1 checked only the flat index: a
    column past its row wrote the next row's element. Raised, each coordinate
    is checked against its own dim, as PyTorch eager does."""
    text = raised("top_k_mask", "tosa")
    skip_unless_scatters_lower(text)
    logits, removed = numpy_inputs(BY_NAME["top_k_mask"])
    removed = removed.copy()
    removed[0, 0] = logits.shape[1]  # row 0, column 10 of 10: flat index 10 is row 1's first element
    with pytest.raises(IndexError):
        gmx.runtime.run(text, logits, removed)


def _put_rows(x, rows, values):
    return x.index_put((rows,), values)


# StableHLO is left out: torch-mlir passes `x[-1] = v`'s index to a
# stablehlo.scatter unwrapped, which skips it, as StableHLO defines (the
# raised op's mode "drop" keeps that meaning): the export differs from eager.
@pytest.mark.parametrize("form", ["tosa", "linalg"])
def test_a_negative_index_put_index_wraps_as_in_eager(form):
    """torch-mlir passes `x[-1] = v`'s index through unwrapped; the raised
    scatter keeps eager's meaning (gmx's raise mode wraps [-size, 0) once)."""
    import torch

    x, rows, values = torch.arange(15.0).reshape(3, 5), torch.tensor([-1, 0]), -torch.ones(2, 5)
    text = run_pipeline(torch_export(_put_rows, [x, rows, values], output_type=FORMS[form]),
                        ["gmx-canonicalize"]).text
    skip_unless_scatters_lower(text)
    got = gmx.runtime.run(text, x.numpy(), rows.numpy(), values.numpy())
    assert np.array_equal(got, _put_rows(x, rows, values).numpy())


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [False, True])
def test_scatter_reduce_is_one_scatter_per_reduction(reduce, include_self):
    """torch's scatter_reduce in linalg-on-tensors: include_self=False's reset
    of the positions to the identity (a second scatter) is folded
    (fold-identity-reset); mean stays two scatters, the sum and the counts,
    both reading the indices as they are. Runs equal to eager, bit for bit
    (each position's updates combined in the same order)."""
    import torch

    generator = torch.Generator().manual_seed(29)
    x, i, u = torch.randn(4, 3, generator=generator), torch.randint(0, 4, (6, 3), generator=generator), \
        torch.randn(6, 3, generator=generator)
    i[:, 2] = 0  # rows 1..3 of column 2 untouched

    def forward(x, i, u):
        return x.scatter_reduce(0, i, u, reduce, include_self=include_self)

    raised = run_pipeline(torch_export(forward, [x, i, u], output_type="linalg-on-tensors"), ["gmx-canonicalize"])
    with make_context():
        module = ir.Module.parse(raised.text)
        scatters = ops_named(module.operation, SCATTER_OP_NAME)
        arithmetic = {n for op in scatters for n in index_producers(op) & INDEX_ARITHMETIC}
    assert len(scatters) == (2 if reduce == "mean" else 1) and not arithmetic, raised.text
    skip_unless_scatters_lower(raised.text)
    got = gmx.runtime.run(raised.text, x.numpy(), i.numpy(), u.numpy())
    assert np.array_equal(got, forward(x, i, u).numpy())


def _scatter_columns(x, columns, values):
    return x.scatter(1, columns, values)


# (forward, the arrays: the index is argument 1) exported to TOSA, where
# torch-mlir casts the i64 index to i32 before tosa.scatter.
NARROWED_SCATTERS = {
    "index_put": (_put_rows, lambda: [np.arange(15, dtype=np.float32).reshape(3, 5), np.array([2, 0]),
                                      -np.ones((2, 5), np.float32)]),
    "scatter": (_scatter_columns, lambda: [np.arange(15, dtype=np.float32).reshape(3, 5),
                                           np.array([[4, 1], [0, 2], [3, 3]]), -np.ones((3, 2), np.float32)]),
}


@pytest.mark.parametrize("wide", [2**32 + 1, -(2**32) + 1])
@pytest.mark.parametrize("name", NARROWED_SCATTERS)
def test_an_index_past_i32_is_an_index_error(name, wide):
    """The export's i64 -> i32 cast of a scatter index assumes in-range
    values: the raised scatter checks the wide index (an IndexError, as in
    eager) instead of writing at its truncation (1). In range: as eager."""
    import torch

    forward, make = NARROWED_SCATTERS[name]
    arrays = make()
    text = run_pipeline(torch_export(forward, arrays, output_type="tosa"), ["gmx-canonicalize"]).text
    assert SCATTER_OP_NAME in text and "tosa.cast" not in text, text
    skip_unless_scatters_lower(text)
    expected = forward(*(torch.from_numpy(a) for a in arrays)).numpy()
    got = gmx.runtime.run(text, *arrays)
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()
    arrays[1] = arrays[1].copy()
    arrays[1].flat[0] = wide
    with pytest.raises((IndexError, RuntimeError)):
        forward(*(torch.from_numpy(a) for a in arrays))
    with pytest.raises(IndexError):
        gmx.runtime.run(text, *arrays)


def _slice_scatter(x, src):
    return x.slice_scatter(src, dim=1, start=1, end=3)


def test_slice_scatter_becomes_an_insert_slice():
    """TOSA's slice_scatter is a tosa.scatter at constant positions; raised,
    a tensor.insert_slice (no scatter, no index) that runs as eager."""
    import torch

    x, src = torch.randn(3, 5), torch.randn(3, 2)
    fused = run_pipeline(torch_export(_slice_scatter, [x, src], output_type="tosa"), ["gmx-canonicalize"])
    assert fused.counts["tensor.insert_slice"] == 1
    assert not fused.counts["tosa.scatter"] and not fused.counts[SCATTER_OP_NAME]
    assert np.array_equal(gmx.runtime.run(fused.text, x.numpy(), src.numpy()), _slice_scatter(x, src).numpy())


def test_corpus_covers_the_brief():
    """Every family of the brief, both forms registered, names unique, inputs reproducible."""
    names = [p.name for p in CORPUS]
    assert len(names) == len(set(names))
    for family in ("gnn_", "moe_", "kv_cache", "top_k", "one_hot", "label_smoothing", "histogram", "segment_",
                   "embedding_backward", "gather_backward", "training_step"):
        assert any(n.startswith(family) for n in names), family
    assert all(set(p.forms) == set(FORMS) for p in CORPUS)
    assert all(p.forms[f].blocked or p.forms[f].gmx_ops >= 1 for p in CORPUS for f in FORMS)
    first, second = numpy_inputs(CORPUS[0]), numpy_inputs(CORPUS[0])
    assert all(np.array_equal(a, b) for a, b in zip(first, second))


# --- ONNX models ---------------------------------------------------------------------------------------------

# ONNX's negative-index `where(i < 0, i + n, i)` is index arithmetic the gmx op does itself.
ONNX_INDEX_ARITHMETIC = INDEX_ARITHMETIC | {"tosa.select", "arith.select", "stablehlo.select", "linalg.generic",
                                            "tosa.add", "arith.addi", "stablehlo.add", "stablehlo.compare"}


def onnx_cases(check: str) -> list:
    """As `cases`, for the ONNX models."""
    return cases(check, ONNX_CORPUS)


@functools.cache
def onnx_raised(name: str, form: str) -> str:
    return run_pipeline(onnx_exported(name, form), ["gmx-canonicalize"]).text


@pytest.mark.parametrize("name, form", onnx_cases("export"))
def test_onnx_export(name, form):
    expected = ONNX_BY_NAME[name].forms[form]
    counts = run_pipeline(onnx_exported(name, form), []).counts
    assert counts[ONNX_SOURCE_SCATTERS[form]] == expected.scatters, counts


@pytest.mark.parametrize("name, form", onnx_cases("raised"))
def test_onnx_raised(name, form):
    check_raised(f"{name}@{form}", onnx_raised(name, form), ONNX_BY_NAME[name].forms[form].gmx_ops,
                 ONNX_SOURCE_SCATTERS[form], ONNX_INDEX_ARITHMETIC)


@pytest.mark.parametrize("name, form", onnx_cases("runs"))
def test_onnx_runs(name, form):
    text = onnx_raised(name, form)
    skip_unless_scatters_lower(text)
    program = ONNX_BY_NAME[name]
    difference = matches(gmx.runtime.run(text, *onnx_inputs(program)), onnx_reference(program), program.tolerance)
    assert difference is None, f"{name}@{form}: {difference}"


@pytest.mark.parametrize("name, form", onnx_cases("out_of_range"))
@pytest.mark.parametrize("bad", ["past_the_end", "below_minus_n"])
def test_onnx_out_of_range_index(name, form, bad):
    """ONNX: an index outside [-n, n) is an error. Raised (ONNX's `where`
    folded), the gmx op in mode raise says so: an IndexError, where the
    export's `where` would have turned -n-1 into the valid -1. StableHLO's
    form means what StableHLO's scatter means (mode drop: the update
    skipped), checked against StableHLO's interpreter on the export."""
    text = onnx_raised(name, form)
    skip_unless_scatters_lower(text)
    program = ONNX_BY_NAME[name]
    x, indices, updates = onnx_inputs(program)
    size = x.shape[program.attributes.get("axis", 0)]
    indices = indices.copy()
    indices.reshape(-1)[0] = size if bad == "past_the_end" else -size - 1
    if form == "stablehlo":
        from stablehlo_oracle import interpret

        want = interpret(onnx_exported(name, form), x, indices, updates)[0]
        np.testing.assert_array_equal(gmx.runtime.run(text, x, indices, updates), want)
        return
    with pytest.raises(IndexError):
        gmx.runtime.run(text, x, indices, updates)


def test_onnx_corpus_covers_the_brief():
    """ScatterElements (axes 0 and 1) and ScatterND (rows and elements) in every
    reduction, negative indices in each; max/min ScatterElements blocked with the importer's reason."""
    names = {p.name for p in ONNX_CORPUS}
    for reduction in ("none", "add", "mul", "max", "min"):
        assert {f"onnx_scatter_elements_{reduction}_axis0", f"onnx_scatter_elements_{reduction}_axis1",
                f"onnx_scatter_nd_{reduction}_rows", f"onnx_scatter_nd_{reduction}_elements"} <= names
    assert all((np.array(p.indices) < 0).any() for p in ONNX_CORPUS)
    assert all(not p.forms["linalg"].blocked for p in ONNX_CORPUS if "elements_max" not in p.name
               and "elements_min" not in p.name)
