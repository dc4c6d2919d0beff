"""gmx-study: how a gather variant lowers, stage by stage, with costs.

    gmx-study VARIANT [--frontend tosa|stablehlo|linalg|onnx] [--shape 4x5x6] ...
    gmx-study VARIANT --frontend all
    gmx-study --all --report DIR [--sizes 4096,65536]
    gmx-study --model NAME|NAME@FORM|FILE.mlir|FILE.onnx [--input X.npy ...]

For one variant: the frontend program (by default TOSA from torch-mlir for
the torch variants, from torch-mlir's ONNX importer for the ONNX ones, gmx
for multiaxis; --frontend picks another spelling of the same gather), the
program after --gmx-canonicalize
with what the fusion derived, after --convert-gmx-to-linalg, at loop level;
op counts per stage; fused, unfused and torch results against the reference; run
times and ratios. With --frontend all: a table of the variant as every
frontend spells it and the gmx op each spelling raises to. With --all:
every variant over a size sweep, written to DIR/report.md and one PNG plot
per variant, with a table of the gmx op each frontend's spelling of each
variant raises to. With --model: a whole program
(a model of the real-program corpus, a program of the scatter corpus, or a
TOSA or ONNX file) fused against unfused, gather by gather and scatter by
scatter, with compile and run times (`study.model`).

Exit status: 0 when every result is right; 1 when a result is wrong, a
program that must compile does not, or the frontend fails; 2 for bad
arguments or a missing optional dependency (one line on stderr, no
traceback).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import textwrap

from .experiments.dtypes import DATA_DTYPES, INDEX_DTYPES
from .experiments.variants import (
    OPTION_FLAGS,
    REGISTRY,
    SWEEP_UNIT,
    VARIANTS,
    StudyError,
    fmt_dims,
    make_study,
    option_text,
    parse_pattern,
    sweep_study,
)
from .experiments.frontends import Frontend
from .study.stages import STAGE_KEYS, StageKey

FRONTEND_CHOICES = [f.value for f in Frontend if f is not Frontend.GMX]  # gmx: the multiaxis variants' own
EVERY_FRONTEND = "all"  # --frontend all: the variant as every frontend spells it (`study.spellings`)

PROG = "gmx-study"
DEFAULT_SIZES = tuple(2**k for k in (12, 14, 16, 18, 20))
# Elements of one --shape or --indices-shape, at most: a study holds each
# array several times over (inputs, the reference's and each frontend's
# copies): 2^31 f32 elements grew past 24 GB; 2^26 is 256 MiB per f32 copy.
MAX_ELEMENTS = 2**26
SHOWN_BY_DEFAULT = (StageKey.FRONTEND, StageKey.FUSED, StageKey.LINALG, StageKey.LOOPS)


class _Parser(argparse.ArgumentParser):
    """argparse, with errors as one line: `gmx-study: error: ...`, exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _variants_help() -> str:
    from .experiments.models import MODELS
    from .experiments.scatter_corpus import MODELS as SCATTER_PROGRAMS

    lines = ["variants (defaults in brackets; the scatters are studied one at a time, not by --all):"]
    for name, v in REGISTRY.items():
        options = "".join(f" {OPTION_FLAGS[k]} {option_text(val)}" for k, val in v.options.items())
        lines.append(f"  {name:<22} [--shape {fmt_dims(v.shape)} --indices-shape {fmt_dims(v.indices_shape)}{options}]")
    lines += ["", "models of the real-program corpus (--model):"]
    lines += textwrap.wrap(", ".join(MODELS), 78, initial_indent="  ", subsequent_indent="  ")
    lines += ["", "programs of the scatter corpus, in each form (--model):"]
    lines += textwrap.wrap(", ".join(SCATTER_PROGRAMS), 78, initial_indent="  ", subsequent_indent="  ")
    return "\n".join(lines)


