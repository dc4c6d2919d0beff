"""One gather or scatter, every frontend: how each frontend spells a
variant's gather or scatter and the gmx op `--gmx-canonicalize` raises each
spelling to.

`spell(study)` exports the study's gather through `study.frontend`, counts
the gather- and scatter-like ops it is spelled with (`SPELLED_WITH`), runs
`--gmx-canonicalize` and reads the gmx ops it made (`stages.derive`) and
those ops left. `spelling_rows` compares every frontend of a variant with
its first (the variant's own): the same op (axes, input, index and output
shapes, mode, reduction), or what differs, or why there is no op.
gmx-study's `--all` report shows the table for the gathers,
`gmx-study VARIANT --frontend all` for one variant (`spelling_table`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from gmx.dialect import OP_NAME, SCATTER_OP_NAME, OpKind, make_context
from gmx.dialect.locations import error_text
from gmx.dialect.mlir import ir
from gmx.passes.pipeline import build_pass_manager

from ..experiments.contenders import make_case
from ..experiments.frontends import FrontendError
from ..experiments.pipelines import count_ops
from ..experiments.tables import text_table
from ..experiments.variants import Study
from .stages import Derived, derive, rules_text

# Ops that gather: what a frontend spells a gather with. After the fusion,
# none should be left (a `tensor.extract` is the body of a linalg gather).
GATHER_LIKE = ("tosa.gather", "stablehlo.gather", "stablehlo.dynamic_gather", "tensor.gather", "tensor.extract")
# ... and scatters: none should be left either.
SCATTER_LIKE = ("tosa.scatter", "stablehlo.scatter", "tm_tensor.scatter", "tensor.scatter")
# What a frontend program is read for (`Spelling.spelled`): those and the gmx ops.
SPELLED_WITH = (*GATHER_LIKE, *SCATTER_LIKE, OP_NAME, SCATTER_OP_NAME)


@dataclass
class Spelling:
    """One frontend's spelling of a study's gather, after the fusion."""

    study: Study
    derived: list[Derived] = field(default_factory=list)  # the gmx ops
    left: Counter = field(default_factory=Counter)  # GATHER_LIKE and SCATTER_LIKE ops left
    error: str | None = None  # why there is no fused program
    spelled: Counter = field(default_factory=Counter)  # SPELLED_WITH ops of the frontend program

    def op(self) -> tuple | None:
        """What identifies the one gmx op (None unless there is exactly one):
        axes, input, index shape (not its element type: frontends narrow
        indices differently), output, mode."""
        if len(self.derived) != 1:
            return None
        d = self.derived[0]
        return (d.axes, d.input_type, d.indices_type.rsplit("x", 1)[0], d.output_type, d.mode, d.reduction, d.op)


def spell(study: Study) -> Spelling:
    """`study`'s gather as its frontend spells it, after --gmx-canonicalize."""
    try:
        case = make_case(study)
    except FrontendError as error:
        return Spelling(study, error=str(error))
    with make_context():
        try:
            module = ir.Module.parse(case.text)
        except ir.MLIRError as error:
            return Spelling(study, error=f"the frontend program does not parse: {_first_line(error)}")
        spelled = _counted(module, SPELLED_WITH)
        try:
            build_pass_manager(["gmx-canonicalize"]).run(module.operation)
        except ir.MLIRError as error:
            return Spelling(study, error=f"--gmx-canonicalize failed: {_first_line(error)}", spelled=spelled)
        left = _counted(module, (*GATHER_LIKE, *SCATTER_LIKE))
        return Spelling(study, derive(module.operation, study.arguments()), left, spelled=spelled)


def _counted(module, names: tuple[str, ...]) -> Counter:
    counts = count_ops(module)
    return Counter({name: counts[name] for name in names if counts[name]})


def _first_line(error: ir.MLIRError) -> str:
    return error_text(error).splitlines()[0]


def describe_op(spelling: Spelling) -> str:
    """`axes=[1] 4x5x6xf32, 1x3x1xi64 -> 4x3x6xf32` (and the mode and
    reduction where they are not the defaults)."""
    if len(spelling.derived) != 1:
        return f"{len(spelling.derived)} gmx ops"
    d = spelling.derived[0]
    return f"axes={list(d.axes)}{d.rules()} {d.input_type}, {d.indices_type} -> {d.output_type}"


