"""The one way gmx's tools and tests get a frontend program: TOSA,
StableHLO or linalg-on-tensors from torch-mlir, TOSA from ONNX, or gmx
directly.

- `torch_export(forward, inputs, dynamic_dims=None, output_type="tosa")`:
  `torch_mlir.fx.export_and_import(..., output_type=...)` (TOSA, StableHLO
  or linalg-on-tensors) of a torch module or function at the inputs'
  shapes and dtypes (numpy arrays or torch tensors), static but for the
  dims named in `dynamic_dims`; `torch_to_tosa` is its TOSA form. It is
  `torch_lower(torch_import(...), output_type)`: the import (torch.export,
  the costly half) once, then lowered to each form.
- `jax_to_stablehlo(fn, inputs)`: StableHLO from
  `jax.jit(fn).lower(*inputs).as_text()` on the CPU, 64-bit types kept
  (`jax.enable_x64` around the call), entry `@main` (public, JAX's private helpers beside it).
- `onnx_model(...)` builds a one-node ONNX model, `onnx_graph_model(...)`
  one of a few nodes (a variant's `onnx_graph`, which ONNX Runtime runs);
  `onnx_to_tosa(model)` imports a model with torch-mlir's ONNX importer and
  lowers it to TOSA; `onnx_import(model, output_type)` to TOSA,
  linalg-on-tensors or StableHLO.
- `gmx_program(...)`: one `gmx.gather_multiaxis` in a function (a
  variant's `gmx_program` is its frontend "gmx" program).
- `frontend_program(study, inputs, output_shape)`: the program of a
  study's gather as its frontend (FRONTENDS) spells it.

Failures raise `FrontendError` whose message is the frontend's first
diagnostic line (the frontend's own exception is its cause), never a binding
traceback on a terminal.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sys
import types
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from gmx.dialect.errors import GmxError
from gmx.tools.ir_dumps import held_stderr

from .choices import Choice
from .dtypes import onnx_type, to_torch

# torch-mlir's ONNX -> torch backend pipeline, then its backend pipeline of each output type
ONNX_PIPELINES = {
    output_type: f"builtin.module(torch-onnx-to-torch-backend-pipeline,torch-backend-to-{output_type}-backend-pipeline)"
    for output_type in ("tosa", "linalg-on-tensors", "stablehlo")
}
TOSA_PIPELINE = ONNX_PIPELINES["tosa"]
ONNX_OPSET = 17  # GatherND's batch_dims needs >= 12; torch-mlir's importer knows 17 well


class FrontendError(GmxError):
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
def _quiet(logger_name: str, level: int):
    """Python warnings ignored, and logger `logger_name` silent below `level`."""
    logger = logging.getLogger(logger_name)
    old = logger.level
    logger.setLevel(level)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(old)


def _quiet_torch():
    """torch.export's deprecation warnings and fake-tensor error logs (printed
    with tracebacks even when the error is caught) stay off the terminal."""
    return _quiet("torch._subclasses.fake_tensor", logging.CRITICAL)


def torch_module(forward: Callable):
    """A torch.nn.Module whose forward is `forward` (what torch.export takes)."""
    import torch

    forward = named_forward(forward)

    class Function(torch.nn.Module):
        def forward(self, *args):
            return forward(*args)

    return Function()


def named_forward(function: Callable) -> Callable:
    """`function` (a plain Python function; anything else as it is) run under
    the name `forward`: torch.export keeps only stack frames of functions of
    that name (torch.fx's _record_forward_stack_traces_only), so the ops of
    a program exported with locations then name its own lines."""
    if not isinstance(function, types.FunctionType):
        return function
    code = function.__code__.replace(co_name="forward")
    return types.FunctionType(code, function.__globals__, "forward", function.__defaults__, function.__closure__)


TORCH_OUTPUT_TYPES = ("tosa", "stablehlo", "linalg-on-tensors")


def torch_to_tosa(
    forward,
    inputs: Sequence,
    dynamic_dims: Sequence[dict[int, str] | None] | None = None,
    *,
    locations: bool = False,
) -> str:
    """`torch_export(..., output_type="tosa")`."""
    return torch_export(forward, inputs, dynamic_dims, output_type="tosa", locations=locations)


def torch_export(
    forward,
    inputs: Sequence,
    dynamic_dims: Sequence[dict[int, str] | None] | None = None,
    *,
    output_type: str = "tosa",
    locations: bool = False,
) -> str:
    """The text `torch_mlir.fx.export_and_import` makes of `forward` (a
    torch.nn.Module, or a function of the inputs) at the inputs' shapes and
    dtypes; inputs are torch tensors or numpy arrays (bf16 as
    ml_dtypes.bfloat16). The shapes are static but for `dynamic_dims`: per
    input, None or {dim: name}, each such dim exported as `?` (a
    `torch.export.Dim` of that name; inputs sharing a name share the size).
    With `locations`, every op's source location (the Python call stack) is
    printed too. `output_type` is one of TORCH_OUTPUT_TYPES.

    It is `torch_lower(torch_import(...), output_type)`, byte for byte
    export_and_import's text: the costly import, once, lowers to each form."""
    _check_output_type(output_type)
    return torch_lower(torch_import(forward, inputs, dynamic_dims), output_type, locations=locations)


def torch_import(
    forward,
    inputs: Sequence,
    dynamic_dims: Sequence[dict[int, str] | None] | None = None,
) -> str:
    """`torch_export`'s first half: torch.export, its decompositions and
    torch-mlir's FX importer (`export_and_import(..., output_type="raw")`);
    the torch-dialect module's text, with its locations (`torch_lower` parses
    them back)."""
    import torch
    from torch_mlir import fx

    is_module = isinstance(forward, torch.nn.Module)
    module = forward if is_module else torch_module(forward)
    tensors = [a if isinstance(a, torch.Tensor) else to_torch(a) for a in inputs]
    shapes = None if dynamic_dims is None else _export_dims(dynamic_dims)
    if shapes is not None and not is_module:
        shapes = (shapes,)  # torch_module's forward takes *args: one structure for all of them
    with _export_errors():
        imported = fx.export_and_import(module, *tensors, output_type="raw", dynamic_shapes=shapes)
    return imported.operation.get_asm(enable_debug_info=True)


def torch_lower(imported: str, output_type: str = "tosa", *, locations: bool = False) -> str:
    """`torch_export`'s second half: `imported` (`torch_import`'s text)
    parsed in a fresh context and lowered to `output_type` (one of
    TORCH_OUTPUT_TYPES) by the lowering export_and_import runs after its
    import (torch_mlir.fx._module_lowering, its default options)."""
    from torch_mlir import fx, ir
    from torch_mlir.compiler_utils import OutputType
    from torch_mlir.dialects import torch as torch_d

    _check_output_type(output_type)
    with _export_errors():
        context = ir.Context()
        torch_d.register_dialect(context)
        module = ir.Module.parse(imported, context)
        lowered = fx._module_lowering(False, False, OutputType.get(output_type), module)
    return lowered.operation.get_asm(enable_debug_info=locations)


def _check_output_type(output_type: str) -> None:
    if output_type not in TORCH_OUTPUT_TYPES:
        raise ValueError(f"output_type must be one of {', '.join(TORCH_OUTPUT_TYPES)}, not {output_type!r}")


@contextlib.contextmanager
def _export_errors():
    """torch.export's and torch-mlir's failures within the block raised as
    one FrontendError (the first error line, and the first diagnostic MLIR
    wrote to stderr), their warnings and logs kept off the terminal."""
    diagnostics: list[str] = []
    try:
        with _quiet_torch(), _held_stderr(diagnostics):
            yield
    except Exception as error:  # torch.export and torch-mlir raise many kinds
        raise FrontendError(f"torch-mlir could not export the program: {first_error_line(error).rstrip(':')}"
                            f"{_diagnostic(diagnostics)}") from error


def _held_stderr(diagnostics: list[str]):
    """torch-mlir's lowering diagnostics are written to descriptor 2 by MLIR
    itself, not into its exception: within the block they are held; on
    leaving, their text is appended to `diagnostics` and written to stderr
    but for the `error:` lines (the exception carries the first)."""
    def keep(text: str) -> None:
        diagnostics.append(text)
        sys.stderr.write("".join(line for line in text.splitlines(True) if " error: " not in line))

    return held_stderr(keep)


def _diagnostic(diagnostics: list[str]) -> str:
    """`: <the first error's message>` of held diagnostics (its location and
    the op it prints dropped), or nothing."""
    for line in "".join(diagnostics).splitlines():
        _, found, message = line.partition(" error: ")
        if found:
            return ": " + message.split(": %", 1)[0].strip()
    return ""


def _export_dims(dynamic_dims: Sequence[dict[int, str] | None]) -> tuple:
    """torch.export's `dynamic_shapes` for `torch_to_tosa`'s `dynamic_dims`."""
    from torch.export import Dim

    named: dict[str, object] = {}
    return tuple(
        None if dims is None else {d: named.setdefault(name, Dim(name)) for d, name in dims.items()}
        for dims in dynamic_dims
    )


def jax_to_stablehlo(fn: Callable, inputs: Sequence) -> str:
    """The StableHLO text JAX emits for `jax.jit(fn)` at the inputs' shapes
    and dtypes (numpy arrays; int64 and float64 stay 64-bit), on the CPU.
    JAX is imported here, and quietly: no platform warnings on a terminal."""
    try:
        with _quiet_jax():
            import jax

            with jax.enable_x64(True):  # this call only: other JAX users keep their setting
                return jax.jit(fn).lower(*inputs).as_text()
    except Exception as error:  # tracing errors come in many kinds
        raise FrontendError(f"JAX could not lower the program: {first_error_line(error)}") from error


def _quiet_jax():
    """JAX on the CPU, its logger's warnings (no GPU/TPU found) silenced."""
    import os

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    return _quiet("jax._src.xla_bridge", logging.ERROR)


def onnx_to_tosa(model, *, locations: bool = False) -> str:
    """Import `model` with torch-mlir's ONNX importer (as `torch-mlir-import-onnx`
    does), lower it with TOSA_PIPELINE (torch-mlir's ONNX -> torch backend ->
    TOSA backend pipelines), return the module as text, with each op's
    location (its ONNX node) if `locations`. The entry function is named
    after the ONNX graph."""
    return onnx_import(model, locations=locations)


def onnx_import(model, output_type: str = "tosa", *, locations: bool = False) -> str:
    """`onnx_to_tosa` to any of torch-mlir's output types (`ONNX_PIPELINES`:
    "tosa", "linalg-on-tensors", "stablehlo")."""
    if output_type not in ONNX_PIPELINES:
        raise FrontendError(f"unknown output type {output_type!r}; expected one of {', '.join(ONNX_PIPELINES)}")
    try:
        return _onnx_import(model, ONNX_PIPELINES[output_type], locations)
    except Exception as error:  # onnx's checker, the importer and the pipeline raise many kinds
        raise FrontendError(f"torch-mlir could not import the ONNX model: {first_error_line(error)}") from error


def _onnx_import(model, pipeline: str, locations: bool) -> str:
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
        passmanager.PassManager.parse(pipeline).run(module)
    return module.get_asm(enable_debug_info=locations)


def onnx_model(op_type: str, attributes: dict, inputs: list[tuple], output: tuple):
    """A one-node ONNX model, graph `main`: `inputs` are (name, dtype, shape),
    `output` is (dtype, shape); dtypes in MLIR spelling."""
    return onnx_graph_model([(op_type, [name for name, _, _ in inputs], ["out"], attributes)], inputs, output)


def onnx_graph_model(nodes: list[tuple], inputs: list[tuple], output: tuple, opset: int = ONNX_OPSET):
    """An ONNX model, graph `main`, of `nodes` (op type, input names, output
    names, attributes; a numpy array attribute is a tensor) computing `out`:
    `inputs` are (name, dtype, shape), `output` is (dtype, shape); dtypes in
    MLIR spelling; `opset`: the default domain's (ScatterElements' and
    ScatterND's max and min need 18)."""
    from onnx import helper, numpy_helper

    def value(name, dtype, shape):
        return helper.make_tensor_value_info(name, onnx_type(dtype), list(shape))

    def attribute(v):
        return numpy_helper.from_array(v) if isinstance(v, np.ndarray) else v

    made = [
        helper.make_node(op, list(ins), list(outs), **{k: attribute(v) for k, v in attributes.items()})
        for op, ins, outs, attributes in nodes
    ]
    graph = helper.make_graph(made, "main", [value(*i) for i in inputs], [value("out", *output)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def gmx_program(input_type: tuple[str, tuple], indices_type: tuple[str, tuple], axes, *,
                mode=None, fill_value=None) -> str:
    """`@main(x, idx)` returning one gmx.gather_multiaxis; types are
    (MLIR element type, shape); `mode` and `fill_value` as the builder takes
    them."""
    from gmx.dialect import gather_multiaxis, make_context
    from gmx.dialect.mlir import func, ir

    with make_context(), ir.Location.unknown():
        types = [ir.RankedTensorType.get(list(shape), ir.Type.parse(t)) for t, shape in (input_type, indices_type)]
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):

            @func.FuncOp.from_py_func(*types, name="main")
            def main(x, idx):
                return gather_multiaxis(x, idx, list(axes), mode=mode, fill_value=fill_value)

        return str(module)


class Frontend(Choice):
    """How a study's gather is spelled (gmx-study --frontend): the first
    three export the variant's torch expression with torch-mlir."""

    TOSA = "tosa"
    STABLEHLO = "stablehlo"
    LINALG = "linalg"
    ONNX = "onnx"
    GMX = "gmx"


FRONTENDS = {
    Frontend.TOSA: 'TOSA from torch_mlir.fx.export_and_import(..., output_type="tosa")',
    Frontend.STABLEHLO: 'StableHLO from torch_mlir.fx.export_and_import(..., output_type="stablehlo")',
    Frontend.LINALG: 'linalg-on-tensors from torch_mlir.fx.export_and_import(..., output_type="linalg-on-tensors")',
    Frontend.ONNX: "TOSA from torch-mlir's ONNX importer and " + TOSA_PIPELINE,
    Frontend.GMX: "the gmx program itself (no frontend)",
}
# a form (Frontend or its spelling) -> torch-mlir's output_type
OUTPUT_TYPES = {Frontend.TOSA: "tosa", Frontend.STABLEHLO: "stablehlo", Frontend.LINALG: "linalg-on-tensors"}


# torch_import's text of the last studies' torch programs, by `_import_key`
_STUDY_IMPORTS: dict[tuple, str] = {}
_STUDY_IMPORTS_KEPT = 16


def _study_import(study, inputs: tuple[np.ndarray, ...]) -> str:
    """`torch_import` of the study's torch program, kept for the next
    studies of the same gather in another torch form (gmx-study's table of
    every frontend's spelling, a sweep point and its spellings): one import
    each, lowered per form."""
    key = _import_key(study, inputs)
    if key not in _STUDY_IMPORTS:
        text = torch_import(study.variant.torch_fn(study), inputs)
        while len(_STUDY_IMPORTS) >= _STUDY_IMPORTS_KEPT:
            del _STUDY_IMPORTS[next(iter(_STUDY_IMPORTS))]  # the oldest
        _STUDY_IMPORTS[key] = text
    return _STUDY_IMPORTS[key]


def _import_key(study, inputs: tuple[np.ndarray, ...]) -> tuple:
    """What a study's torch import depends on: the study but its frontend
    (its variant by name) and the inputs' shapes and dtypes (torch.export
    traces shapes, never values)."""
    fields = tuple((f.name, getattr(study, f.name)) for f in dataclasses.fields(study)
                   if f.name not in ("variant", "frontend"))
    return (study.variant.name, fields, tuple((np.shape(a), np.asarray(a).dtype.str) for a in inputs))


def frontend_program(study, inputs: tuple[np.ndarray, ...], output_shape: tuple[int, ...]) -> str:
    """The program `study.frontend` (FRONTENDS) emits for the study's gather,
    entry `@main`, taking the inputs in `study.arguments()` order;
    `output_shape` is the reference's (an ONNX model declares it). Raises
    FrontendError."""
    variant = study.variant
    if study.frontend in OUTPUT_TYPES:
        return torch_lower(_study_import(study, inputs), OUTPUT_TYPES[study.frontend])
    types = variant.input_types(study)
    if study.frontend == Frontend.ONNX:
        op_type, attributes = variant.onnx_node(study)
        arguments = [(name, t, shape) for name, (t, shape) in zip(study.arguments(), types)]
        return onnx_to_tosa(onnx_model(op_type, attributes, arguments, (study.dtype, output_shape)))
    return variant.gmx_program(study)