def _argument_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Show how a gather variant lowers, stage by stage, with op counts, checks and run times.",
        epilog=_variants_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument("variant", nargs="?", metavar="VARIANT", help="one of the variants below")
    parser.add_argument("--frontend", choices=[*FRONTEND_CHOICES, EVERY_FRONTEND],
                        help="how the gather or scatter is spelled: torch-mlir's TOSA, StableHLO or linalg-on-tensors "
                             "export of its torch expression, or the ONNX node (ONNX variants); default: the "
                             "variant's own; all: a table of every frontend's spelling and the gmx op each raises to")
    shapes = parser.add_argument_group("the gather")
    shapes.add_argument("--shape", metavar="DIMS",
                        help=f"data shape, e.g. 4x5x6 (for embedding: the table); at most 2^{MAX_ELEMENTS.bit_length() - 1} elements")
    shapes.add_argument("--indices-shape", metavar="DIMS",
                        help="indices shape (multiaxis: with the tuples folded into the last dim); as many elements at most")
    shapes.add_argument("--axis", type=int, help="the gathered axis (negative counts from the end)")
    shapes.add_argument("--axes", metavar="A,B,...", help="multiaxis: the axes, e.g. 2,0")
    shapes.add_argument("--batch-dims", type=int, metavar="B", help="onnx-gather-nd: batch_dims")
    shapes.add_argument("--pattern", help="advanced-index: the index, e.g. i,:,j (names are index tensors)")
    shapes.add_argument("--dtype", choices=list(DATA_DTYPES), default="f32", help="data element type (default f32)")
    shapes.add_argument("--index-dtype", choices=list(INDEX_DTYPES), default="i64", help="index element type (default i64)")
    shapes.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the random inputs (default 0)")
    run = parser.add_argument_group("what runs")
    run.add_argument("--unchecked", action="store_true", help="compile without run-time index bounds checks")
    run.add_argument("--stages", metavar="LIST",
                     help=f"stages whose IR is printed, comma separated, or none: {', '.join(STAGE_KEYS)} "
                          f"(default {','.join(SHOWN_BY_DEFAULT)})")
    run.add_argument("--iree-ir", action="store_true",
                     help="print the IR gmx.runtime's iree backend hands to IREE for the CPU (local-task), then stop")
    run.add_argument("--repeat", type=int, default=7, metavar="N", help="timed rounds (default 7)")
    run.add_argument("--warmup", type=int, default=2, metavar="N", help="untimed rounds first (default 2)")
    run.add_argument("--no-timing", action="store_true", help="check results, do not time them")
    whole = parser.add_argument_group("a whole model")
    whole.add_argument("--model", metavar="NAME|FILE",
                       help="a model of the real-program corpus (gmx.tools.experiments.models), a program of the "
                            "scatter corpus (gmx.tools.experiments.scatter_corpus, NAME@FORM), or a TOSA .mlir "
                            "or .onnx file: fused against unfused, gather by gather and scatter by scatter")
    whole.add_argument("--input", action="append", default=[], metavar="X.npy",
                       help="with a file: an argument array (repeat, in order); default random")
    whole.add_argument("--entry", metavar="NAME", help="with a .mlir file: the function to run (default main)")
    sweep = parser.add_argument_group("the sweep")
    sweep.add_argument("--all", action="store_true", help="every variant over --sizes; needs --report")
    sweep.add_argument("--report", metavar="DIR", help="write DIR/report.md and DIR/<variant>.png")
    sweep.add_argument("--sizes", metavar="N,N,...",
                       help=f"output sizes of the sweep, multiples of {SWEEP_UNIT}, e.g. 4096,2^16 "
                            f"(default {','.join(str(n) for n in DEFAULT_SIZES)})")
    return parser


