"""gmx.dialect: the `gmx` dialect and its op `gather_multiaxis`."""

from .gmx import (  # noqa: F401
    OP_NAME,
    GatherMultiaxisOp,
    Gmx,
    gather_multiaxis,
    infer_result_type,
    load_dialect,
    make_context,
    register_stablehlo,
)
from .shapes import GatherShapeError, infer_output_shape  # noqa: F401
