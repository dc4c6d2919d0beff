"""gmx.passes: the gmx passes, found by their mlir-opt flag names.

    from gmx.passes import get_pass
    get_pass("convert-gmx-to-linalg").add_to(pm, "checked=false")

Layout: `raising/` (frontend gathers into gmx), `lowering/` (gmx down to
LLVM), and the infrastructure both use here: `registry` (what a pass is),
`elements` (one pass flag into a PassManager), `pipeline` (pass flags and
textual pipelines into a PassManager), `views` (reshapes), `debug`
(developer switches: strict mode, `-debug-only`), `instrument` (a tool's
general options on pass managers it does not build). Each pass module is named
after its flag, and so is its lit test (`lit_tests/passes/<flag>.mlir`).
"""

from __future__ import annotations

from collections.abc import Callable

from .registry import PassInfo, PassOptionError  # noqa: F401


def _convert_gmx_to_linalg() -> PassInfo:
    from .lowering import convert_gmx_to_linalg

    return convert_gmx_to_linalg.PASS


def _gmx_check_scatter_indices() -> PassInfo:
    from .lowering import gmx_check_scatter_indices

    return gmx_check_scatter_indices.PASS


def _gmx_canonicalize() -> PassInfo:
    from .raising import gmx_canonicalize

    return gmx_canonicalize.PASS


def _gmx_destination_passing() -> PassInfo:
    from .lowering import gmx_destination_passing

    return gmx_destination_passing.PASS


def _gmx_bufferize_tm_tensor() -> PassInfo:
    from .lowering import gmx_bufferize_tm_tensor

    return gmx_bufferize_tm_tensor.PASS


def _gmx_lower_stablehlo_sort() -> PassInfo:
    from .lowering import gmx_lower_stablehlo_sort

    return gmx_lower_stablehlo_sort.PASS


def _gmx_lower_stablehlo_control_flow() -> PassInfo:
    from .lowering import gmx_lower_stablehlo_control_flow

    return gmx_lower_stablehlo_control_flow.PASS


def _gmx_lower_stablehlo_degenerate_reduce() -> PassInfo:
    from .lowering import gmx_lower_stablehlo_degenerate_reduce

    return gmx_lower_stablehlo_degenerate_reduce.PASS


def _gmx_fold_tm_tensor_scatter_casts() -> PassInfo:
    from .lowering import gmx_fold_tm_tensor_scatter_casts

    return gmx_fold_tm_tensor_scatter_casts.PASS


def _gmx_check_tm_tensor_scatter() -> PassInfo:
    from .lowering import gmx_check_tm_tensor_scatter

    return gmx_check_tm_tensor_scatter.PASS


def _gmx_verify_tm_tensor() -> PassInfo:
    from .lowering import gmx_verify_tm_tensor

    return gmx_verify_tm_tensor.PASS


def _gmx_check_shapes() -> PassInfo:
    from .lowering import gmx_check_shapes

    return gmx_check_shapes.PASS


def _gmx_check_linalg_extracts() -> PassInfo:
    from .lowering import gmx_check_linalg_extracts

    return gmx_check_linalg_extracts.PASS


def _gmx_check_slices() -> PassInfo:
    from .lowering import gmx_check_slices

    return gmx_check_slices.PASS


def _gmx_report_asserts() -> PassInfo:
    from .lowering import gmx_report_asserts

    return gmx_report_asserts.PASS


def _gmx_lower_tosa_negate() -> PassInfo:
    from .lowering import gmx_lower_tosa_negate

    return gmx_lower_tosa_negate.PASS


def _gmx_lower_to_llvm() -> PassInfo:
    from .lowering import gmx_lower_to_llvm

    return gmx_lower_to_llvm.PASS


def _gmx_stream_row_copies() -> PassInfo:
    from .lowering import gmx_stream_row_copies

    return gmx_stream_row_copies.PASS


def _gmx_prefetch_rows() -> PassInfo:
    from .lowering import gmx_prefetch_rows

    return gmx_prefetch_rows.PASS


def _gmx_parallel_loops() -> PassInfo:
    from .lowering import gmx_parallel_loops

    return gmx_parallel_loops.PASS


def _gmx_parallel_bodies() -> PassInfo:
    from .lowering import gmx_parallel_bodies

    return gmx_parallel_bodies.PASS


def get_all_passes() -> dict[str, Callable[[], PassInfo]]:
    """Flag name -> factory of its PassInfo. Listing the flags imports no
    pass module; calling a factory imports that pass alone."""
    return {
        "gmx-canonicalize": _gmx_canonicalize,
        "convert-gmx-to-linalg": _convert_gmx_to_linalg,
        "gmx-check-scatter-indices": _gmx_check_scatter_indices,
        "gmx-stream-row-copies": _gmx_stream_row_copies,
        "gmx-destination-passing": _gmx_destination_passing,
        "gmx-prefetch-rows": _gmx_prefetch_rows,
        "gmx-parallel-loops": _gmx_parallel_loops,
        "gmx-parallel-bodies": _gmx_parallel_bodies,
        "gmx-lower-tosa-negate": _gmx_lower_tosa_negate,
        "gmx-check-shapes": _gmx_check_shapes,
        "gmx-check-slices": _gmx_check_slices,
        "gmx-check-linalg-extracts": _gmx_check_linalg_extracts,
        "gmx-check-tm-tensor-scatter": _gmx_check_tm_tensor_scatter,
        "gmx-verify-tm-tensor": _gmx_verify_tm_tensor,
        "gmx-fold-tm-tensor-scatter-casts": _gmx_fold_tm_tensor_scatter_casts,
        "gmx-report-asserts": _gmx_report_asserts,
        "gmx-lower-stablehlo-sort": _gmx_lower_stablehlo_sort,
        "gmx-lower-stablehlo-control-flow": _gmx_lower_stablehlo_control_flow,
        "gmx-lower-stablehlo-degenerate-reduce": _gmx_lower_stablehlo_degenerate_reduce,
        "gmx-bufferize-tm-tensor": _gmx_bufferize_tm_tensor,
        "gmx-lower-to-llvm": _gmx_lower_to_llvm,
    }


def get_pass(flag: str) -> PassInfo | None:
    """The gmx pass named `flag`, or None if there is none."""
    factory = get_all_passes().get(flag)
    return None if factory is None else factory()
