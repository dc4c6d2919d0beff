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
