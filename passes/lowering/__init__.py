"""Lowering: gmx.gather_multiaxis and gmx.scatter_multiaxis (and everything
around them) down to LLVM.

The passes: `convert_gmx_to_linalg` (`--convert-gmx-to-linalg`: `gather_plan`
decides how each gather is lowered, `gather_builder` builds it;
`scatter_plan` and `scatter_builder` likewise for scatters; both read and
check indices through `index_reading` and `index_checks`, folded as they go
by `folding`), `gmx_stream_row_copies` (`--gmx-stream-row-copies`),
`gmx_destination_passing` (`--gmx-destination-passing`: results written into
the caller's buffers), `gmx_prefetch_rows` (`--gmx-prefetch-rows`),
`gmx_parallel_loops` (`--gmx-parallel-loops`: the loops that run on OpenMP
threads), `gmx_parallel_bodies` (`--gmx-parallel-bodies`: their bodies as
functions with noalias buffers) and
`gmx_lower_to_llvm` (`--gmx-lower-to-llvm`, which prepares entry points with
`entry_points`). `runtime_abi` is the contract between the generated code and
`gmx.runtime`.
"""
