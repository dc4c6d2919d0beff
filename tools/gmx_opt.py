"""gmx-opt: mlir-opt with the gmx dialect and passes.

    gmx-opt [FILE|-] [-o OUT] [--split-input-file] [--verify-diagnostics]
            [--debug-only=TYPES] [GENERAL OPTIONS...]
            [--pass-pipeline=PIPELINE | PASS FLAGS...]

Pass flags run in command-line order; gmx passes and every upstream pass are
accepted by their flag names (`--canonicalize`, `--tosa-to-tensor`,
`--convert-gmx-to-linalg=checked=false`). mlir-opt's general options
(`--mlir-timing`, `--mlir-print-ir-before-all`, `--emit-bytecode`, ...) are
those of `general_options`, applied to every chunk's pass manager and
output. Errors print `file:line:col: error: ...` and exit 1; the output
file is written only when every chunk succeeded.
"""

from __future__ import annotations

import argparse
import sys

from gmx.dialect import make_context
from gmx.dialect.mlir import ir
from gmx.dialect.parsing import UnparsableText
from gmx.passes import get_all_passes
from gmx.passes.debug import debug_only
from gmx.passes.pipeline import PipelineError, UnknownPass, build_pass_manager, pipeline_elements

from . import general_options
from .about import dialects_text, version_text
from .general_options import GeneralOptionError, did_you_mean, parse_general
from .options import StoreOnce
from .output import OutputError, write_output
from .source import SPLIT_TEXT, Chunk, SourceError, parse_chunk, read_source, split_chunks
from .verify_diagnostics import DiagnosticCollector, parse_expectations, verify

PROG = "gmx-opt"


def _passes_help() -> str:
    lines = ["Compiler passes to run (gmx passes):"]
    for name, factory in sorted(get_all_passes().items()):
        info = factory()
        lines.append(f"  --{name:<28} {info.description}")
        for option in info.options:
            lines.append(f"      {option.name}=<bool> (default {str(option.default).lower()}): {option.description}")
    lines.append("")
    lines.append("Any upstream MLIR pass is accepted by its mlir-opt flag name, e.g. --canonicalize, --cse.")
    return "\n".join(lines)


class _HelpAction(argparse.Action):
    """`--help`: the usage, then every gmx pass (imported only now)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.epilog = _passes_help()
        parser.print_help()
        parser.exit()


def _argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        usage="%(prog)s [options] [input file] [pass flags...]",
        description="MLIR modular optimizer driver with the gmx dialect and passes.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
        add_help=False,
    )
    parser.add_argument("input", nargs="?", default="-", help="input file (default: stdin)")
    general = parser.add_argument_group("General options")
    general.add_argument("-o", dest="output", default="-", action=StoreOnce, help="output file (default: stdout)")
    general.add_argument(
        "--pass-pipeline", action=StoreOnce, help="a textual pipeline, e.g. 'builtin.module(canonicalize)'"
    )
    general.add_argument("--split-input-file", action="store_true", help="process each '// -----' chunk separately")
    general.add_argument("--verify-diagnostics", action="store_true", help="check diagnostics against expected-* comments")
    general.add_argument(
        "--debug-only", default="", metavar="TYPES",
        help="debug output of these comma-separated types on stderr "
        "(gmx-canonicalize: why each pattern did not match each op)",
    )
    general_options.add_help_entries(general, PROG, "General options")
    generic = parser.add_argument_group("Generic Options")
    generic.add_argument("-h", "--help", action=_HelpAction, help="show this help, with the gmx passes, and exit")
    general_options.add_help_entries(generic, PROG, "Generic Options")
    return parser


def _option_flags(parser: argparse.ArgumentParser) -> list[str]:
    """Every flag gmx-opt takes, general options and gmx passes included
    (what a misspelt one may be a near miss of)."""
    return sorted(general_options.parser_flags(parser) | {f"--{name}" for name in get_all_passes()})


def parse_arguments(argv=None) -> argparse.Namespace:
    """Parse the command line: the general options (`general_options`),
    then gmx-opt's own; unknown `--flags` are pass flags, in order."""
    parser = _argument_parser()
    try:
        general, argv = parse_general(sys.argv[1:] if argv is None else argv, PROG)
    except GeneralOptionError as error:
        parser.error(str(error))
    args, rest = parser.parse_known_args(argv)
    args.general = general
    args.passes = []
    for item in rest:
        if not item.startswith("--") or item == "--":
            parser.error(f"unrecognized argument '{item}'")
        name, eq, options = item[2:].partition("=")
        args.passes.append(f"{name}{{{options}}}" if eq else name)
    if args.pass_pipeline is not None and args.passes:
        parser.error("'--pass-pipeline' cannot be combined with individual pass flags")
    return args


