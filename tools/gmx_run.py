"""gmx-run: lower a module with --gmx-lower-to-llvm, run a function, show results.

    gmx-run FILE|- [-e ENTRY] [--input X.npy ...] [--output OUT.npy|OUT.npz] [--threads N]
            [--backend engine|iree] [--device NAME] [GENERAL OPTIONS...]

In the manner of mlir-runner: the entry function (default `main`) takes the
`--input` arrays in order and its results are printed as numpy reprs, or
written to `--output` (`.npy` for one result, `.npz` with keys result0,
result1, ... for any number). Every failure prints one clear message and
exits 1: parse and verify errors located as `file:line:col: error: ...`,
unreadable inputs, arguments that do not fit the signature, and index
values out of range. mlir-opt's general options that apply to the lowering
(`--mlir-print-ir-after-all`, `--mlir-timing`, elision, ...: those
`general_options` gives gmx-run) apply to the --gmx-lower-to-llvm run of
the engine backend.
"""

from __future__ import annotations

import argparse
import io
import sys

import numpy as np

from gmx.dialect import make_context
from gmx.dialect.errors import GmxError
from gmx.dialect.locations import error_text
from gmx.dialect.mlir import ir
from gmx.dialect.parsing import UnparsableText
from gmx.passes.instrument import instrumenting
from gmx.runtime import CompileError, compile
from gmx.runtime.backends import BACKENDS
from gmx.runtime.threads import usable_cores

from . import general_options
from .about import version_text
from .general_options import GeneralOptionError, did_you_mean, parse_general
from .npy_input import InputError, as_argument, load_npy
from .options import StoreOnce
from .output import OutputError, write_output, written_through
from .source import Chunk, SourceError, parse_chunk, read_source

PROG = "gmx-run"


BF16_HELP = """\
bf16 arguments: save them with numpy and ml_dtypes,
  np.save("x.npy", x.astype(ml_dtypes.bfloat16))
numpy records bfloat16 as raw 2-byte values ('|V2'); gmx-run reads such a
file as bfloat16 where the entry's argument is bf16. Inputs are .npy files
only (no .npz, never pickled objects)."""


class RunError(GmxError):
    """A failure to report as one line, without a traceback."""


# mlir-runner's --entry-point-result values.
ENTRY_POINT_RESULTS = ("void", "i32", "i64", "f32")


def check_entry_point_result(declared: str | None, entry: str, program) -> None:
    """mlir-runner's `--entry-point-result`, which gmx-run does not need
    (the entry's signature says what it returns), checked against the
    entry: `void` must return nothing; a scalar is never what gmx-run
    returns (its results are tensors; the runtime refuses an entry
    returning a scalar before this)."""
    if declared is None or (declared == "void" and not program.results):
        return
    returned = ", ".join(sig.describe() for sig in program.results) or "nothing"
    raise RunError(f"--entry-point-result={declared}, but @{entry} returns {returned}")


def parse_arguments(argv=None) -> argparse.Namespace:
    """Parse the command line: the general options (`general_options`),
    then gmx-run's own; an unknown option is one error line, with the
    nearest real flag if one is close."""
    parser = _argument_parser()
    try:
        general, argv = parse_general(sys.argv[1:] if argv is None else argv, PROG)
    except GeneralOptionError as error:
        parser.error(str(error))
    if general.version:
        with make_context() as context:
            sys.stdout.write(version_text(PROG, context))
        parser.exit()
    args, rest = parser.parse_known_args(argv)
    if rest:
        near = did_you_mean(rest[0].partition("=")[0], general_options.parser_flags(parser))
        parser.error(f"unrecognized argument '{rest[0]}'" + near)
    args.general = general
    return args


