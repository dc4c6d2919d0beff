"""The reporter every check goes through (`passes/lowering/reporters.py`):
what one value's check says (`index_checks.value_check`, on static values:
the decision alone), and how each backend renders a report: the engine's
callbacks (`reporters.CALLBACKS`), IREE's tensors (`iree_reports.Tensors`)."""

from __future__ import annotations

import pytest

from gmx.dialect import make_context
from gmx.dialect.mlir import func, ir
from gmx.passes.lowering.folding import Constants, Folder
from gmx.passes.lowering.index_checks import value_check
from gmx.passes.lowering.iree_reports import INDEX_COUNTS, INDEX_REPORT, SHAPE_REPORT, Tensors, return_reports
from gmx.passes.lowering.reporters import CALLBACKS, IndexValues, unless
from gmx.passes.lowering.runtime_abi import SHAPE_ERROR_EMPTY_AXIS
from gmx.passes.registry import PassFailed

STATIC = Folder(None)  # ints only: nothing is built


def test_a_value_is_checked_on_the_axis_of_its_coordinate():
    """Coordinate j of a tuple is checked against the size of axes[j], and
    reports that axis, the value read as i64 and the size."""
    check = value_check(STATIC, (2, 0), [5, 3])
    assert [check(v, 0).ok for v in (-1, 0, 4, 5)] == [False, True, True, False]
    assert [check(v, 1).ok for v in (-1, 0, 2, 3)] == [False, True, True, False]
    bad = check(4, 1)
    assert (bad.ok, bad.value, bad.size, bad.axis()) == (False, 4, 3, 0)
    assert check(7, None).axis() == 2 and check(7, None).size == 5  # a tuple of one


def test_negatives_wrap_once_and_a_value_is_read_first():
    wrapping = value_check(STATIC, (0,), [3], negatives_wrap=True)
    assert [wrapping(v, None).ok for v in (-4, -3, -1, 2, 3)] == [False, True, True, True, False]
    halved = value_check(STATIC, (0,), [3], read=lambda v: v // 2)
    assert halved(5, None).ok and halved(5, None).value == 2 and not halved(6, None).ok


def test_unless_runs_the_report_only_where_the_check_fails():
    ran = []
    unless(STATIC, True, lambda: ran.append("ok"))
    unless(STATIC, False, lambda: ran.append("failed"))
    assert ran == ["failed"]


SIGNATURE = "(%i: tensor<2x3xi64>, %ok: i1, %n: index)"


def _build(render, signature: str = SIGNATURE) -> tuple[ir.Module, object]:
    """A module whose @main calls `render(fold, entry, arguments)` at its
    return (a context is current until the module is printed)."""
    module = ir.Module.parse(f"func.func @main{signature} {{\n  return\n}}")
    entry = module.body.operations[0]
    block = entry.regions[0].blocks[0]
    with ir.InsertionPoint(block.operations[0]), ir.Location.name("site"):
        render(Folder(Constants(block)), entry, list(block.arguments))
    return module, entry


def _text(module) -> str:
    module.operation.verify()
    return str(module)


@pytest.fixture(autouse=True)
def context():
    with make_context(), ir.Location.unknown():
        yield


def _check(values: list[ir.Value], fold: Folder) -> IndexValues:
    """The (2 x 3) indices of `values[0]`: coordinate j of 3 indexes axis
    (1, 0, 2)[j] of sizes (4, n, 6)."""
    i, _, n = values
    return IndexValues(i, 3, value_check(fold, (1, 0, 2), [4, fold.to_i64(n), 6]))


def test_the_engine_calls_back_where_a_shape_check_fails():
    module, _ = _build(lambda fold, entry, a: [CALLBACKS.shape_error(fold, 3, a[1], 1, a[2], 1),
                                               CALLBACKS.shape_error(fold, 3, True, 2, 5, 1)])
    CALLBACKS.declare(module.operation)
    text = _text(module)
    assert text.count("func.call @gmx_shape_error") == 1  # a check that holds reports nothing
    assert "arith.xori %arg1, %true" in text and "scf.if" in text
    assert "func.call @gmx_shape_error(%c3_i64, %c1_i64, %0, %c1_i64)" in text  # (site, what, a, b), i64


def test_the_engine_scans_the_bad_indices_again_calling_back_for_each():
    module, _ = _build(lambda fold, entry, a: CALLBACKS.bad_indices(fold, 7, _check(a, fold)))
    CALLBACKS.declare(module.operation)
    text = _text(module)
    assert 'iterator_types = ["reduction", "reduction"]' in text
    assert "linalg.index 1" in text  # the coordinate: the last dim
    assert text.count("func.call @gmx_index_error(%c7_i64,") == 1
    # The axis is chosen on the failing branch only.
    branch = text[text.index("scf.if"):text.index("func.call @gmx_index_error")]
    assert "arith.select" in branch


def test_iree_returns_a_shape_report_of_the_failed_flag_and_operands():
    reporter = []

    def render(fold, entry, a):
        reporter.append(Tensors(entry))
        reporter[0].shape_error(fold, 3, a[1], SHAPE_ERROR_EMPTY_AXIS, a[2], 0)
        reporter[0].shape_error(fold, 4, False, 1, 2, 3)  # failed at compile time
        reporter[0].shape_error(fold, 5, True, 1, 2, 3)  # holds: no report

    module, entry = _build(render)
    assert return_reports(entry) == [("shape", None), ("shape", None)]
    text = _text(module)
    assert text.count("tensor.from_elements") == 2 and f"tensor<{len(SHAPE_REPORT)}xi64>" in text
    assert "gmx_shape_error" not in text and "scf.if" not in text
    # (failed, site, what, a, b) as i64: the failed flag, or 1 where it failed at compile time.
    assert "%2 = arith.extui %1 : i1 to i64" in text and "%1 = arith.xori %arg1, %true" in text
    assert "tensor.from_elements %2, %c3_i64, %c-2_i64, %0, %c0_i64" in text
    assert "tensor.from_elements %c1_i64, %c4_i64, %c1_i64, %c2_i64, %c3_i64" in text
    assert "return %from_elements, %from_elements_0" in text
    reporter[0].raise_unreported()  # all reported


def test_iree_cannot_report_a_check_outside_the_entry_body():
    reporter = []

    def render(fold, entry, a):
        reporter.append(Tensors(entry))
        from gmx.dialect.mlir import scf

        branch = scf.IfOp(a[1])
        with ir.InsertionPoint(branch.then_block):
            reporter[0].shape_error(fold, 3, fold.cmp("eq", a[2], 0), 1, a[2], 0)
            scf.YieldOp([])

    errors = []
    with ir.Context.current.attach_diagnostic_handler(lambda d: errors.append(str(d.message)) or True):
        _build(render)
    assert errors == ["a run-time check the iree backend cannot report (it is not in the entry's body)"]
    with pytest.raises(PassFailed, match="1 run-time checks cannot be reported on iree"):
        reporter[0].raise_unreported()


@pytest.mark.parametrize("details", [True, False])
def test_iree_reports_the_count_and_first_bad_index(details):
    module, entry = _build(lambda fold, e, a: Tensors(e, details).bad_indices(fold, 7, _check(a, fold)))
    assert return_reports(entry) == [("index", 7)]
    text = _text(module)
    results = ir.FunctionType(ir.TypeAttr(entry.attributes["function_type"]).value).results
    assert [str(t) for t in results] == ["tensor<i64>"] * len(INDEX_REPORT if details else INDEX_COUNTS)
    assert "gmx_index_error" not in text and "arith.remui" in text  # the coordinate: position mod 3
