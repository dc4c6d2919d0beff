"""The lowering of one frontend program, stage by stage.

    frontend       the program as the frontend emitted it
    fused          after --gmx-canonicalize
    linalg         the fused program at --gmx-lower-to-llvm's linalg level
                   (every gmx op a linalg op, everything else as it was)
    loops          the fused program at its loop level (scf loops on memrefs)
    unfused-loops  the frontend program through the same stages

The levels are --gmx-lower-to-llvm's own (`gmx_lower_to_llvm.stages`),
with the options gmx.runtime compiles with (`lowering_options`): the loop
level shown is the program that runs, destinations and parallel loops included.

Each stage keeps its IR (large constants elided, for reading) and its op
counts; a stage whose pipeline fails keeps the first line of the error
instead. `derive` reads, from the fused module, what the fusion made of
each gather: the gmx op's axes, its operand and result types, and the ops
between them and the function's arguments and results.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from gmx.dialect import OP_NAME, SCATTER_OP_NAME, make_context, read_mode, read_reduction
from gmx.dialect.locations import error_text
from gmx.dialect.mlir import ir, passmanager
from gmx.dialect.modes import DEFAULT_MODE, Mode
from gmx.dialect.reductions import DEFAULT_REDUCTION, Reduction
from gmx.passes.lowering.gmx_lower_to_llvm import LowerOptions, add_lowering, stages
from gmx.passes.pipeline import add_element
from gmx.passes.views import VIEW_OPS, defining_op
from gmx.runtime.lowering import lowering_options

from ..experiments.choices import Choice
from ..experiments.pipelines import count_ops

ELIDE = 16  # constants with more elements print as dense_resource<__elided__> / "..."
CONSTANTS = ("tosa.const", "tosa.const_shape", "arith.constant")


class StageKey(Choice):
    """A stage of the lowering (gmx-study --stages), in order."""

    FRONTEND = "frontend"
    FUSED = "fused"
    LINALG = "linalg"
    LOOPS = "loops"
    UNFUSED_LOOPS = "unfused-loops"


STAGE_KEYS = tuple(StageKey)


@dataclass
class Stage:
    key: StageKey
    title: str
    text: str | None = None  # the IR, large constants elided
    counts: Counter = field(default_factory=Counter)
    error: str | None = None  # the first line of why the stage failed

    @property
    def total(self) -> int | None:
        return None if self.error else sum(self.counts.values())


@dataclass(frozen=True)
class Derived:
    """One gmx op of the fused program, as the fusion derived it (a
    scatter's updates are not described: they have the output's shape or 1s)."""

    axes: tuple[int, ...]
    input_type: str  # `4x5x6xf32`
    input_source: str  # how the input is computed from the arguments: `x`, `expand_shape(x)`, ...
    indices_type: str
    indices_source: str
    output_type: str
    result: str  # what happens to the result: `returned`, `collapse_shape to 3x5xf32, returned`
    mode: Mode = DEFAULT_MODE  # the op's out-of-range mode
    op: str = OP_NAME  # which gmx op
    reduction: Reduction = DEFAULT_REDUCTION  # a scatter's reduction

    def rules(self) -> str:
        """` mode=wrap reduction=add`: the mode and reduction where they are not the defaults."""
        return rules_text(self.mode, self.reduction)

    def summary(self) -> str:
        return (
            f"{self.op} axes={list(self.axes)}{self.rules()}: input {self.input_type} = {self.input_source}; "
            f"indices {self.indices_type} = {self.indices_source}; output {self.output_type}, {self.result}"
        )


def rules_text(mode: Mode, reduction: Reduction = DEFAULT_REDUCTION) -> str:
    """` mode=wrap reduction=add`, each only where it is not the default
    (the defaults are the tables', never a spelling)."""
    shown = [("mode", mode, DEFAULT_MODE), ("reduction", reduction, DEFAULT_REDUCTION)]
    return "".join(f" {name}={value}" for name, value, default in shown if value is not default)


@dataclass
class Lowering:
    checked: bool
    stages: dict[StageKey, Stage] = field(default_factory=dict)
    fused_text: str | None = None  # complete (for compiling), None if the pass failed
    derived: list[Derived] = field(default_factory=list)


def lower(frontend_text: str, arguments: Sequence[str], checked: bool) -> Lowering:
    """Run every stage on `frontend_text`; `arguments` name the entry's
    arguments in `derive`'s descriptions."""
    result = Lowering(checked)
    options = lowering_options(checked)
    pipelines = {
        StageKey.FUSED: lambda pm: add_element(pm, "gmx-canonicalize"),
        StageKey.LINALG: lambda pm: add_lowering(pm, options, until="linalg"),
        StageKey.LOOPS: lambda pm: add_lowering(pm, options, until="loops"),
    }
    pipelines[StageKey.UNFUSED_LOOPS] = pipelines[StageKey.LOOPS]
    titles = _titles(options)
    with make_context():
        try:
            parsed = ir.Module.parse(frontend_text)  # owns the module: keep it while we work
        except ir.MLIRError as error:
            failed = f"the frontend program does not parse: {_first_line(error)}"
            result.stages = {k: Stage(k, titles[k], error=failed) for k in STAGE_KEYS}
            return result
        frontend = parsed.operation
        result.stages[StageKey.FRONTEND] = snapshot(titles[StageKey.FRONTEND], frontend)
        fused = _stage(StageKey.FUSED, frontend, pipelines, titles, result)
        if fused is not None:
            result.fused_text = fused.get_asm()
            result.derived = derive(fused, arguments)
            _stage(StageKey.LINALG, fused, pipelines, titles, result)
            _stage(StageKey.LOOPS, fused, pipelines, titles, result)
        else:
            for key in (StageKey.LINALG, StageKey.LOOPS):
                result.stages[key] = Stage(key, titles[key], error="not run: --gmx-canonicalize failed")
        _stage(StageKey.UNFUSED_LOOPS, frontend, pipelines, titles, result)
    return result


def _stage(key: StageKey, source, pipelines: dict, titles: dict, result: Lowering):
    """Run stage `key`'s pipeline on a clone of `source` into result.stages;
    the module, or None when the pipeline failed (the stage says why)."""
    module = source.clone()
    pm = passmanager.PassManager("builtin.module")
    try:
        pipelines[key](pm)
        pm.run(module)
    except ir.MLIRError as error:
        result.stages[key] = Stage(key, titles[key], error=f"does not lower: {_first_line(error)}")
        return None
    result.stages[key] = snapshot(titles[key], module, key)
    return module


def _titles(options: LowerOptions) -> dict[StageKey, str]:
    """Stage titles that name the pipelines as they are (never a copy)."""
    return {
        StageKey.FRONTEND: "the frontend program",
        StageKey.FUSED: "after --gmx-canonicalize",
        StageKey.LINALG: f"{_level(options, 'linalg')}: gmx ops as linalg, the rest as it was",
        StageKey.LOOPS: f"{_level(options, 'loops')}: scf loops on memrefs, as gmx.runtime compiles it",
        StageKey.UNFUSED_LOOPS: "unfused loop level: the frontend program through the same stages",
    }


def _level(options: LowerOptions, level: str) -> str:
    """`--gmx-lower-to-llvm=... up to its loops level (N stages, first ... last)`."""
    names = [s.name for s in stages(options, until=level)]
    return f"{options.flag()} up to its {level} level ({len(names)} stages, {names[0]} ... {names[-1]})"


def _first_line(error: ir.MLIRError) -> str:
    return error_text(error).splitlines()[0]


def snapshot(title: str, module, key: StageKey = StageKey.FRONTEND) -> Stage:
    """The Stage of a module: its IR with large constants elided, its op counts."""
    return Stage(key, title, module.get_asm(large_elements_limit=ELIDE), count_ops(module))


# --- what the fusion derived ---------------------------------------------------


def derive(module, arguments: Sequence[str]) -> list[Derived]:
    """Every gmx op of `module` (gathers and scatters), described (see Derived)."""
    found = []

    def visit(op):
        if op.name in (OP_NAME, SCATTER_OP_NAME):
            found.append(_describe(op, arguments))
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    return found


def _describe(op, arguments: Sequence[str]) -> Derived:
    input, indices = op.operands[0], op.operands[1]
    return Derived(
        tuple(ir.DenseI64ArrayAttr(op.attributes["axes"])),
        type_text(input.type),
        source(input, arguments),
        type_text(indices.type),
        source(indices, arguments),
        type_text(op.results[0].type),
        fate(op.results[0]),
        read_mode(op)[0],
        op.name,
        read_reduction(op) if op.name == SCATTER_OP_NAME else DEFAULT_REDUCTION,
    )


def type_text(t: ir.Type) -> str:
    """`4x5x6xf32` for tensor<4x5x6xf32>."""
    text = str(t)
    return text[len("tensor<") : -1] if text.startswith("tensor<") else text


def short_name(op) -> str:
    """`expand_shape` for tensor.expand_shape: the dialect shows in the IR."""
    return op.name.split(".", 1)[-1]


def source(value: ir.Value, arguments: Sequence[str], limit: int = 160) -> str:
    """How `value` is computed from the function's arguments, as nested calls
    (`collapse_shape(concat(expand_shape(i), expand_shape(j)))`), constants
    as `const`; deeper calls become `…` until it fits in `limit` characters."""
    depth = 1
    text = _call_text(value, arguments, depth)
    while True:
        deeper = _call_text(value, arguments, depth + 1)
        if deeper == text or len(deeper) > limit:
            return text
        text, depth = deeper, depth + 1


def _call_text(value: ir.Value, arguments: Sequence[str], depth: int) -> str:
    op = defining_op(value)
    if op is None:
        number = ir.BlockArgument(value).arg_number
        return arguments[number] if number < len(arguments) else f"%arg{number}"
    if op.name in CONSTANTS:
        return "const"
    if depth == 0:
        return "…"
    tensors = [v for v in op.operands if isinstance(v.type, ir.RankedTensorType)]
    return f"{short_name(op)}({', '.join(_call_text(v, arguments, depth - 1) for v in tensors)})"


def fate(value: ir.Value) -> str:
    """What becomes of a gmx result: the views it goes through, then
    `returned` or the op that uses it."""
    steps = []
    while True:
        uses = list(value.uses)
        if len(uses) != 1:
            return ", ".join(steps + [f"used by {len(uses)} ops"])
        user = uses[0].owner
        if user.name == "func.return":
            return ", ".join(steps + ["returned"])
        if user.name not in VIEW_OPS:
            return ", ".join(steps + [f"used by {user.name}"])
        value = user.results[0]
        steps.append(f"{short_name(user)} to {type_text(value.type)}")
