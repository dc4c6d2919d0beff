"""The worked examples of the seed documents, as data.

Shared by the numpy reference tests and (later) the MLIR runtime tests, so
both check exactly the same cases.

`EXAMPLES` (list of `SeedExample`): an op applied to concrete arrays.
  - `name`, `source` (the seed file), `op`: "gather" (ONNX Gather /
    numpy.take), "gather_elements" (ONNX GatherElements), "gather_nd"
    (ONNX GatherND); `attrs`: the op's attributes ({"axis": a} or
    {"batch_dims": b}); `input`, `indices`, `expected`: numpy arrays.
  - `intermediate` (`Intermediate` or None): the seed's "intermediate
    processing values", i.e. the gather_multiaxis call the op maps to:
    `input_shape`, `indices_shape` (physical, last dim folded), `axes`,
    `output_shape`. `expected` reshaped to `output_shape` is what
    gather_multiaxis returns on the reshaped input and indices.
  - `note`: where and why a value differs from the seed's text.

`SHAPE_EXAMPLES` (list of `ShapeExample`): gather_multiaxis shape rules
stated without values (`input_shape`, `indices_shape`, `axes`,
`output_shape`).

`GATHER_TABLE` (list of `GatherTableRow`): seed 000's gatherBlocks table
(ONNX Gather shapes; four of its rows are also the table of seed 004),
instantiated with P, Q, R, S = 4, 3, 2, 5: `input_shape`, `indices_shape`,
`axis`, `result_shape`, and the seed's reshaped shapes as an `Intermediate`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

S000 = "000_0064361e72dd4186.txt"
S001 = "001_a4e7c14419b6774b.txt"
S004 = "004_d4766443270c2fb5.txt"


@dataclass(frozen=True)
class Intermediate:
    input_shape: tuple[int, ...]
    indices_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    axes: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class SeedExample:
    name: str
    source: str
    op: str
    attrs: dict
    input: np.ndarray
    indices: np.ndarray
    expected: np.ndarray
    intermediate: Intermediate | None = None
    note: str = ""


@dataclass(frozen=True)
class ShapeExample:
    name: str
    source: str
    input_shape: tuple[int, ...]
    indices_shape: tuple[int, ...]
    axes: tuple[int, ...]
    output_shape: tuple[int, ...]


@dataclass(frozen=True)
class GatherTableRow:
    name: str
    source: str
    input_shape: tuple[int, ...]
    indices_shape: tuple[int, ...]
    axis: int
    result_shape: tuple[int, ...]
    intermediate: Intermediate


def _ex(name, source, op, attrs, input, indices, expected, mid=None, note="",
        dtype=np.int64):
    """Build a SeedExample; `mid` = (input, indices, output shapes, axes)."""
    return SeedExample(
        name, source, op, attrs,
        np.array(input, dtype), np.array(indices, np.int64),
        np.array(expected, dtype),
        None if mid is None else Intermediate(*map(tuple, mid)), note,
    )


X43 = [[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]]
X22 = [[1, 2], [3, 4]]
X222 = [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
X422 = [[[0, 1], [10, 11]], [[100, 101], [110, 111]],
        [[200, 201], [210, 211]], [[300, 301], [310, 311]]]
D01 = [[0, 1], [2, 3]]

EXAMPLES: list[SeedExample] = [
    # --- GatherElements (seed 000 "Single-axis same rank"): the mapping is
    # gatherMultiaxis(input, indices, [axis]) without reshape, so the seed's
    # mapping code fixes the intermediate values.
    _ex("elements_axis0", S000, "gather_elements", {"axis": 0},
        X43, [[3, 1, 1], [2, 0, 3]], [[30, 11, 12], [20, 1, 32]],
        ([4, 3], [2, 3], [2, 3], [0])),
    _ex("elements_axis1", S000, "gather_elements", {"axis": 1},
        X43, [[2], [1], [0], [2]], [[2], [11], [20], [32]],
        ([4, 3], [4, 1], [4, 1], [1])),
    _ex("elements_rank3", S000, "gather_elements", {"axis": 0},
        X422, [[[0, 2], [1, 3]]], [[[0, 201], [110, 311]]],
        ([4, 2, 2], [1, 2, 2], [1, 2, 2], [0])),
    _ex("elements_reference_script", S000, "gather_elements", {"axis": 1},
        X22, [[0, 1], [1, 0]], [[1, 2], [4, 3]],
        ([2, 2], [2, 2], [2, 2], [1]),
        note="seed's test script comment '# Output: [[1, 2], [4, 3]]'; it "
             "holds for data [[1,2],[3,4]], not for the [4,3] `data` the "
             "script had reassigned by then (that gives [[0,1],[11,10]])"),
    # --- ONNX Gather (seed 000 "Single-axis blocks", same in seed 001).
    _ex("gather_axis0_vector", S000, "gather", {"axis": 0},
        X43, [3, 1], [[30, 31, 32], [10, 11, 12]],
        ([4, 3], [2, 1], [2, 3], [0]),
        note="also in " + S001),
    _ex("gather_axis1_vector", S000, "gather", {"axis": 1},
        X43, [2, 1, 0, 1, 2],
        [[2, 1, 0, 1, 2], [12, 11, 10, 11, 12],
         [22, 21, 20, 21, 22], [32, 31, 30, 31, 32]],
        ([4, 3], [1, 5], [4, 5], [1])),
    _ex("gather_axis1_matrix", S000, "gather", {"axis": 1},
        X43, [[0, 1], [1, 2]],
        [[[0, 1], [1, 2]], [[10, 11], [11, 12]],
         [[20, 21], [21, 22]], [[30, 31], [31, 32]]],
        ([4, 1, 3], [1, 2, 2], [4, 2, 2], [2]),
        note="also in " + S001 + ", whose intermediate values there "
             "(input [4,3], indices [2,2], axes [...]) are incomplete "
             "(rank 2 != 3); seed 000's are used"),
    _ex("gather_scalar", S000, "gather", {"axis": 0},
        X22, 1, [3, 4],
        ([2, 2], [1, 1], [1, 2], [0]),
        note="seed lists indices shape [2,1] / output shape [2,2], copied "
             "from the next example: a scalar index is one element, so the "
             "indices shape is [1,1] and the output [1,2] (as the seed's own "
             "gatherBlocks table row '(P, Q) ( ) 0 -> (1, 1) (1, Q)' says)"),
    _ex("gather_vector_2x2", S000, "gather", {"axis": 0},
        X22, [1, 0], [[3, 4], [1, 2]],
        ([2, 2], [2, 1], [2, 2], [0]),
        note="the seed's test script comments this call with the output "
             "of the next example; the Examples section is right"),
    _ex("gather_matrix_2x2", S000, "gather", {"axis": 0},
        X22, [[1, 0], [0, 1]], [[[3, 4], [1, 2]], [[1, 2], [3, 4]]],
        ([2, 1, 2], [2, 2, 1], [2, 2, 2], [0])),
    _ex("gather_axis1_dup", S001, "gather", {"axis": 1},
        X43, [2, 1, 1],
        [[2, 1, 1], [12, 11, 11], [22, 21, 21], [32, 31, 31]],
        ([4, 3], [1, 3], [4, 3], [1]),
        note="seed says 'TODO: verify' and gives intermediate indices shape "
             "[3] (rank 1 != 2) and axes [...]; output verified, "
             "intermediate completed as in gather_axis1_vector"),
    # --- ONNX Gather page (seed 004).
    _ex("onnx_gather_axis0", S004, "gather", {"axis": 0},
        [[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], [[0, 1], [1, 2]],
        [[[1.0, 1.2], [2.3, 3.4]], [[2.3, 3.4], [4.5, 5.7]]],
        dtype=np.float32),
    _ex("onnx_gather_axis1", S004, "gather", {"axis": 1},
        [[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]], [[0, 2]],
        [[[1.0, 1.9]], [[2.3, 3.9]], [[4.5, 5.9]]],
        dtype=np.float32),
    # --- ONNX GatherND (seed 000 "Multiple axes blocks"; the first three
    # also in seed 001).
    _ex("nd_pairs", S000, "gather_nd", {"batch_dims": 0},
        X222, [[0, 1], [1, 0]], [[2, 3], [4, 5]],
        ([2, 2, 2], [1, 2, 2], [1, 2, 2], [0, 1]),
        note="also in " + S001 + " and as 'Example 3' of the mapping code"),
    _ex("nd_blocks", S000, "gather_nd", {"batch_dims": 0},
        X222, [[1], [0], [1]],
        [[[4, 5], [6, 7]], [[0, 1], [2, 3]], [[4, 5], [6, 7]]],
        ([2, 2, 2], [3, 1, 1], [3, 2, 2], [0]),
        note="also in " + S001),
    _ex("nd_batch1", S000, "gather_nd", {"batch_dims": 1},
        X222, [[1], [0]], [[2, 3], [4, 5]],
        ([2, 2, 2], [2, 1, 1], [2, 1, 2], [1]),
        note="also in " + S001 + " and as 'Example 5' of the mapping code"),
    _ex("nd_triples", S000, "gather_nd", {"batch_dims": 0},
        X222, [[0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]],
        [1, 2, 4, 6, 7],
        ([2, 2, 2], [5, 1, 3], [5, 1, 1], [0, 1, 2])),
    _ex("nd_broadcast_batch", S000, "gather_nd", {"batch_dims": 1},
        [[0, 1, 2]], [[1], [2]], [1, 2],
        note="broadcast of a leading input dim of size 1 against the "
             "indices' batch dim 2 (strict ONNX requires equal batch dims)"),
    _ex("nd_code_example1", S000, "gather_nd", {"batch_dims": 0},
        D01, [[0, 0], [1, 1]], [0, 3]),
    _ex("nd_code_example2", S000, "gather_nd", {"batch_dims": 0},
        D01, [[1], [0]], [[2, 3], [0, 1]]),
    _ex("nd_code_example4", S000, "gather_nd", {"batch_dims": 0},
        X222, [[[0, 1]], [[1, 0]]], [[[2, 3]], [[4, 5]]]),
    _ex("nd_reference_script", S000, "gather_nd", {"batch_dims": 0},
        X22, [[0, 0], [1, 1]], [1, 4],
        note="seed's test script comment '# Output: [1, 4]' holds for data "
             "[[1,2],[3,4]]; the script's `data` was the [4,3] array by "
             "then (that gives [0, 11])"),
]

SHAPE_EXAMPLES: list[ShapeExample] = [
    ShapeExample("proposal_example", S000, (4, 2, 1, 2), (1, 3, 2, 2), (1,),
                 (4, 3, 2, 2)),
    ShapeExample("draft_example", S001, (4, 2, 2, 2), (1, 3, 1, 2), (1,),
                 (4, 3, 2, 2)),
    ShapeExample("code_comment_1d", S000, (2, 3, 1), (1, 1, 4), (1,),
                 (2, 1, 4)),
    ShapeExample("code_comment_2d", S000, (10, 9, 8), (1, 5, 6 * 2), (1, 2),
                 (10, 5, 6)),
]

P, Q, R, S = 4, 3, 2, 5


def _row(name, input_shape, indices_shape, axis, result_shape, mid):
    return GatherTableRow(name, S000, input_shape, indices_shape, axis,
                          result_shape, Intermediate(*mid, (axis,)))


GATHER_TABLE: list[GatherTableRow] = [
    _row("PQ_scalar_0", (P, Q), (), 0, (Q,),
         ((P, Q), (1, 1), (1, Q))),
    _row("PQR_scalar_1", (P, Q, R), (), 1, (P, R),
         ((P, Q, R), (1, 1, 1), (P, 1, R))),
    _row("PQR_S_1", (P, Q, R), (S,), 1, (P, S, R),
         ((P, Q, 1, R), (1, 1, S, 1), (P, 1, S, R))),
    _row("PQ_RS_0", (P, Q), (R, S), 0, (R, S, Q),
         ((P, 1, 1, Q), (1, R, S, 1), (1, R, S, Q))),
    _row("PQ_RS_1", (P, Q), (R, S), 1, (P, R, S),
         ((P, Q, 1, 1), (1, 1, R, S), (P, 1, R, S))),
]
