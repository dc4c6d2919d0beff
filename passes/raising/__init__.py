"""Raising: what frontends emit for gathers, raised into gmx.gather_multiaxis.

`gmx_canonicalize` is the pass (`--gmx-canonicalize`): it composes the
pattern families, one module each exporting its `PATTERNS`
(`gmx.passes.patterns` has the record and the driver): `tosa_gathers`,
`input_views`, `input_folds`, `result_folds`, `index_folds`,
`linalg_gathers`, `tensor_gathers`, `dynamic_gathers`, `stablehlo_gathers`.
Every reader hands a `raised_gather.RaisedGather` to `emit_gather`, the one
builder of the gmx op. Their parts: `gather_spec` (a gather as coordinates
over an output space, and the gmx op it becomes), `spec_rewrites` (rewrites of a spec),
`loop_gathers` (a gather read from loops), `coordinates` (reading index
tensors into coordinates), `linear_indices` (a linear index split into its
terms), `coordinate_tuples` (coordinate tuples packed in a last dim),
`index_values` (evaluating constant and elementwise index arithmetic),
`integer_ops` (what each integer op computes) and `index_maps` (an index
function read as what gmx does: absorbed, a mode).
"""
