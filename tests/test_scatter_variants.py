"""The scatter entries of the one variant registry: each one's contenders
(numpy, torch eager and its in-place form, ONNX Runtime where ONNX has it,
jax.jit) equal the reference
(`gmx.reference`'s mapping onto scatter_multiaxis), its gmx program
verifies, and, where the scatter lowers, runs to the same result. No
frontend program is exported here (that is gmx-study's, and slow)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from gmx.dialect import OP_NAME, SCATTER_OP_NAME, make_context
from gmx.dialect.mlir import ir
from gmx.dialect.modes import OpKind
from gmx.tools.experiments.contenders import (
    Case,
    Fused,
    Jax,
    Numpy,
    OnnxRuntime,
    Torch,
    check,
    make_case,
    op_counts,
    time_run,
)
from gmx.tools.experiments.variants import (
    REGISTRY,
    SCATTER_VARIANTS,
    VARIANTS,
    StudyError,
    make_study,
    sweep_study,
    variants_of,
)

NAMES = [v.name for v in SCATTER_VARIANTS]


def case_of(name: str, **options) -> Case:
    study = make_study(name, **options)
    inputs = study.inputs()
    return Case(study, inputs, study.variant.reference_fn(study)(*inputs), text="", export_s=0.0)


@pytest.mark.parametrize("name", NAMES)
def test_contenders_equal_the_reference(name):
    case = case_of(name)
    run = check([Numpy(), Torch(), Torch("torch in-place", in_place=True), OnnxRuntime(), Jax()], case)
    assert {n: r.status for n, r in run.results.items() if r.status != "absent"} == {
        n: "equal" for n, r in run.results.items() if r.status != "absent"}, {n: r.line() for n, r in run.results.items()}
    assert {run.results[n].status for n in ("numpy", "torch", "torch in-place", "jax")} == {"equal"}
    has_onnx = case.study.variant.onnx_graph(case.study) is not None
    assert (run.results["onnxruntime"].status == "equal") == has_onnx


@pytest.mark.parametrize("name", NAMES)
def test_reference_writes_where_the_frontend_does(name):
    """Not a copy of the input: the updates land (a scatter of nothing would pass the checks above)."""
    case = case_of(name)
    assert case.expected.shape == case.inputs[0].shape
    assert not np.array_equal(case.expected, case.inputs[0])


@pytest.mark.parametrize("name", NAMES)
def test_gmx_program_verifies_and_runs_where_the_scatter_lowers(name):
    from gmx.runtime import CompileError, run

    case = case_of(name)
    text = case.study.variant.gmx_program(case.study)
    with make_context():
        module = ir.Module.parse(text)
        module.operation.verify()
        assert sum(op.name == SCATTER_OP_NAME for op in module.body.operations[0].regions[0].blocks[0]) == 1
    try:
        out = run(text, *case.inputs)
    except CompileError as error:
        if "has no lowering" not in str(error):
            raise
        pytest.skip(f"gmx.scatter_multiaxis does not lower in this tree yet: {str(error).splitlines()[0]}")
    assert_array_equal(out, case.expected)


@pytest.mark.parametrize("name", NAMES)
def test_sweep_shapes_have_n_updates(name):
    """Ready for --all: n updates at each sweep size, the contenders equal there too."""
    for n in (64, 256):
        study = sweep_study(name, n)
        assert np.prod(study.variant.updates_shape(study)) == n
    inputs = study.inputs()
    case = Case(study, inputs, study.variant.reference_fn(study)(*inputs), text="", export_s=0.0)
    assert all(r.ok for r in check([Numpy(), Torch()], case).results.values())


@pytest.mark.parametrize("name", NAMES)
def test_in_place_form_writes_its_data(name):
    """`torch_inplace_fn` writes the reference's result into the data (its
    first argument) and returns that tensor; a gather has no such form."""
    import torch

    case = case_of(name)
    tensors = [torch.from_numpy(a.copy()) for a in case.inputs]
    out = case.study.variant.torch_inplace_fn(case.study)(*tensors)
    assert out.data_ptr() == tensors[0].data_ptr()
    assert_array_equal(tensors[0].numpy(), case.expected)
    gather = make_study("torch-gather")
    assert gather.variant.torch_inplace_fn(gather) is None


def test_in_place_contenders_write_their_own_copy():
    """torch in-place and gmx donated write a copy of the data of their own:
    checked on their first call, then timed writing it again (an add keeps
    accumulating), while the inputs the other contenders read stay as they
    were; a gather has neither (absent)."""
    case = make_case(make_study("index-add", frontend="gmx"))
    before = [a.copy() for a in case.inputs]
    contenders = [Torch("torch in-place", in_place=True), Fused("gmx donated", in_place=True), Torch()]
    run = check(contenders, case)
    assert {n: r.status for n, r in run.results.items()} == dict.fromkeys(("torch in-place", "gmx donated", "torch"), "equal")
    assert run.results["gmx donated"].info["donated"] == [0] and not run.resets
    time_run(run, repeat=2, warmup=0)
    for a, b in zip(case.inputs, before):
        assert_array_equal(a, b)
    accumulated = run.calls["torch in-place"]().numpy()
    assert not np.array_equal(accumulated, case.expected)  # timed calls kept adding: not what is checked
    assert {r.status for r in check(contenders[:2], case_of("torch-gather")).results.values()} == {"absent"}


def test_a_donated_input_is_reset_unless_its_scatter_repeats_its_result():
    """gmx with the data donated gets it as it was before each timed call
    (an untimed reset), but for a scatter whose reduction is idempotent
    (the KV cache's index_copy_): a call on its own result writes it again,
    so it is timed as torch's in-place form is, with no copy between calls."""
    kv = make_case(make_study("kv-cache-update"))
    run = check([Fused("gmx")], kv)
    assert run.results["gmx"].info["donated"] == [0] and not run.resets
    time_run(run, repeat=2, warmup=0)
    assert_array_equal(run.calls["gmx"](), kv.expected)
    added = check([Fused("gmx", donate=(0,))], make_case(make_study("index-add", frontend="gmx")))
    assert set(added.resets) == {"gmx"}


def test_a_wrong_in_place_result_is_caught(monkeypatch):
    """An in-place form that leaves the data as it was (or writes elsewhere)
    is WRONG, not timed."""
    from gmx.tools.experiments.scatter_variants import IndexAdd

    monkeypatch.setattr(IndexAdd, "torch_inplace_fn", lambda self, s: lambda x, idx, upd: x)
    run = check([Torch("torch in-place", in_place=True)], case_of("index-add"))
    assert run.results["torch in-place"].status == "wrong" and not run.calls


def test_the_registry():
    assert set(REGISTRY) == set(VARIANTS) | set(NAMES) and not set(VARIANTS) & set(NAMES)
    assert list(variants_of(OpKind.SCATTER)) == NAMES
    assert all(v.op is OpKind.GATHER for v in VARIANTS.values())
    assert all(v.benchmarks for v in SCATTER_VARIANTS)
    kv = REGISTRY["kv-cache-update"]
    assert kv.donated == (0,) and kv.benchmarks[0].full == ((8, 32, 4096, 128), (1,))
    assert make_study("kv-cache-update").frontend == "gmx"
    with pytest.raises(StudyError, match="more indices than positions along axis 1"):
        make_study("torch-scatter", shape=(4, 3), indices_shape=(4, 5))
    with pytest.raises(StudyError, match="unknown variant 'nope' .*kv-cache-update"):
        make_study("nope")


def test_contenders_count_the_registrys_op():
    counts = Counter({OP_NAME: 2, SCATTER_OP_NAME: 1, "tosa.gather": 3, "tosa.scatter": 4, "tm_tensor.scatter": 1})
    assert op_counts(REGISTRY["torch-scatter"], counts) == {"gmx_ops": 1, "frontend_ops": 5}
    assert op_counts(REGISTRY["torch-gather"], counts) == {"gmx_ops": 2, "frontend_ops": 3}
