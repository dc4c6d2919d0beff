"""The worked examples of docs/semantics.md, as data.

The doc's tables show these values and tests/test_docs.py checks that they
agree; the numpy reference, runtime and end-to-end tests run them, so every
layer checks exactly the same cases.

`EXAMPLES` (list of `WorkedExample`): a frontend gather applied to concrete
arrays.
  - `name`, `origin` (PROPOSAL: the Gather Multiaxis proposal's examples;
    ONNX: the ONNX Gather operator's documentation), `op`: "gather" (ONNX
    Gather / numpy.take), "gather_elements" (ONNX GatherElements),
    "gather_nd" (ONNX GatherND); `attrs`: the op's attributes ({"axis": a}
    or {"batch_dims": b}); `input`, `indices`, `expected`: numpy arrays.
  - `intermediate` (`Intermediate` or None): the gather_multiaxis call the
    op maps to, as the example states it: `input_shape`, `indices_shape`
    (physical, last dim folded), `axes`, `output_shape`. `expected`
    reshaped to `output_shape` is what gather_multiaxis returns on the
    reshaped input and indices.
  - `note`: where and why a value differs from the text it comes from.
`WITH_INTERMEDIATE`: the examples whose `intermediate` is given.

`SHAPE_EXAMPLES` (list of `ShapeExample`): gather_multiaxis shape rules
stated without values (`input_shape`, `indices_shape`, `axes`,
`output_shape`).

`GATHER_TABLE` (list of `GatherTableRow`): the ONNX Gather shape table
(data shape, indices shape, axis -> output shape) with one valid reshaping
onto gather_multiaxis per row, instantiated with P, Q, R, S = 4, 3, 2, 5:
`input_shape`, `indices_shape`, `axis`, `result_shape`, and the reshaped
shapes as an `Intermediate`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PROPOSAL = "Gather Multiaxis proposal"
ONNX = "ONNX Gather documentation"


@dataclass(frozen=True)
class Intermediate:
    input_shape: tuple[int, ...]
    indices_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    axes: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class WorkedExample:
    name: str
    origin: str
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
    origin: str
    input_shape: tuple[int, ...]
    indices_shape: tuple[int, ...]
    axes: tuple[int, ...]
    output_shape: tuple[int, ...]


@dataclass(frozen=True)
class GatherTableRow:
    name: str
    origin: str
    input_shape: tuple[int, ...]
    indices_shape: tuple[int, ...]
    axis: int
    result_shape: tuple[int, ...]
    intermediate: Intermediate


def _ex(name, origin, op, attrs, input, indices, expected, mid=None, note="",
        dtype=np.int64):
    """Build a WorkedExample; `mid` = (input, indices, output shapes, axes)."""
    return WorkedExample(
        name, origin, op, attrs,
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

EXAMPLES: list[WorkedExample] = [
    # --- GatherElements: the mapping is gather_multiaxis(input, indices,
    # [axis]) without reshape, which fixes the intermediate values.
    _ex("elements_axis0", PROPOSAL, "gather_elements", {"axis": 0},
        X43, [[3, 1, 1], [2, 0, 3]], [[30, 11, 12], [20, 1, 32]],
        ([4, 3], [2, 3], [2, 3], [0])),
    _ex("elements_axis1", PROPOSAL, "gather_elements", {"axis": 1},
        X43, [[2], [1], [0], [2]], [[2], [11], [20], [32]],
        ([4, 3], [4, 1], [4, 1], [1])),
    _ex("elements_rank3", PROPOSAL, "gather_elements", {"axis": 0},
        X422, [[[0, 2], [1, 3]]], [[[0, 201], [110, 311]]],
        ([4, 2, 2], [1, 2, 2], [1, 2, 2], [0])),
    _ex("elements_reference_script", PROPOSAL, "gather_elements", {"axis": 1},
        X22, [[0, 1], [1, 0]], [[1, 2], [4, 3]],
        ([2, 2], [2, 2], [2, 2], [1]),
        note="the proposal's test script comment '# Output: [[1, 2], "
             "[4, 3]]' holds for data [[1,2],[3,4]], not for the [4,3] "
             "`data` the script had reassigned by then (that gives "
             "[[0,1],[11,10]])"),
    # --- ONNX Gather (the proposal's "Single-axis blocks").
    _ex("gather_axis0_vector", PROPOSAL, "gather", {"axis": 0},
        X43, [3, 1], [[30, 31, 32], [10, 11, 12]],
        ([4, 3], [2, 1], [2, 3], [0])),
    _ex("gather_axis1_vector", PROPOSAL, "gather", {"axis": 1},
        X43, [2, 1, 0, 1, 2],
        [[2, 1, 0, 1, 2], [12, 11, 10, 11, 12],
         [22, 21, 20, 21, 22], [32, 31, 30, 31, 32]],
        ([4, 3], [1, 5], [4, 5], [1])),
    _ex("gather_axis1_matrix", PROPOSAL, "gather", {"axis": 1},
        X43, [[0, 1], [1, 2]],
        [[[0, 1], [1, 2]], [[10, 11], [11, 12]],
         [[20, 21], [21, 22]], [[30, 31], [31, 32]]],
        ([4, 1, 3], [1, 2, 2], [4, 2, 2], [2]),
        note="an earlier draft of the proposal gives incomplete intermediate "
             "values (input [4,3], indices [2,2], axes [...]: rank 2 != 3); "
             "the later draft's are used"),
    _ex("gather_scalar", PROPOSAL, "gather", {"axis": 0},
        X22, 1, [3, 4],
        ([2, 2], [1, 1], [1, 2], [0]),
        note="the proposal lists indices shape [2,1] / output shape [2,2], "
             "copied from the next example: a scalar index is one element, so "
             "the indices shape is [1,1] and the output [1,2] (as the "
             "proposal's own Gather table row '(P, Q) ( ) 0 -> (1, 1) (1, Q)' "
             "says)"),
    _ex("gather_vector_2x2", PROPOSAL, "gather", {"axis": 0},
        X22, [1, 0], [[3, 4], [1, 2]],
        ([2, 2], [2, 1], [2, 2], [0]),
        note="the proposal's test script comments this call with the output "
             "of the next example; the Examples section is right"),
    _ex("gather_matrix_2x2", PROPOSAL, "gather", {"axis": 0},
        X22, [[1, 0], [0, 1]], [[[3, 4], [1, 2]], [[1, 2], [3, 4]]],
        ([2, 1, 2], [2, 2, 1], [2, 2, 2], [0])),
    _ex("gather_axis1_dup", PROPOSAL, "gather", {"axis": 1},
        X43, [2, 1, 1],
        [[2, 1, 1], [12, 11, 11], [22, 21, 21], [32, 31, 31]],
        ([4, 3], [1, 3], [4, 3], [1]),
        note="an earlier draft of the proposal says 'TODO: verify' and "
             "gives intermediate indices shape [3] (rank 1 != 2) and axes "
             "[...]; output verified, intermediate completed as in "
             "gather_axis1_vector"),
    # --- The ONNX Gather operator's documentation.
    _ex("onnx_gather_axis0", ONNX, "gather", {"axis": 0},
        [[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], [[0, 1], [1, 2]],
        [[[1.0, 1.2], [2.3, 3.4]], [[2.3, 3.4], [4.5, 5.7]]],
        dtype=np.float32),
    _ex("onnx_gather_axis1", ONNX, "gather", {"axis": 1},
        [[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]], [[0, 2]],
        [[[1.0, 1.9]], [[2.3, 3.9]], [[4.5, 5.9]]],
        dtype=np.float32),
    # --- ONNX GatherND (the proposal's "Multiple axes blocks").
    _ex("nd_pairs", PROPOSAL, "gather_nd", {"batch_dims": 0},
        X222, [[0, 1], [1, 0]], [[2, 3], [4, 5]],
        ([2, 2, 2], [1, 2, 2], [1, 2, 2], [0, 1]),
        note="also 'Example 3' of the proposal's GatherND mapping code"),
    _ex("nd_blocks", PROPOSAL, "gather_nd", {"batch_dims": 0},
        X222, [[1], [0], [1]],
        [[[4, 5], [6, 7]], [[0, 1], [2, 3]], [[4, 5], [6, 7]]],
        ([2, 2, 2], [3, 1, 1], [3, 2, 2], [0])),
    _ex("nd_batch1", PROPOSAL, "gather_nd", {"batch_dims": 1},
        X222, [[1], [0]], [[2, 3], [4, 5]],
        ([2, 2, 2], [2, 1, 1], [2, 1, 2], [1]),
        note="also 'Example 5' of the proposal's GatherND mapping code"),
    _ex("nd_triples", PROPOSAL, "gather_nd", {"batch_dims": 0},
        X222, [[0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]],
        [1, 2, 4, 6, 7],
        ([2, 2, 2], [5, 1, 3], [5, 1, 1], [0, 1, 2])),
    _ex("nd_broadcast_batch", PROPOSAL, "gather_nd", {"batch_dims": 1},
        [[0, 1, 2]], [[1], [2]], [1, 2],
        note="broadcast of a leading input dim of size 1 against the "
             "indices' batch dim 2 (strict ONNX requires equal batch dims)"),
    _ex("nd_code_example1", PROPOSAL, "gather_nd", {"batch_dims": 0},
        D01, [[0, 0], [1, 1]], [0, 3]),
    _ex("nd_code_example2", PROPOSAL, "gather_nd", {"batch_dims": 0},
        D01, [[1], [0]], [[2, 3], [0, 1]]),
    _ex("nd_code_example4", PROPOSAL, "gather_nd", {"batch_dims": 0},
        X222, [[[0, 1]], [[1, 0]]], [[[2, 3]], [[4, 5]]]),
    _ex("nd_reference_script", PROPOSAL, "gather_nd", {"batch_dims": 0},
        X22, [[0, 0], [1, 1]], [1, 4],
        note="the proposal's test script comment '# Output: [1, 4]' holds "
             "for data [[1,2],[3,4]]; the script's `data` was the [4,3] "
             "array by then (that gives [0, 11])"),
]

WITH_INTERMEDIATE: list[WorkedExample] = [e for e in EXAMPLES if e.intermediate is not None]

SHAPE_EXAMPLES: list[ShapeExample] = [
    ShapeExample("proposal_example", PROPOSAL, (4, 2, 1, 2), (1, 3, 2, 2), (1,),
                 (4, 3, 2, 2)),
    ShapeExample("draft_example", PROPOSAL, (4, 2, 2, 2), (1, 3, 1, 2), (1,),
                 (4, 3, 2, 2)),
    ShapeExample("code_comment_1d", PROPOSAL, (2, 3, 1), (1, 1, 4), (1,),
                 (2, 1, 4)),
    ShapeExample("code_comment_2d", PROPOSAL, (10, 9, 8), (1, 5, 6 * 2), (1, 2),
                 (10, 5, 6)),
]

P, Q, R, S = 4, 3, 2, 5


def _row(name, input_shape, indices_shape, axis, result_shape, mid):
    return GatherTableRow(name, PROPOSAL, input_shape, indices_shape, axis,
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
