"""gmx.tools.study: the stage-by-stage study of one gather variant (`gmx-study`).

- `variants`: the gather variants, their options, validation, inputs and
  numpy/torch references.
- `frontends`: the programs a frontend emits for a variant (torch-mlir's FX
  importer, its ONNX importer, or gmx itself).
- `stages`: the pipelines from frontend TOSA to loops, IR and op counts per
  stage, and what the fusion derived.
- `measure`: fused/unfused/numpy/torch results checked and timed.
- `render`: the text of one study.
- `sweep`, `report`, `plots`: `--all --report DIR`.
"""
