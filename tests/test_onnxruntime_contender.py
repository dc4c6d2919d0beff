"""ONNX Runtime as a contender: each variant's ONNX graph
(`Variant.onnx_graph`), run by ONNX Runtime, equals the variant's numpy
reference exactly, through the one check every contender passes
(`contenders.check`); a variant with no plain ONNX form is absent, with the
reason. No frontend program is made (ONNX Runtime does not read it)."""

from __future__ import annotations

import pytest

from gmx.tools.experiments.contenders import Case, OnnxRuntime, check
from gmx.tools.experiments.variants import VARIANTS, make_study

pytest.importorskip("onnxruntime")


def _case(name: str, **options) -> Case:
    study = make_study(name, **options)
    inputs = study.inputs()
    return Case(study, inputs, study.variant.numpy_fn(study)(*inputs), text="", export_s=0.0)


def _result(case: Case, threads: int = 1):
    return check([OnnxRuntime("ort", threads=threads)], case).results["ort"]


# every variant that ONNX can write as plain nodes (`Variant.onnx_graph`)
WITH_ONNX_FORM = [name for name in VARIANTS if VARIANTS[name].onnx_graph(make_study(name)) is not None]


@pytest.mark.parametrize("name", WITH_ONNX_FORM)
def test_every_variant_with_an_onnx_form_equals_the_reference(name):
    result = _result(_case(name))
    assert result.status == "equal", result.line()
    assert result.info == {"threads": 1}


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"pattern": ("i", ":", "j")}, id="separated"),
        pytest.param({"pattern": ("i", "j")}, id="leading"),
        pytest.param({"pattern": (":", "i")}, id="one-past-dim-0"),
        pytest.param({"pattern": ("i", ":", "j"), "index_dtype": "i32"}, id="i32-cast-for-gathernd"),
    ],
)
def test_advanced_index_forms(options):
    result = _result(_case("advanced-index", **options), threads=2)
    assert result.status == "equal", result.line()


@pytest.mark.parametrize(
    "name, options, reason",
    [
        ("multiaxis", {}, "no plain ONNX form"),
        ("advanced-index", {"pattern": (":", "i", "j")}, "no plain ONNX form"),
    ],
)
def test_no_onnx_form_is_absent(name, options, reason):
    result = _result(_case(name, **options))
    assert result.status == "absent" and reason in result.detail


def test_broadcast_take_along_dim_expands_both_sides():
    # data broadcast along dim 0, indices along dim 2: both expanded
    result = _result(_case("take-along-axis", shape=(1, 5, 6), indices_shape=(4, 3, 1), axis=1))
    assert result.status == "equal", result.line()


def test_fill_has_no_onnx_form():
    result = _result(_case("take-fill"))
    assert result.status == "absent" and "no plain ONNX form" in result.line()