def parse_shape(parser, flag: str, text: str | None) -> tuple[int, ...] | None:
    """`4x5x6` -> (4, 5, 6); a precise parser.error otherwise, and for
    shapes beyond MAX_ELEMENTS (before any work)."""
    if text is None:
        return None
    parts = text.lower().split("x")
    if not all(p.strip().isdigit() for p in parts):
        parser.error(f"{flag} '{text}' must be dims separated by 'x', e.g. 4x5x6")
    dims = tuple(int(p) for p in parts)
    if 0 in dims:
        parser.error(f"{flag} '{text}': every dim must be at least 1")
    if math.prod(dims) > MAX_ELEMENTS:
        parser.error(
            f"{flag} '{text}' has {math.prod(dims):,} elements; gmx-study studies at most "
            f"{MAX_ELEMENTS:,} (2^{MAX_ELEMENTS.bit_length() - 1}) per array: every frontend holds its own copies"
        )
    return dims


def parse_ints(parser, flag: str, text: str | None) -> tuple[int, ...] | None:
    """`2,0` -> (2, 0)."""
    if text is None:
        return None
    try:
        return tuple(int(p) for p in text.split(","))
    except ValueError:
        parser.error(f"{flag} '{text}' must be integers separated by commas, e.g. 2,0")


def parse_sizes(parser, text: str | None) -> tuple[int, ...]:
    """`4096,2^16` -> (4096, 65536): each a positive multiple of SWEEP_UNIT."""
    if text is None:
        return DEFAULT_SIZES
    sizes = []
    for part in text.split(","):
        base, caret, exponent = part.strip().partition("^")
        if not base.isdigit() or (caret and not exponent.isdigit()):
            parser.error(f"--sizes '{text}': '{part}' is not a number such as 4096 or 2^12")
        n = int(base) ** int(exponent) if caret else int(base)
        if n < SWEEP_UNIT or n % SWEEP_UNIT:
            parser.error(f"--sizes '{text}': {n} is not a positive multiple of {SWEEP_UNIT}")
        sizes.append(n)
    return tuple(sizes)


def parse_stages(parser, text: str | None) -> tuple[StageKey, ...]:
    if text is None:
        return SHOWN_BY_DEFAULT
    if text.strip() == "none":
        return ()
    stages = tuple(s.strip() for s in text.split(","))
    unknown = [s for s in stages if s not in STAGE_KEYS]
    if unknown:
        parser.error(f"--stages: unknown stage '{unknown[0]}' (stages: {', '.join(STAGE_KEYS)}, or none)")
    return tuple(StageKey.parse(s) for s in stages)


def missing_dependency(needed: tuple[str, ...]) -> str | None:
    """The first of `needed` that is not installed, as an error message."""
    for module in needed:
        if importlib.util.find_spec(module) is None:
            return (f"{module} is not installed; gmx-study needs the study extra: "
                    f"pip install 'gmx[study]' (or -e '.[study]' in a checkout)")
    return None


def parse_arguments(argv=None) -> argparse.Namespace:
    """Parse and validate everything: args.study is the Study to run, or with
    --all args.sweep lists (output size, Study) for every variant and size."""
    parser = _argument_parser()
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        parser.error("--repeat must be at least 1 and --warmup at least 0")
    args.shown = parse_stages(parser, args.stages)
    given = {"dtype": args.dtype, "index_dtype": args.index_dtype, "seed": args.seed}
    if args.model is not None:
        needed = _check_model_arguments(parser, args)
    elif args.all:
        _check_sweep_arguments(parser, args)
        args.sizes = parse_sizes(parser, args.sizes)
        needed = ("torch", "onnx", "matplotlib")
        args.index_dtypes = {name: _sweep_index_dtype(name, args.index_dtype) for name in VARIANTS}
        args.sweep = [
            (n, _study(parser, sweep_study, name, n, **{**given, "index_dtype": args.index_dtypes[name]}))
            for name in VARIANTS
            for n in args.sizes
        ]
        args.spellings = [
            _study(parser, make_study, name, **{**given, "index_dtype": args.index_dtypes[name], "frontend": f})
            for name, variant in VARIANTS.items()
            for f in variant.frontends()
        ]
    else:
        _check_single_arguments(parser, args)
        every = args.frontend == EVERY_FRONTEND
        given.update(_shape_options(parser, args), frontend=None if every else args.frontend)
        study = _study(parser, make_study, args.variant, **given)
        args.spellings = [_study(parser, make_study, args.variant, **{**given, "frontend": f})
                          for f in REGISTRY[args.variant].frontends()] if every else None
        uses_onnx = study.frontend == "onnx" or Frontend.ONNX in REGISTRY[args.variant].frontends() and every
        needed = ("torch", "onnx") if uses_onnx else ("torch",)
        args.study = study
    problem = missing_dependency(needed)
    if problem:
        parser.error(problem)
    return args


