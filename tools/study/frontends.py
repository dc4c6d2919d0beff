"""The frontend programs of a study: TOSA from torch-mlir, or gmx directly.

- `export_torch(forward, arrays)`: `torch_mlir.fx.export_and_import(...,
  output_type="tosa")` of a torch function at the arrays' static shapes.
- `onnx_model(...)` builds a one-node ONNX model; `onnx_to_tosa(model)`
  imports it with torch-mlir's ONNX importer and lowers it to TOSA.
- `gmx_program(...)`: one `gmx.gather_multiaxis` in a function.

Every program's entry is `@main`. Failures raise `FrontendError` with the
frontend's first diagnostic line, never a binding traceback.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Callable

import numpy as np

from .dtypes import onnx_type, to_torch

TOSA_PIPELINE = (
    "builtin.module(torch-onnx-to-torch-backend-pipeline,torch-backend-to-tosa-backend-pipeline)"
)


def onnx_to_tosa(model) -> str:
    """Import `model` with torch-mlir's ONNX importer (as `torch-mlir-import-onnx`
    does), lower it with TOSA_PIPELINE (torch-mlir's ONNX -> torch backend ->
    TOSA backend pipelines), return the module as text. The entry function is
    named after the ONNX graph."""
    import onnx
    import torch_mlir.dialects.torch as torch_d  # registers the torch-* passes
    from torch_mlir.extras import onnx_importer

    from gmx.dialect.mlir import ir, passmanager

    onnx.checker.check_model(model)
    model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    context = ir.Context()
    torch_d.register_dialect(context)
    info = onnx_importer.ModelInfo(model)
    module = info.create_module(context=context).operation
    onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
    module.verify()
    with context:
        passmanager.PassManager.parse(TOSA_PIPELINE).run(module)
    return module.get_asm()


ONNX_OPSET = 17  # GatherND's batch_dims needs >= 12; torch-mlir's importer knows 17 well


class FrontendError(Exception):
    """The frontend could not produce the program; the message is one line."""


def first_error_line(error: Exception) -> str:
    """The most telling line of a frontend's error: its first `error:` line,
    else its first line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in lines:
        if "error:" in line:
            return line
    return lines[0] if lines else type(error).__name__


@contextlib.contextmanager
def _quiet_torch():
    """torch.export's deprecation warnings and fake-tensor error logs (printed
    with tracebacks even when the error is caught) stay off the terminal."""
    logger = logging.getLogger("torch._subclasses.fake_tensor")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def export_torch(forward: Callable, arrays: tuple[np.ndarray, ...]) -> str:
    """The TOSA text `torch_mlir.fx.export_and_import` makes of `forward` at
    the arrays' static shapes and dtypes."""
    import torch
    from torch_mlir import fx

    class Module(torch.nn.Module):
        def forward(self, *args):
            return forward(*args)

    tensors = [to_torch(a) for a in arrays]
    try:
        with _quiet_torch():
            module = fx.export_and_import(Module(), *tensors, output_type="tosa")
    except Exception as error:  # torch.export and torch-mlir raise many kinds
        raise FrontendError(f"torch-mlir could not export the program: {first_error_line(error)}") from None
    return str(module)


def onnx_model(op_type: str, attributes: dict, inputs: list[tuple], output: tuple):
    """A one-node ONNX model, graph `main`: `inputs` are (name, dtype, shape),
    `output` is (dtype, shape); dtypes in MLIR spelling."""
    from onnx import helper

    def value(name, dtype, shape):
        return helper.make_tensor_value_info(name, onnx_type(dtype), list(shape))

    node = helper.make_node(op_type, [name for name, _, _ in inputs], ["out"], **attributes)
    graph = helper.make_graph([node], "main", [value(*i) for i in inputs], [value("out", *output)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", ONNX_OPSET)])


def import_onnx(model) -> str:
    """onnx_to_tosa, with its failures as FrontendError."""
    try:
        return onnx_to_tosa(model)
    except Exception as error:  # onnx's checker, the importer and the pipeline raise many kinds
        raise FrontendError(f"torch-mlir could not import the ONNX model: {first_error_line(error)}") from None


def gmx_program(input_type: tuple[str, tuple], indices_type: tuple[str, tuple], axes) -> str:
    """`@main(x, idx)` returning one gmx.gather_multiaxis; types are
    (MLIR element type, shape)."""
    from gmx.dialect import gather_multiaxis, make_context
    from gmx.dialect.mlir import func, ir

    with make_context(), ir.Location.unknown():
        types = [ir.RankedTensorType.get(list(shape), ir.Type.parse(t)) for t, shape in (input_type, indices_type)]
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):

            @func.FuncOp.from_py_func(*types, name="main")
            def main(x, idx):
                return gather_multiaxis(x, idx, list(axes))

        return str(module)


ROUTES = {
    "torch": 'TOSA from torch_mlir.fx.export_and_import(..., output_type="tosa")',
    "onnx": "TOSA from torch-mlir's ONNX importer and " + TOSA_PIPELINE,
    "gmx": "the gmx program itself (no frontend)",
}


def frontend_program(study, inputs: tuple[np.ndarray, ...]) -> str:
    """The program `study`'s frontend emits (ROUTES), entry `@main`, taking
    the inputs in `study.arguments()` order. Raises FrontendError."""
    variant = study.variant
    if variant.frontend == "torch":
        return export_torch(variant.torch_fn(study), inputs)
    types = variant.input_types(study)
    if variant.frontend == "onnx":
        op_type, attributes = variant.onnx_node(study)
        expected = variant.numpy_fn(study)(*inputs)
        arguments = [(name, t, shape) for name, (t, shape) in zip(study.arguments(), types)]
        return import_onnx(onnx_model(op_type, attributes, arguments, (study.dtype, expected.shape)))
    return gmx_program(*types, study.axes)
