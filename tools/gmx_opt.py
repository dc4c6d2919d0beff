"""gmx-opt: mlir-opt with the gmx dialect and passes.

    gmx-opt [FILE|-] [-o OUT] [--split-input-file] [--verify-diagnostics]
            [--debug-only=TYPES] [--pass-pipeline=PIPELINE | PASS FLAGS...]

Pass flags run in command-line order; gmx passes and every upstream pass are
accepted by their flag names (`--canonicalize`, `--tosa-to-tensor`,
`--convert-gmx-to-linalg=checked=false`). Errors print
`file:line:col: error: ...` and exit 1; the output file is written only
when every chunk succeeded.
"""

from __future__ import annotations

import argparse
import sys

from gmx.dialect import make_context
from gmx.dialect.mlir import ir
from gmx.dialect.parsing import UnparsableText
from gmx.passes import get_all_passes
from gmx.passes.debug import debug_only
from gmx.passes.pipeline import PipelineError, build_pass_manager, pipeline_elements

from .options import StoreOnce
from .output import OutputError, write_output
from .source import Chunk, SourceError, parse_chunk, read_source, split_chunks
from .verify_diagnostics import DiagnosticCollector, parse_expectations, verify

PROG = "gmx-opt"


def _passes_help() -> str:
    lines = ["gmx passes:"]
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
        description="MLIR modular optimizer driver with the gmx dialect and passes.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
        add_help=False,
    )
    parser.add_argument("-h", "--help", action=_HelpAction, help="show this help, with the gmx passes, and exit")
    parser.add_argument("input", nargs="?", default="-", help="input file (default: stdin)")
    parser.add_argument("-o", dest="output", default="-", action=StoreOnce, help="output file (default: stdout)")
    parser.add_argument(
        "--pass-pipeline", action=StoreOnce, help="a textual pipeline, e.g. 'builtin.module(canonicalize)'"
    )
    parser.add_argument("--split-input-file", action="store_true", help="process each '// -----' chunk separately")
    parser.add_argument("--verify-diagnostics", action="store_true", help="check diagnostics against expected-* comments")
    parser.add_argument("--mlir-print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)")
    parser.add_argument("--mlir-print-op-generic", action="store_true", help="print ops in generic form")
    parser.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    parser.add_argument(
        "--debug-only", default="", metavar="TYPES",
        help="debug output of these comma-separated types on stderr "
        "(gmx-canonicalize: why each pattern did not match each op)",
    )
    return parser


def parse_arguments(argv=None) -> argparse.Namespace:
    """Parse the command line; unknown `--flags` are pass flags, in order."""
    parser = _argument_parser()
    args, rest = parser.parse_known_args(argv)
    args.passes = []
    for item in rest:
        if not item.startswith("--") or item == "--":
            parser.error(f"unrecognized argument '{item}'")
        name, eq, options = item[2:].partition("=")
        args.passes.append(f"{name}{{{options}}}" if eq else name)
    if args.pass_pipeline is not None and args.passes:
        parser.error("'--pass-pipeline' cannot be combined with individual pass flags")
    return args


def _pipeline(args) -> list[str]:
    if args.pass_pipeline is not None:
        return pipeline_elements(args.pass_pipeline)
    return args.passes


class OptDriver:
    """Runs parse -> passes -> print on each chunk; hooks are overridable."""

    def __init__(self, args, source_name: str):
        self.args = args
        self.source_name = source_name
        self.elements = _pipeline(args)
        self.collector = DiagnosticCollector()

    def run_chunk(self, chunk: Chunk) -> str | None:
        """The printed result of one chunk, or None when it failed (its
        diagnostics are then in the collector)."""
        try:
            module = parse_chunk(chunk, self.source_name)
            pm = build_pass_manager(self.elements)
            if self.args.mlir_print_ir_after_all:
                pm.enable_ir_printing(print_after_all=True, print_module_scope=True)
            pm.run(module)
        except (ir.MLIRError, UnparsableText) as error:
            self.collector.add_error(error)
            return None
        # Parsing and every pass verified the module already; printing need
        # not verify it once more (a sizeable part of printing a big module).
        return module.get_asm(
            print_generic_op_form=self.args.mlir_print_op_generic,
            enable_debug_info=self.args.mlir_print_debuginfo,
            assume_verified=True,
        )

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
        try:
            text, source_name = read_source(args.input)
            build_pass_manager(_pipeline(args))  # reject bad flags before any work
        except (SourceError, PipelineError) as error:
            print(f"{PROG}: error: {error}", file=sys.stderr)
            return 1
        driver = OptDriver(args, source_name)
        handler = context.attach_diagnostic_handler(driver.collector.handler)
        try:
            outputs, ok = _run_chunks(driver, split_chunks(text, args.split_input_file))
        finally:
            handler.detach()
    if not ok:
        return 1
    try:
        write_output(args.output, "// -----\n".join(outputs))
    except OutputError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    return 0


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
