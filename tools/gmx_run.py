"""gmx-run: lower a module with --gmx-lower-to-llvm, run a function, show results.

    gmx-run FILE|- [-e ENTRY] [--input X.npy ...] [--output OUT.npy|OUT.npz]

In the manner of mlir-runner: the entry function (default `main`) takes the
`--input` arrays in order and its results are printed as numpy reprs, or
written to `--output` (`.npy` for one result, `.npz` with keys result0,
result1, ... for any number). Every failure prints one clear message and
exits 1: parse and verify errors located as `file:line:col: error: ...`,
unreadable inputs, arguments that do not fit the signature, and index
values out of range.
"""

from __future__ import annotations

import argparse
import io
import sys

import numpy as np

from gmx.dialect import make_context
from gmx.dialect.locations import error_text
from gmx.dialect.mlir import ir
from gmx.dialect.parsing import UnparsableText
from gmx.runtime import CompileError, compile

from .output import OutputError, write_output
from .source import Chunk, SourceError, parse_chunk, read_source

PROG = "gmx-run"


class RunError(Exception):
    """A failure to report as one line, without a traceback."""


def parse_arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Lower an MLIR module with --gmx-lower-to-llvm and run one of its functions.",
        allow_abbrev=False,
    )
    parser.add_argument("input_file", metavar="FILE", help="MLIR file, or - for stdin")
    parser.add_argument("-e", "--entry", default="main", help="function to run (default: main)")
    parser.add_argument("--input", action="append", default=[], metavar="X.npy", help="an argument array (repeat, in order)")
    parser.add_argument("--output", metavar="OUT", help="write results to OUT.npy (one result) or OUT.npz")
    parser.add_argument("--unchecked", action="store_true", help="no run-time bounds check of indices (benchmarks only)")
    return parser.parse_args(argv)


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


def load_array(path: str) -> np.ndarray:
    """One argument array from a .npy file (never unpickles anything)."""
    try:
        with open(path, "rb") as handle:
            if handle.read(6) != b"\x93NUMPY":
                raise RunError(f"input '{path}' is not a .npy file")
            handle.seek(0)
            return np.load(handle, allow_pickle=False)
    except OSError as error:
        raise RunError(f"could not open input '{path}': {error.strerror or error}") from None
    except (ValueError, EOFError) as error:
        raise RunError(f"could not read input '{path}': {error}") from None


def results_tuple(results) -> tuple:
    return results if isinstance(results, tuple) else (results,)


def save_results(path: str, results: tuple) -> None:
    buffer = io.BytesIO()
    if path.endswith(".npz"):
        np.savez(buffer, **{f"result{i}": r for i, r in enumerate(results)})
    elif path.endswith(".npy"):
        if len(results) != 1:
            raise RunError(f"@entry returns {len(results)} results; write them to an .npz file")
        np.save(buffer, results[0])
    else:
        raise RunError(f"output '{path}' must end in .npy or .npz")
    write_output(path, buffer.getvalue())


def run(args) -> tuple:
    """Compile and call the entry function; the results as a tuple."""
    text = load_module_text(args.input_file)
    arrays = [load_array(p) for p in args.input]
    try:
        program = compile(text, args.entry, checked=not args.unchecked)
        return results_tuple(program(*arrays))
    except CompileError as error:
        raise RunError(str(error)) from None
    except (TypeError, ValueError, IndexError) as error:
        raise RunError(str(error)) from None


def main(args) -> int:
    try:
        results = run(args)
        if args.output:
            save_results(args.output, results)
        else:
            write_output("-", "".join(f"{result!r}\n" for result in results))
    except (RunError, SourceError, OutputError) as error:
        message = str(error)
        located = ": error: " in message  # file:line:col: error: ... from MLIR
        print(message if located else f"{PROG}: error: {message}", file=sys.stderr)
        return 1
    return 0


def _cli_main() -> None:
    sys.exit(main(parse_arguments()))


if __name__ == "__main__":
    _cli_main()
