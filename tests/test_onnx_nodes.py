"""ONNX's own node tests of Gather, GatherElements and GatherND, through the
torch-mlir ONNX route, raised by --gmx-canonicalize.

Each case (`onnx_nodes`: regenerated into a temporary directory, imported
with torch-mlir's ONNX importer, lowered to TOSA by torch-mlir) is checked
twice against the output ONNX expects, exactly (values, dtype, shape):

- unfused: the TOSA program as torch-mlir emits it (one tosa.gather over a
  flattened input with linearised indices), run by gmx.runtime. This
  validates the route itself.
- fused: after `gmx-canonicalize` (alone, and after `tosa-to-tensor`, which
  turns the reshapes into expand/collapse_shape and tosa.concat into
  tensor.insert_slice), exactly one gmx.gather_multiaxis is left and none of
  the gather, the index linearisation (mul, reduce_sum) or the materialised
  iotas (concat, tile) remain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import gmx.runtime
import onnx_nodes
from gmx.tools.experiments.frontends import onnx_to_tosa
from gmx.tools.experiments.pipelines import run_pipeline

GMX_OP = "gmx.gather_multiaxis"

# Ops that must be gone after gmx-canonicalize: the gather, the index
# linearisation and the materialised iotas. After tosa-to-tensor the
# tosa.concat of iotas is a chain of tensor.insert_slice.
FUSED_AWAY = ("tosa.gather", "tosa.reduce_sum", "tosa.concat", "tosa.tile", "tosa.mul")
PASS_VARIANTS = {
    "gmx-canonicalize": (["gmx-canonicalize"], FUSED_AWAY),
    "tosa-to-tensor,gmx-canonicalize": (
        ["tosa-to-tensor", "gmx-canonicalize"],
        FUSED_AWAY + ("tensor.insert_slice",),
    ),
}


@pytest.fixture(scope="session")
def onnx_node_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("onnx_node")
    names = onnx_nodes.generate(directory)
    return directory, names


@pytest.fixture(scope="session")
def _lowered():
    return {}


@dataclass(frozen=True, repr=False)
class Lowered:
    node: onnx_nodes.NodeCase
    tosa: str  # torch-mlir's TOSA program, entry function named after the case

    def __repr__(self) -> str:  # keeps failure reports short
        return f"<{self.node.name}>"


@pytest.fixture
def case(request, onnx_node_dir, _lowered) -> Lowered:
    """One case lowered to TOSA (the text is also written next to the model)."""
    directory, _ = onnx_node_dir
    name = request.param
    if name not in _lowered:
        node_case = onnx_nodes.load(directory / name)
        tosa = onnx_to_tosa(node_case.model)
        (directory / name / "tosa.mlir").write_text(tosa)
        _lowered[name] = Lowered(node_case, tosa)
    return _lowered[name]


def assert_onnx_output(node_case, program: str) -> None:
    (expected,) = node_case.outputs
    got = gmx.runtime.run(program, *node_case.inputs, entry=node_case.name)
    assert isinstance(got, np.ndarray)
    assert (got.dtype, got.shape) == (expected.dtype, expected.shape)
    assert np.array_equal(got, expected), f"got\n{got!r}\nexpected\n{expected!r}"


def test_cases_are_all_gather_node_tests(onnx_node_dir):
    _, names = onnx_node_dir
    assert sorted(names) == sorted(onnx_nodes.CASES)


@pytest.mark.parametrize("case", onnx_nodes.CASES, indirect=True)
def test_unfused_tosa_matches_onnx(case):
    names = run_pipeline(case.tosa, []).counts
    assert names["tosa.gather"] == 1 and names[GMX_OP] == 0, names
    assert_onnx_output(case.node, case.tosa)


@pytest.mark.parametrize("variant", PASS_VARIANTS)
@pytest.mark.parametrize("case", onnx_nodes.CASES, indirect=True)
def test_fused_gather_matches_onnx(case, variant):
    passes, fused_away = PASS_VARIANTS[variant]
    fused = run_pipeline(case.tosa, passes)
    count = fused.counts
    assert count[GMX_OP] == 1, (
        f"expected exactly one {GMX_OP} after {','.join(passes)}, found {count[GMX_OP]}; "
        f"ops: {dict(sorted(count.items()))}"
    )
    left = {name: count[name] for name in fused_away if count[name]}
    assert not left, f"left after {','.join(passes)}: {left}\n{fused.text}"
    assert_onnx_output(case.node, fused.text)