def _sweep_index_dtype(name: str, wanted: str) -> str:
    """The sweep uses `wanted` where the variant's frontend takes it, else
    i64 (torch.take, take_along_dim and ONNX GatherND take no i32); the
    report says which."""
    return wanted if wanted in VARIANTS[name].index_dtypes else "i64"


def _study(parser, make, *args, **kwargs):
    try:
        return make(*args, **kwargs)
    except StudyError as error:
        parser.error(str(error))


def _shape_options(parser, args) -> dict:
    return {
        "shape": parse_shape(parser, "--shape", args.shape),
        "indices_shape": parse_shape(parser, "--indices-shape", args.indices_shape),
        "axis": args.axis,
        "axes": parse_ints(parser, "--axes", args.axes),
        "batch_dims": args.batch_dims,
        "pattern": _pattern(parser, args.pattern),
    }


def _pattern(parser, text):
    if text is None:
        return None
    try:
        return parse_pattern(text)
    except StudyError as error:
        parser.error(str(error))


def _check_model_arguments(parser, args) -> tuple[str, ...]:
    """--model takes a corpus name or an existing .mlir/.onnx file, and none
    of a variant's options; returns the modules it needs."""
    from .experiments.models import MODELS
    from .experiments.scatter_corpus import MODELS as SCATTER_PROGRAMS

    if args.variant is not None or args.all:
        parser.error(f"--model studies one whole program; drop {'--all' if args.all else repr(args.variant)}")
    for flag in ("--shape", "--indices-shape", "--axis", "--axes", "--batch-dims", "--pattern", "--report",
                 "--sizes", "--stages", "--frontend"):
        if getattr(args, flag[2:].replace("-", "_")) is not None:
            parser.error(f"{flag} does not apply with --model")
    if args.model in MODELS or args.model in SCATTER_PROGRAMS:
        if args.input or args.entry:
            parser.error("--input and --entry go with a file; a corpus model has its own inputs")
        return ("torch", "onnx", "transformers")
    if not args.model.endswith((".mlir", ".onnx")):
        parser.error(f"--model '{args.model}' is neither a model of the corpus ({', '.join(MODELS)}), "
                     f"a program of the scatter corpus ({', '.join(SCATTER_PROGRAMS)}) nor a .mlir or .onnx file")
    if not os.path.isfile(args.model):
        parser.error(f"--model '{args.model}': no such file")
    if args.model.endswith(".mlir"):
        return ()
    if args.entry:
        parser.error("--entry goes with a .mlir file; an ONNX model's entry is its graph")
    return ("torch", "onnx")  # torch-mlir's ONNX importer


def _check_single_arguments(parser, args) -> None:
    if args.variant is None:
        parser.error(f"name a VARIANT ({', '.join(REGISTRY)}) or use --all --report DIR")
    for flag, value in (("--report", args.report), ("--sizes", args.sizes)):
        if value is not None:
            parser.error(f"{flag} goes with --all")
    if args.frontend == EVERY_FRONTEND:
        for flag, given in (("--stages", args.stages is not None), ("--iree-ir", args.iree_ir)):
            if given:
                parser.error(f"{flag} does not apply with --frontend all: it shows a table of the spellings, "
                             "no IR; name one frontend")


