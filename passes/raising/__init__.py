"""Raising: what frontends emit for gathers, raised into gmx.gather_multiaxis.

`gmx_canonicalize` is the pass (`--gmx-canonicalize`); `gather_spec` (a
gather as coordinates over an output space, and the one gmx op it becomes),
`coordinates` (reading index tensors into coordinates) and `index_values`
(evaluating constant and elementwise index arithmetic) are its parts.
"""
