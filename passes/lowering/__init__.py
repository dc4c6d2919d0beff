"""Lowering: gmx.gather_multiaxis (and everything around it) down to LLVM.

The passes: `convert_gmx_to_linalg` (`--convert-gmx-to-linalg`, with its
read plan in `gather_plan`), `gmx_stream_row_copies`
(`--gmx-stream-row-copies`) and `gmx_lower_to_llvm` (`--gmx-lower-to-llvm`,
which prepares entry points with `entry_points`).
"""
