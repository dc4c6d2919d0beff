"""gmx-study's frontends: one gather as each frontend spells it
(`--frontend`), and the verdict that compares what each spelling raises to
(`tools/study/spellings.py`)."""

from __future__ import annotations

from collections import Counter

import pytest

from gmx.dialect import OP_NAME, SCATTER_OP_NAME
from gmx.dialect.modes import Mode
from gmx.dialect.reductions import Reduction
from gmx.tools.experiments.variants import VARIANTS, make_study
from gmx.tools.study.spellings import Spelling, spell, verdict
from gmx.tools.study.stages import Derived

from study_cli import study


def derived(axes=(1,), input_type="4x5x6xf32", indices_type="4x3x6xi32", output_type="4x3x6xf32", mode="raise"):
    return Derived(tuple(axes), input_type, "x", indices_type, "idx", output_type, "returned", Mode(mode))


def spelling(frontend="tosa", *ops, left=None, error=None):
    return Spelling(make_study("torch-gather", frontend=frontend), list(ops), Counter(left or {}), error)


def test_verdicts():
    own = spelling("tosa", derived())
    assert verdict(own, own) == "the variant's own spelling"
    assert verdict(spelling("linalg", derived(indices_type="4x3x6xi64")), own) == "same op"
    assert verdict(spelling("linalg", derived(mode="clip")), own) == (
        "same gather, mode clip where its own is raise")
    assert verdict(spelling("linalg", derived(input_type="4x5x1x6xf32", indices_type="4x3x1x6xi32",
                                              output_type="4x3x1x6xf32")), own) == (
        "same gather, its unit dims placed differently")
    assert verdict(spelling("linalg", derived(axes=(0,), output_type="3x5x6xf32")), own) == (
        "differs: axes (0,) vs (1,); output 3x5x6xf32 vs 4x3x6xf32")
    assert verdict(spelling("linalg", derived(axes=(0,), output_type="3x5x6xf32", mode="wrap")), own) == (
        "differs: axes (0,) vs (1,); output 3x5x6xf32 vs 4x3x6xf32; mode wrap vs raise")
    scatter = Derived((1,), "4x5x6xf32", "x", "4x3x6xi32", "idx", "4x5x6xf32", "returned", Mode.RAISE,
                      SCATTER_OP_NAME, Reduction.ADD)
    assert scatter.summary().startswith(f"{SCATTER_OP_NAME} axes=[1] reduction=add: input 4x5x6xf32 = x;")
    assert derived(mode="wrap").summary().startswith(f"{OP_NAME} axes=[1] mode=wrap: input")
    other = Derived((1,), "4x5x1x6xf32", "x", "4x3x1x6xi32", "idx", "4x5x1x6xf32", "returned", Mode.RAISE,
                    SCATTER_OP_NAME, Reduction.MAX)
    assert verdict(spelling("linalg", other), spelling("tosa", scatter)) == (
        "same scatter, its unit dims placed differently; reduction max where its own is add")
    assert verdict(spelling("linalg", left={"tensor.extract": 1}), own) == "not raised: 1 tensor.extract left"
    assert verdict(spelling("linalg", derived(), derived()), own) == "2 gmx ops (one expected)"
    assert verdict(spelling("stablehlo", error="the frontend program does not parse: x"), own) == (
        "the frontend program does not parse: x")
    assert verdict(spelling("linalg", derived()), spelling("tosa")) == "its own spelling has no single op to compare with"


def test_every_variant_has_its_own_frontend_first():
    assert VARIANTS["onnx-gather"].frontends() == ("onnx", "tosa", "stablehlo", "linalg")
    assert VARIANTS["index-select"].frontends() == ("tosa", "stablehlo", "linalg")
    assert VARIANTS["multiaxis"].frontends() == ("gmx", "tosa", "stablehlo", "linalg")
    assert make_study("index-select").frontend == "tosa"


def test_onnx_and_torch_spell_one_gather_alike():
    onnx, tosa = (spell(make_study("onnx-gather-elements", frontend=f)) for f in ("onnx", "tosa"))
    assert onnx.op() == tosa.op() == ((1,), "4x5x6xf32", "4x3x6", "4x3x6xf32", "raise", "none", OP_NAME)
    assert verdict(tosa, onnx) == "same op"


def test_study_of_another_frontend_shows_its_program(capsys):
    assert study("index-select", "--frontend", "linalg", "--no-timing", "--stages", "frontend") == 0
    out = capsys.readouterr().out
    assert '=== 1. frontend: linalg-on-tensors from torch_mlir.fx.export_and_import(..., ' \
           'output_type="linalg-on-tensors")' in out
    assert "tensor.extract %arg0" in out


def test_torch_forms_of_one_study_share_one_import(monkeypatch):
    """frontend_program imports a study's torch program once for its three
    torch forms (each form's text torch_export's own), and again for a study
    that differs in anything but its frontend (here the seed or a shape)."""
    from gmx.tools.experiments import frontends

    imports = []
    monkeypatch.setattr(frontends, "_STUDY_IMPORTS", {})
    real_import = frontends.torch_import
    monkeypatch.setattr(frontends, "torch_import", lambda *a: imports.append(a) or real_import(*a))
    own = make_study("torch-gather", seed=11)
    inputs = own.inputs()
    expected = own.variant.reference_fn(own)(*inputs)
    for form in ("tosa", "stablehlo", "linalg"):
        study = make_study("torch-gather", seed=11, frontend=form)
        want = frontends.torch_export(own.variant.torch_fn(own), inputs, output_type=frontends.OUTPUT_TYPES[form])
        assert frontends.frontend_program(study, inputs, expected.shape) == want, form
    assert len(imports) == 1 + 3  # frontend_program's one, and torch_export's own three
    other = make_study("torch-gather", seed=12)
    frontends.frontend_program(other, other.inputs(), expected.shape)
    wider = make_study("torch-gather", seed=11, shape=(4, 6, 6))
    frontends.frontend_program(wider, wider.inputs(), expected.shape)
    assert len(imports) == 1 + 3 + 2