def _dims(type_text: str) -> list[str]:
    """`4x1x6xf32` -> ['4', '1', '6']."""
    return type_text.split("x")[:-1]


def unit_free(d: Derived) -> tuple:
    """The gather without its unit dims: per input dim of size > 1 its size
    and whether it is gathered, the index and output shapes without 1s
    (frontends place unit dims differently; the gather is the same)."""
    input_dims = [(n, i in d.axes) for i, n in enumerate(_dims(d.input_type)) if n != "1" or i in d.axes]
    return (tuple(input_dims), tuple(n for n in _dims(d.indices_type) if n != "1"),
            tuple(n for n in _dims(d.output_type) if n != "1"))


def verdict(spelling: Spelling, first: Spelling) -> str:
    """`same op`, `same gather, ...` / `same scatter, ...` (unit dims,
    axis order, the mode or the reduction differ), or why this spelling is not raised to the first's op."""
    if spelling.error:
        return spelling.error
    if spelling.left:
        return "not raised: " + ", ".join(f"{n} {name}" for name, n in sorted(spelling.left.items())) + " left"
    if spelling.op() is None:
        return f"{len(spelling.derived)} gmx ops (one expected)"
    if spelling is first:
        return "the variant's own spelling"
    if first.op() is None:
        return "its own spelling has no single op to compare with"
    mine, own = spelling.derived[0], first.derived[0]
    if spelling.op() == first.op():
        return "same op"
    notes = []
    if spelling.op()[:4] == first.op()[:4]:
        pass
    elif spelling.op()[1:4] == first.op()[1:4] and sorted(mine.axes) == sorted(own.axes):
        notes.append("its axes (and coordinates) in another order")
    elif unit_free(mine) == unit_free(own):
        notes.append("its unit dims placed differently")
    else:
        names = ("axes", "input", "index shape", "output")
        differ = [f"{n} {a} vs {b}" for n, a, b in zip(names, spelling.op(), first.op()) if a != b]
        differ += [f"{name} {a} vs {b}" for name, a, b in _rules(mine, own)]
        return "differs: " + "; ".join(differ)
    notes += [f"{name} {a} where its own is {b}" for name, a, b in _rules(mine, own)]
    kind = OpKind.SCATTER if own.op == SCATTER_OP_NAME else OpKind.GATHER
    return f"same {kind}, " + "; ".join(notes)


def _rules(mine: Derived, own: Derived) -> list[tuple]:
    """(name, mine, its own) for the op, mode and reduction where they differ."""
    pairs = [("op", mine.op, own.op), ("mode", mine.mode, own.mode), ("reduction", mine.reduction, own.reduction)]
    return [(name, a, b) for name, a, b in pairs if a != b]


def spelling_rows(spellings: list[Spelling], spelled: bool = False) -> list[list[str]]:
    """Rows (variant, frontend, [what it is spelled with,] gmx op, verdict),
    each variant's own spelling first."""
    rows, firsts = [], {}
    for s in spellings:
        first = firsts.setdefault(s.study.variant.name, s)
        op = "–" if s.error else describe_op(s)
        with_ops = [", ".join(f"{n} {name}" for name, n in sorted(s.spelled.items())) or "–"] if spelled else []
        rows.append([s.study.variant.name, s.study.frontend, *with_ops, op, verdict(s, first)])
    return rows


def spelling_table(spellings: list[Spelling]) -> str:
    """gmx-study VARIANT --frontend all: one variant as every frontend spells
    it, the ops it is spelled with, and the gmx op each spelling raises to."""
    study = spellings[0].study
    lines = [f"gmx-study {study.variant.name} --frontend all: {study.expression()}", "",
             "=== every frontend's spelling and the gmx op --gmx-canonicalize raises it to ===",
             *text_table(["variant", "frontend", "spelled with", "gmx op", "vs the variant's own"],
                         spelling_rows(spellings, spelled=True), "lllll")]
    return "\n".join(lines) + "\n"
