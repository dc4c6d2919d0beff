"""What torch-mlir really emits for models runs through gmx.runtime.

Each program is a tiny PyTorch function exported to TOSA by torch-mlir
(`frontends.torch_to_tosa`) and run whole (after `--gmx-canonicalize`, as
the tools run it) against eager PyTorch. Each exercises one thing that
upstream's `tosa-to-linalg-pipeline` rejected or could not lower, which
`--gmx-lower-to-llvm` now handles:

- f64 constants and casts (LayerNorm's variance, float64 models): TOSA
  profile validation rejected them; the pipeline leaves it out.
- i64 -> f32 casts (cross-entropy's mean, rotary position ids): likewise.
- tosa.scatter (topk, sort, argsort, scatter, index_put): lowered by
  upstream's tosa-to-scf behind `--gmx-check-scatter-indices`, so a bad
  index is a located IndexError and nothing is written out of bounds.
- math.erf (exact GELU): a call to libm's erff.

Tolerances: programs that only move values (topk, sort, scatter,
index_put) must be bit-exact; float math is compared with the tolerance
stated at its program (compiled code and eager round differently).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir.fx")

import torch.nn.functional as F  # noqa: E402

import gmx.runtime  # noqa: E402
from gmx.tools.experiments.frontends import torch_to_tosa  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402


def _scores() -> torch.Tensor:
    # distinct values: topk and sort have one right answer
    return torch.randperm(4 * 7, generator=torch.Generator().manual_seed(0)).reshape(4, 7).float() / 7


def _layer_norm(x):
    return F.layer_norm(x, (5,), eps=1e-5)


def _position_angles(ids):
    inv_freq = 1.0 / 10000 ** (torch.arange(0, 4, 2).float() / 4)
    return ids[:, :, None].float() * inv_freq


def _index_put(x, i):
    y = torch.zeros(6, 5)
    y[i] = x
    return y


def _scatter_topk(x, shift):
    """Marks the top 2 of each row, at positions shifted by `shift` (0: in range)."""
    return torch.zeros(4, 7).scatter(1, torch.topk(x, 2, dim=-1).indices + shift, 1.0)


# name: (function, example inputs, absolute tolerance against eager; 0: bit-exact)
PROGRAMS = {
    "topk": (lambda x: torch.topk(x, 3, dim=-1), (_scores(),), 0),
    "sort": (lambda x: torch.sort(x, dim=-1), (_scores(),), 0),
    "argsort": (lambda x: torch.argsort(x, dim=-1, descending=True), (_scores(),), 0),
    "scatter": (
        lambda x, i: torch.zeros(4, 5).scatter(1, i, x),
        (torch.randn(4, 3, generator=torch.Generator().manual_seed(1)), torch.tensor([[0, 2, 4], [1, 3, 0], [4, 3, 2], [2, 1, 0]])),
        0,
    ),
    "index_put": (_index_put, (torch.arange(15.0).reshape(3, 5), torch.tensor([0, 5, 3])), 0),
    "scatter_topk": (_scatter_topk, (_scores(), torch.zeros(4, 2, dtype=torch.int64)), 0),
    # glibc's erff and PyTorch's erf differ by about an ulp
    "gelu_exact": (F.gelu, (torch.linspace(-4, 4, 28).reshape(4, 7),), 1e-6),
    # f32 LayerNorm divides by the width with an f64 constant
    "layer_norm_f32": (_layer_norm, (torch.linspace(-2, 3, 15).reshape(3, 5),), 1e-6),
    # torch-mlir exports eps as an f32 value even in f64 (1e-5 becomes
    # 9.9999997e-6): a relative difference of about 1e-12 at this variance
    "layer_norm_f64": (_layer_norm, (torch.linspace(-2, 3, 15, dtype=torch.float64).reshape(3, 5),), 1e-10),
    "cross_entropy": (
        F.cross_entropy,
        (torch.linspace(-1, 1, 28).reshape(4, 7), torch.tensor([0, 6, 3, 2])),
        1e-6,
    ),
    "position_ids": (_position_angles, (torch.arange(8).reshape(1, 8),), 1e-6),
}


def _results(value) -> list[np.ndarray]:
    values = value if isinstance(value, tuple) else (value,)
    return [np.asarray(v) for v in values]


def compiled_text(name: str) -> str:
    fn, inputs, _ = PROGRAMS[name]
    return run_pipeline(torch_to_tosa(fn, list(inputs)), ["gmx-canonicalize"]).text


def exported_text(name: str) -> str:
    """The program as torch-mlir exports it, not raised: its tosa.scatter
    stays (checked by --gmx-check-scatter-indices, against TOSA's K)."""
    fn, inputs, _ = PROGRAMS[name]
    return torch_to_tosa(fn, list(inputs))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_export_runs_and_matches_eager(name):
    fn, inputs, tolerance = PROGRAMS[name]
    with torch.no_grad():
        want = _results(fn(*inputs))
    got = _results(gmx.runtime.run(compiled_text(name), *[t.numpy() for t in inputs]))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, name
        if tolerance == 0:
            assert g.tobytes() == w.tobytes(), f"{name}: {g} != {w}"
        else:
            np.testing.assert_allclose(g, w, rtol=0, atol=tolerance, err_msg=name)


# Bad indices run in a child, so that an out-of-bounds write that crashes
# fails the test instead of the test run. One JSON line per call.
CHILD = """
import json, sys
import numpy as np
import gmx.runtime
text, calls = sys.argv[1], json.loads(sys.argv[2])
program = gmx.runtime.compile(text)
for arguments in calls:
    arrays = [np.array(a, dtype=dtype) for a, dtype in arguments]
    try:
        result = program(*arrays)
        print(json.dumps(["ok", np.asarray(result).tolist()]), flush=True)
    except IndexError as error:
        print(json.dumps(["IndexError", str(error)]), flush=True)
"""


def _run_child(text: str, calls: list) -> list:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, text, json.dumps(calls)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def _last_scatter_line(text: str) -> int:
    """The 1-based line of the program's last tosa.scatter: the program's
    own (topk's scatters come before it)."""
    return [n for n, s in enumerate(text.splitlines(), 1) if "tosa.scatter" in s][-1]


_TOP_OF_LAST_ROW = int(torch.topk(_scores(), 2, dim=-1).indices[3, 0])


@pytest.mark.parametrize(
    "name, indices, first_bad, size",
    [
        # index_put writes rows of a 6-row output: 6 is one past the end
        ("index_put", [0, 1, 6], 6, 6),
        # torch-mlir does not wrap a negative index_put index (eager would):
        # it is reported, not written before the output
        ("index_put", [-1, 1, 2], -1, 6),
        # an index that the exported i64 -> i32 cast would bring into range
        ("index_put", [0, 1, 2**32 + 1], 2**32 + 1, 6),
        # topk's positions shifted past the end of the last 7-column row:
        # torch-mlir scatters into the flattened 4x7 output (K = 28) at
        # row * 7 + column, which is what is checked (docs/limits.md)
        ("scatter_topk", [[0, 0], [0, 0], [0, 0], [7, 7]], 3 * 7 + _TOP_OF_LAST_ROW + 7, 28),
    ],
)
def test_bad_scatter_index_is_a_located_error(name, indices, first_bad, size):
    """The unraised tosa.scatter's check (a raised scatter's: test_scatter_corpus)."""
    text = exported_text(name)
    data = PROGRAMS[name][1][0]
    (outcome,) = _run_child(text, [[[data.tolist(), "float32"], [indices, "int64"]]])
    assert outcome[0] == "IndexError", outcome
    # located at the scatter; axis 1 is the K axis of TOSA's scatter
    assert re.fullmatch(
        rf"-:{_last_scatter_line(text)}:\d+: index {first_bad} is out of bounds for axis 1 with size {size}"
        r"( \(\d+ indices out of bounds\))?",
        outcome[1],
    ), outcome[1]


def test_good_indices_in_the_child_match_eager():
    """The child's path itself is sound: in-range indices give eager's result."""
    x, i = PROGRAMS["index_put"][1]
    (outcome,) = _run_child(compiled_text("index_put"), [[[x.tolist(), "float32"], [i.tolist(), "int64"]]])
    assert outcome == ["ok", _index_put(x, i).tolist()]


# ONNX nodes through torch-mlir's ONNX importer: (op, attributes, inputs, output, arrays)
ONNX_NODES = {
    "Erf": ({}, [("x", "f32", (3, 4))], ("f32", (3, 4)), [np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)]),
    "ScatterElements": (
        {"axis": 1},
        [("d", "f32", (3, 4)), ("i", "i64", (3, 2)), ("u", "f32", (3, 2))],
        ("f32", (3, 4)),
        [np.zeros((3, 4), np.float32), np.array([[0, 3], [1, 2], [3, 0]]), np.arange(6, dtype=np.float32).reshape(3, 2)],
    ),
}


@pytest.mark.parametrize("op", sorted(ONNX_NODES))
def test_onnx_import_runs_and_matches_the_reference(op):
    pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator

    from gmx.tools.experiments.frontends import onnx_model, onnx_to_tosa

    attributes, inputs, output, arrays = ONNX_NODES[op]
    model = onnx_model(op, attributes, inputs, output)
    (want,) = ReferenceEvaluator(model).run(None, {name: a for (name, _, _), a in zip(inputs, arrays)})
    text = run_pipeline(onnx_to_tosa(model), ["gmx-canonicalize"]).text
    # erff and ONNX's reference (math.erf in float64, rounded) differ by an ulp at most
    np.testing.assert_allclose(gmx.runtime.run(text, *arrays), want, rtol=0, atol=1e-6)
