"""gmx.dialect: the `gmx` dialect and its op `gather_multiaxis`."""

from .gmx import (  # noqa: F401
    OP_NAME,
    GatherMultiaxisOp,
    Gmx,
    gather_multiaxis,
    infer_result_type,
    load_dialect,
    make_context,
    mode_kwargs,
    read_mode,
    register_stablehlo,
)
from .errors import GmxError  # noqa: F401
from .modes import MODES, Mode, normalize_index, parse_mode  # noqa: F401
from .shapes import GatherShapeError, infer_output_shape  # noqa: F401