def _argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        usage="%(prog)s FILE|- [options]",
        description="Lower an MLIR module with --gmx-lower-to-llvm and run one of its functions.",
        epilog=BF16_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument("input_file", metavar="FILE", help="MLIR file, or - for stdin")
    parser.add_argument("-e", "--entry", default="main", action=StoreOnce, help="function to run (default: main)")
    parser.add_argument(
        "--entry-point-result", choices=ENTRY_POINT_RESULTS,
        help="as mlir-runner's, what the entry returns: checked against its signature (gmx-run returns the "
        "entry's tensors, never a scalar)",
    )
    parser.add_argument("--input", action="append", default=[], metavar="X.npy", help="an argument array (repeat, in order)")
    parser.add_argument("--output", metavar="OUT", action=StoreOnce, help="write results to OUT.npy (one result) or OUT.npz")
    parser.add_argument("--unchecked", action="store_true", help="no run-time bounds check of indices (benchmarks only)")
    parser.add_argument(
        "--allow-external-symbols", action="store_true",
        help="let the module call any function of the process, as mlir-runner does (default: only "
        "the runtime's callbacks, libm, memory and OpenMP runtime functions)",
    )
    parser.add_argument(
        "--threads", type=positive_int, metavar="N",
        help=f"threads one call may run on (default: the usable cores, here {usable_cores()})",
    )
    parser.add_argument("--backend", choices=BACKENDS, default="engine", help="engine (default) or iree (the [iree] extra)")
    parser.add_argument("--device", metavar="NAME", help="with --backend iree: local-task (default), local-sync or cuda")
    general = parser.add_argument_group("General options (mlir-opt's, applied to the lowering)")
    general_options.add_help_entries(general, PROG, "General options")
    general_options.add_help_entries(general, PROG, "Generic Options")
    return parser


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def load_module_text(path: str) -> str:
    """The module's text with locations naming the real file."""
    text, source_name = read_source(path)
    with make_context():
        try:
            module = parse_chunk(Chunk(text, first_line=1), source_name)
        except ir.MLIRError as error:
            raise RunError(error_text(error)) from None
        except UnparsableText as error:
            raise RunError(str(error)) from None
        return module.get_asm(enable_debug_info=True)


def results_tuple(results) -> tuple:
    return results if isinstance(results, tuple) else (results,)


def output_format(path: str, count: int) -> str:
    """'npy' or 'npz': what `--output path` gets for `count` results. A
    file's name says it (.npy for one result, .npz for any number); a
    device, fifo or socket (`/dev/null`, a pipe) has no name to say it and
    gets .npy for one result, .npz for several."""
    if path.endswith(".npz"):
        return "npz"
    if path.endswith(".npy") or written_through(path):
        if count == 1:
            return "npy"
        if path.endswith(".npy"):
            raise RunError(f"@entry returns {count} results; write them to an .npz file")
        return "npz"
    raise RunError(f"output '{path}' must end in .npy or .npz (or be a device or a fifo)")


def save_results(path: str, results: tuple) -> None:
    buffer = io.BytesIO()
    if output_format(path, len(results)) == "npz":
        np.savez(buffer, **{f"result{i}": r for i, r in enumerate(results)})
    else:
        np.save(buffer, results[0])
    write_output(path, buffer.getvalue())


def _as_arguments(arrays: list, program) -> list:
    """The arrays as the entry's arguments (bf16 .npy files as bfloat16);
    arrays beyond its arguments are left for the call to reject."""
    signature = [sig.dtype for sig in program.arguments]
    return [as_argument(a, dtype) for a, dtype in zip(arrays, signature)] + arrays[len(signature):]


def run(args) -> tuple:
    """Compile and call the entry function; the results as a tuple."""
    text = load_module_text(args.input_file)
    arrays = [load_npy(p) for p in args.input]
    try:
        program = compile(
            text, args.entry, checked=not args.unchecked, threads=args.threads,
            allow_external=args.allow_external_symbols, backend=args.backend, device=args.device,
        )
        check_entry_point_result(args.entry_point_result, args.entry, program)
        return results_tuple(program(*_as_arguments(arrays, program)))
    except CompileError as error:
        raise RunError(str(error)) from None
    except (TypeError, ValueError, IndexError) as error:
        raise RunError(str(error)) from None


def main(args) -> int:
    try:
        with instrumenting(args.general):
            results = run(args)
        if args.output:
            save_results(args.output, results)
        else:
            write_output("-", "".join(f"{result!r}\n" for result in results))
    except (RunError, SourceError, InputError, OutputError) as error:
        message = str(error)
        located = ": error: " in message  # file:line:col: error: ... from MLIR
        print(message if located else f"{PROG}: error: {message}", file=sys.stderr)
        return 1
    return 0


def _cli_main() -> None:
    sys.exit(main(parse_arguments()))


if __name__ == "__main__":
    _cli_main()