def _unknown_pass_text(args, error: UnknownPass) -> str:
    """One line naming what is unknown: a flag as the option it was
    typed as, with the nearest real flag if one is close."""
    if args.pass_pipeline is not None:
        return str(error) + did_you_mean(error.name, get_all_passes())
    flags = _option_flags(_argument_parser())
    return f"unknown pass or option '--{error.name}'" + did_you_mean(f"--{error.name}", flags)


def _pipeline(args) -> list[str]:
    if args.pass_pipeline is not None:
        return pipeline_elements(args.pass_pipeline)
    return args.passes


class OptDriver:
    """Runs parse -> passes -> print on each chunk; hooks are overridable."""

    def __init__(self, args, source_name: str):
        self.args = args
        self.general = args.general
        self.source_name = source_name
        self.elements = _pipeline(args)
        self.collector = DiagnosticCollector()

    def run_chunk(self, chunk: Chunk) -> str | bytes | None:
        """The printed result of one chunk (bytes with --emit-bytecode), or
        None when it failed (its diagnostics are then in the collector)."""
        try:
            module = parse_chunk(chunk, self.source_name)
            pm = build_pass_manager(self.elements)
            with self.general.running(pm):
                pm.run(module)
        except (ir.MLIRError, UnparsableText) as error:
            self.collector.add_error(error)
            return None
        # Parsing and every pass verified the module already (unless
        # --verify-each=false); printing need not verify it once more (a
        # sizeable part of printing a big module).
        return self.general.print_module(module)

    def check_chunk(self, chunk: Chunk, start: int) -> bool:
        """Report this chunk's diagnostics; True when it passes."""
        emitted = self.collector.emitted[start:]
        if self.args.verify_diagnostics:
            problems = verify(parse_expectations(chunk.text, chunk.first_line), emitted, self.source_name)
            for problem in problems:
                print(problem, file=sys.stderr)
            return not problems
        for diagnostic in emitted:
            print(diagnostic.text(), file=sys.stderr)
        return not any(d.severity == "error" for d in emitted)


def main(args) -> int:
    with debug_only(t.strip() for t in args.debug_only.split(",") if t.strip()):
        return _main(args)


def _main(args) -> int:
    with make_context() as context:
        args.general.configure_context(context)
        if args.general.version or args.general.show_dialects:
            sys.stdout.write(version_text(PROG, context) if args.general.version else dialects_text(context))
            return 0
        try:
            text, source_name = read_source(args.input, args.general.allow_unregistered_dialect)
            build_pass_manager(_pipeline(args))  # reject bad flags before any work
        except UnknownPass as error:
            print(f"{PROG}: error: {_unknown_pass_text(args, error)}", file=sys.stderr)
            return 1
        except (SourceError, PipelineError) as error:
            print(f"{PROG}: error: {error}", file=sys.stderr)
            return 1
        driver = OptDriver(args, source_name)
        handler = context.attach_diagnostic_handler(driver.collector.handler)
        try:
            outputs, ok = _run_chunks(driver, split_chunks(text, args.split_input_file))
        except GeneralOptionError as error:
            print(f"{PROG}: error: {error}", file=sys.stderr)
            return 1
        finally:
            handler.detach()
    if not ok:
        return 1
    try:
        write_output(args.output, _joined(outputs))
    except OutputError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    return 0


def _joined(outputs: list[str | bytes]) -> str | bytes:
    """The chunks' outputs between split markers, as mlir-opt writes them
    (bytecode chunks too)."""
    marker = SPLIT_TEXT
    if outputs and isinstance(outputs[0], bytes):
        return marker.encode().join(outputs)
    return marker.join(outputs)


def _run_chunks(driver: OptDriver, chunks: list[Chunk]) -> tuple[list[str], bool]:
    outputs, ok = [], True
    for chunk in chunks:
        start = len(driver.collector.emitted)
        printed = driver.run_chunk(chunk)
        ok = driver.check_chunk(chunk, start) and ok
        if printed is not None:
            outputs.append(printed)
    return outputs, ok


def _cli_main() -> None:
    sys.exit(main(parse_arguments()))


if __name__ == "__main__":
    _cli_main()
