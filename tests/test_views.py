"""passes/views.py: reshape groups and emitted views, rank 0 included."""

from __future__ import annotations

import pytest

from gmx.dialect import make_context
from gmx.dialect.mlir import func, ir
from gmx.passes.raising.integer_ops import wrap_to_width
from gmx.passes.views import collapse_groups, emit_view, views_between


@pytest.mark.parametrize(
    "source, target, groups",
    [
        ([4, 1, 3], [4, 3], [[0], [1, 2]]),
        ([4, 3, 1], [4, 3], [[0], [1, 2]]),
        ([1, 1], [], []),  # rank 0: no groups
        ([2, 1], [], None),
        ([1], [], []),
        ([], [1], None),  # never more dims than the source
        ([4, 3], [3, 4], None),
    ],
)
def test_collapse_groups(source, target, groups):
    assert collapse_groups(source, target) == groups


@pytest.mark.parametrize(
    "source, target, count",
    [([4, 3], [4, 3], 0), ([4, 3], [12], 1), ([12], [4, 3], 1), ([], [1, 1], 1), ([1, 1, 1], [], 1),
     ([1, 24, 1], [4, 1, 6], 2), ([4, 3], [3, 4], 2), ([0, 3], [3, 0], 2)],
)
def test_views_between_counts_what_emit_view_emits(source, target, count):
    assert views_between(source, target) == count
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        f32 = ir.F32Type.get()
        with ir.InsertionPoint(module.body):

            @func.FuncOp.from_py_func(ir.RankedTensorType.get(source, f32))
            def view(x):
                return emit_view(x, target)

        assert module.operation.verify()
        body = module.body.operations[0].regions[0].blocks[0].operations
        assert len(body) - 1 == count  # the ops before the return
        assert list(ir.RankedTensorType(body[len(body) - 1].operands[0].type).shape) == target


DYNAMIC = ir.ShapedType.get_dynamic_size()


@pytest.mark.parametrize(
    "source, target, unit_dims_first, count",
    [([], [1, 1], True, 1), ([1, 1], [], True, 1), ([10, 4], [10, 1, 4], True, 1), ([10, 4], [10, 1, 4], False, 1),
     ([None, 2, 1], [None, 2, 1, 1, 1], False, 1), ([None, 2, 1], [None, 2, 1, 1, 1], True, 1),
     ([None, 8], [1, None, 8], False, 1), ([1, None], [None], True, 1), ([], [1, None], True, None)],
)
def test_emit_view_unit_dims_and_dynamic(source, target, unit_dims_first, count):
    """Unit dims added or dropped, rank 0 and `?` dims included: one verified
    view op (rank 0 takes no groups); a `?` is never taken for a 1."""
    from gmx.passes.views import can_view

    assert can_view(source, target) == (count is not None)
    if count is None:
        return
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        f32 = ir.F32Type.get()
        argument = ir.RankedTensorType.get([DYNAMIC if s is None else s for s in source], f32)
        with ir.InsertionPoint(module.body):

            @func.FuncOp.from_py_func(argument)
            def view(x):
                return emit_view(x, target, unit_dims_first=unit_dims_first)

        assert module.operation.verify()
        body = module.body.operations[0].regions[0].blocks[0].operations
        views = [op for op in body if op.name in ("tensor.expand_shape", "tensor.collapse_shape")]
        assert len(views) == count


def test_wrap_to_width_keeps_rank_0_an_array():
    import numpy as np

    wrapped = wrap_to_width(np.array(2**31), 32)
    assert isinstance(wrapped, np.ndarray) and wrapped.shape == () and wrapped == -(2**31)