def _check_sweep_arguments(parser, args) -> None:
    if args.variant is not None:
        parser.error(f"--all studies every variant; drop '{args.variant}' or --all")
    if args.report is None:
        parser.error("--all needs --report DIR")
    if os.path.exists(args.report) and not os.path.isdir(args.report):
        parser.error(f"--report '{args.report}' exists and is not a directory")
    for flag in ("--shape", "--indices-shape", "--axis", "--axes", "--batch-dims", "--pattern"):
        if getattr(args, flag[2:].replace("-", "_")) is not None:
            parser.error(f"{flag} does not apply with --all: the sweep sets the shapes (see --sizes)")
    if args.frontend is not None:
        parser.error("--frontend does not apply with --all: the report compares every frontend of each variant")
    if args.stages is not None or args.no_timing:
        flag = "--stages" if args.stages is not None else "--no-timing"
        parser.error(f"{flag} does not apply with --all: the report shows no IR and times every point")


def show_iree_ir(study, checked: bool) -> int:
    """Print the module gmx.runtime's iree backend compiles for the study."""
    from gmx.runtime import CompileError
    from gmx.runtime.iree_lowering import lower_for_iree

    from .experiments.contenders import make_case
    from .experiments.frontends import FrontendError
    from .experiments.pipelines import run_pipeline

    try:
        fused = run_pipeline(make_case(study).text, ["gmx-canonicalize"]).text
        sys.stdout.write(lower_for_iree(fused, "main", checked, output_storage=True).text)  # as for local-task
    except (FrontendError, CompileError) as error:
        print(f"{PROG}: error: {study.variant.name}: {str(error).splitlines()[0]}", file=sys.stderr)
        return 1
    return 0


def study_one(args: argparse.Namespace) -> int:
    """Print the study of args.study; 1 if it failed."""
    from .experiments.frontends import FrontendError
    from .study.outcome import run_study
    from .study.render import render

    study = args.study
    if args.iree_ir:
        return show_iree_ir(study, not args.unchecked)
    if args.spellings:
        from .study.spellings import spell, spelling_table

        sys.stdout.write(spelling_table([spell(s) for s in args.spellings]))
        return 0
    timing = None if args.no_timing else (args.repeat, args.warmup)
    try:
        outcome = run_study(study, not args.unchecked, timing)
    except FrontendError as error:
        print(f"{PROG}: error: {study.variant.name}: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001  a bug of ours: one line, as every other failure
        print(f"{PROG}: error: {study.variant.name}: internal error: {type(error).__name__}: {error}",
              file=sys.stderr)
        return 1
    sys.stdout.write(render(outcome, args.shown, timing))
    for problem in outcome.problems:
        print(f"{PROG}: error: {study.variant.name}: {problem}", file=sys.stderr)
    return 1 if outcome.problems else 0


def study_model(args: argparse.Namespace) -> int:
    """Print the whole-model study of args.model; 1 if it failed."""
    from .study import model

    timing = None if args.no_timing else (args.repeat, args.warmup)
    try:
        case = model.load_case(args.model, args.input, args.entry)
        contenders = model.study_model(case, not args.unchecked, timing)
    except model.ModelError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001  a bug of ours: one line, as every other failure
        print(f"{PROG}: error: {args.model}: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(model.render(case, contenders, not args.unchecked, timing))
    problems = model.problems(contenders)
    for problem in problems:
        print(f"{PROG}: error: {case.name}: {problem}", file=sys.stderr)
    return 1 if problems else 0


def main(args: argparse.Namespace) -> int:
    if args.model is not None:
        return study_model(args)
    if args.all:
        from .study.sweep import sweep_main

        return sweep_main(args)
    return study_one(args)


def _cli_main() -> None:
    try:
        sys.exit(main(parse_arguments()))
    except KeyboardInterrupt:
        sys.stderr.write(f"\n{PROG}: interrupted\n")
        sys.exit(130)


if __name__ == "__main__":
    _cli_main()
