"""ONNX backend node tests of Gather, GatherElements and GatherND, as TOSA.

The onnx wheel no longer ships the node test data (`onnx/backend/test/data/
node`). `generate(directory)` regenerates the cases of the three gather
operators from onnx's own generators and writes them in the layout the data
used to have:

    directory/<name>/model.onnx
    directory/<name>/test_data_set_0/input_<j>.pb, output_<j>.pb

`load(directory / name)` reads one back (`NodeCase`); the tests import its
model with `gmx.tools.experiments.frontends.onnx_to_tosa`, as gmx-study
does (torch-mlir's ONNX importer and pipelines to TOSA text, whose function
is named after the case: the importer names it after the ONNX graph).

Generation: `onnx.backend.test.loader.load_model_tests(kind="node")` imports
every module of `onnx.backend.test.case.node` (each one runs its exporters,
which append to `onnx.backend.test.case.node._NodeTestCases`) and returns that
list: 1884 cases, ~6 s, many RuntimeWarnings. Importing only the modules of
the three operators runs the same exporters; the exporter metaclass seeds
numpy with 0 before each of them, so models and data are byte for byte the
ones `load_model_tests` gives, in ~0.4 s. Nothing needs the network.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

# The modules of onnx.backend.test.case.node holding the exporters.
OP_MODULES = {"Gather": "gather", "GatherElements": "gatherelements", "GatherND": "gathernd"}

# Every node test case of those operators in onnx 1.23.2 (a test checks that
# the generators yield exactly these).
CASES = (
    "test_gather_0",
    "test_gather_1",
    "test_gather_2d_indices",
    "test_gather_negative_indices",
    "test_gather_elements_0",
    "test_gather_elements_1",
    "test_gather_elements_negative_indices",
    "test_gathernd_example_float32",
    "test_gathernd_example_int32",
    "test_gathernd_example_int32_batch_dim1",
)


@dataclass(frozen=True)
class NodeCase:
    name: str  # also the entry function of the imported module
    op_type: str
    model: onnx.ModelProto
    inputs: tuple[np.ndarray, ...]
    outputs: tuple[np.ndarray, ...]


def _node_test_cases() -> list:
    """onnx's TestCase objects of the gather operators (model and data in memory)."""
    state = np.random.get_state()  # the exporters reseed numpy's global generator
    try:
        for module in OP_MODULES.values():
            importlib.import_module(f"onnx.backend.test.case.node.{module}")
    finally:
        np.random.set_state(state)
    from onnx.backend.test.case.node import _NodeTestCases

    return [c for c in _NodeTestCases if c.model.graph.node[0].op_type in OP_MODULES]


def generate(directory: Path) -> list[str]:
    """Write every case of the gather operators under `directory`; their names."""
    names = []
    for case in _node_test_cases():
        case_dir = Path(directory) / case.name
        data_dir = case_dir / "test_data_set_0"
        data_dir.mkdir(parents=True)
        onnx.save(case.model, case_dir / "model.onnx")
        (inputs, outputs), = case.data_sets
        graph = case.model.graph
        for kind, arrays, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, (array, info) in enumerate(zip(arrays, infos, strict=True)):
                tensor = numpy_helper.from_array(np.asarray(array), info.name)
                (data_dir / f"{kind}_{j}.pb").write_bytes(tensor.SerializeToString())
        names.append(case.name)
    return names


def load(case_dir: Path) -> NodeCase:
    """A case as `generate` wrote it."""
    case_dir = Path(case_dir)
    model = onnx.load(case_dir / "model.onnx")
    data_dir = case_dir / "test_data_set_0"

    def arrays(kind: str, count: int) -> tuple[np.ndarray, ...]:
        return tuple(
            numpy_helper.to_array(onnx.load_tensor(data_dir / f"{kind}_{j}.pb")) for j in range(count)
        )

    return NodeCase(
        name=case_dir.name,
        op_type=model.graph.node[0].op_type,
        model=model,
        inputs=arrays("input", len(model.graph.input)),
        outputs=arrays("output", len(model.graph.output)),
    )
