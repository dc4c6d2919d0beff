"""What torch-mlir really emits for models runs through gmx.runtime.

Each program is a tiny PyTorch function exported to TOSA by torch-mlir
(`frontends.torch_to_tosa`) and run whole (after `--gmx-canonicalize`, as
the tools run it) against eager PyTorch. Each exercises one thing that
upstream's `tosa-to-linalg-pipeline` rejected or could not lower, which
`--gmx-lower-to-llvm` now handles:

- f64 constants and casts (LayerNorm's variance, float64 models): TOSA
  profile validation rejected them; the pipeline leaves it out.
- i64 -> f32 casts (cross-entropy's mean, rotary position ids): likewise.
- math.erf (exact GELU): a call to libm's erff.

Tolerances: float math is compared with the tolerance stated at its
program (compiled code and eager round differently).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir.fx")

import torch.nn.functional as F  # noqa: E402

import gmx.runtime  # noqa: E402
from gmx.tools.experiments.frontends import torch_to_tosa  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402


def _layer_norm(x):
    return F.layer_norm(x, (5,), eps=1e-5)


def _position_angles(ids):
    inv_freq = 1.0 / 10000 ** (torch.arange(0, 4, 2).float() / 4)
    return ids[:, :, None].float() * inv_freq


# name: (function, example inputs, absolute tolerance against eager)
PROGRAMS = {
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


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_export_runs_and_matches_eager(name):
    fn, inputs, tolerance = PROGRAMS[name]
    with torch.no_grad():
        want = _results(fn(*inputs))
    got = _results(gmx.runtime.run(compiled_text(name), *[t.numpy() for t in inputs]))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, name
        np.testing.assert_allclose(g, w, rtol=0, atol=tolerance, err_msg=name)


# ONNX nodes through torch-mlir's ONNX importer: (op, attributes, inputs, output, arrays)
ONNX_NODES = {
    "Erf": ({}, [("x", "f32", (3, 4))], ("f32", (3, 4)), [np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)]),
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
