"""gmx.passes: the gmx passes, found by their mlir-opt flag names.

    from gmx.passes import get_all_passes
    get_all_passes()["convert-gmx-to-linalg"].add_to(pm, "checked=false")
"""

from __future__ import annotations

from .registry import PassInfo, PassOptionError  # noqa: F401


def get_all_passes() -> dict[str, PassInfo]:
    """Flag name -> PassInfo for every gmx pass (imported lazily)."""
    from .convert_gmx_to_linalg import PASS as convert_gmx_to_linalg
    from .gmx_canonicalize import PASS as gmx_canonicalize
    from .lower_to_llvm import PASS as gmx_lower_to_llvm
    from .stream_row_copies import PASS as gmx_stream_row_copies

    passes = (gmx_canonicalize, convert_gmx_to_linalg, gmx_stream_row_copies, gmx_lower_to_llvm)
    return {p.argument: p for p in passes}
