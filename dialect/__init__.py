"""gmx.dialect: the `gmx` dialect and its ops `gather_multiaxis` and
`scatter_multiaxis` (imported here, so both exist before the dialect loads)."""

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
from .modes import MODES, Mode, OpKind, normalize_index, parse_mode  # noqa: F401
from .reductions import REDUCTIONS, Reduction, parse_reduction  # noqa: F401
from .scatter import (  # noqa: F401
    SCATTER_OP_NAME,
    ScatterMultiaxisOp,
    has_unique_indices,
    read_reduction,
    scatter_kwargs,
    scatter_multiaxis,
)
from .shapes import GatherShapeError, ScatterShapeError, ShapeError, infer_output_shape, infer_scatter_shape  # noqa: F401
