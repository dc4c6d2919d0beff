"""`python -m benchmarks` (or `gmx-bench`): gmx's compiled gathers against
the unfused TOSA path, numpy, PyTorch eager, ONNX Runtime, JAX (scatters) and memcpy, as Markdown tables.

    python -m benchmarks                       # full sizes (>= 4M outputs), 7 rounds
    python -m benchmarks --quick               # small sizes: a smoke test
    python -m benchmarks --variants advanced,index_select --repeat 15 --json out.json
    python -m benchmarks --sections memory,compile-time
    python -m benchmarks --threads 2 --sections scaling,overhead

Five sections, each a Markdown table:
- timing: each benchmark (`benchmarks.suite`: a variant of the one registry
  at fixed shapes) is exported from PyTorch to TOSA, prepared by every
  contender (`gmx.tools.experiments.contenders`), checked against the
  variant's reference (exactly), then timed side by side (a scatter also
  in place: torch's in-place form against gmx with the data donated, each
  writing a copy of its own); gmx's calls run
  on `--threads` threads (default: the usable cores), or with
  `--backend iree [--device NAME]` on IREE;
- scaling: gmx (checked) on 1, 2, 4, ... `--threads` threads, each
  variant's time and its speedup over one thread, beside torch;
- overhead: microseconds per gmx.runtime call on small gathers against
  numpy (`benchmarks.overhead`);
- memory: peak memory of the broadcasting gather per contender
  (`benchmarks.memory`);
- compile-time: gmx-opt on generated modules of 250, 500 and 1000 gathers
  (`benchmarks.compile_time`), and 500 checked gathers compiled in one
  function against 500 functions (`benchmarks.compile_layouts`).
A contender that fails to compile or returns a wrong output is reported
(its cells read FAILED/WRONG, its line on stderr) and not timed; exit
status 1 when that contender is one gmx compiles (gmx, gmx unchecked,
gmx donated, unfused, memcpy, gmx iree: `report.compiled_by_gmx`), not numpy's, torch's,
ONNX Runtime's or JAX's.
"""

from __future__ import annotations

import argparse
import os
import sys

from gmx.runtime import CompileError
from gmx.runtime.backends import BACKENDS, check_backend
from gmx.runtime.threads import usable_cores
from gmx.tools.experiments.contenders import check, time_run
from gmx.tools.experiments.iree_contenders import DEVICE_CALLS, DISPATCH_REPEAT
from gmx.tools.gmx_run import positive_int
from gmx.tools.experiments.machine import machine_line, machine_summary
from gmx.tools.output import OutputError

from . import compile_layouts, compile_time, memory, overhead
from .report import (
    VariantResult,
    compile_columns,
    device_columns,
    device_contenders,
    table,
    timing_columns,
    variant_entries,
    write_json,
)
from .suite import Benchmark, benchmark_names, default_contenders, scaling_contenders, select, thread_counts

# numerator/denominator: > 1 means the denominator is faster. gmx/gmx
# unchecked is the price of the bounds check; memcpy/gmx the fraction of
# memcpy's bandwidth a gather reaches (a native copy of the output's bytes,
# compiled by gmx.runtime, on as many OpenMP threads as gmx: block gathers
# aim at >= 0.70x); torch and ort run on one thread (1t) and on their
# default count (PyTorch's, and the usable cores for ONNX Runtime). A
# scatter is also timed in place: torch's in-place spelling (torch
# in-place, on 1 thread and on torch's default count) against gmx with the
# data donated.
SECTIONS = ("timing", "scaling", "overhead", "memory", "compile-time")
MEMORY_VARIANT = "take_along_dim_bcast"
COMPILE_SIZES = {"full": (0, 250, 500, 1000), "quick": (0, 5, 10)}
LAYOUT_GATHERS = {"full": 500, "quick": 10}  # compile time by layout (compile_layouts)

RATIOS = [
    ("unfused", "gmx"),
    ("numpy", "gmx"),
    ("torch 1t", "gmx"),
    ("torch", "gmx"),
    ("torch in-place 1t", "gmx donated"),  # a scatter's in-place forms (x.index_add_, ...; gmx's data donated)
    ("torch in-place", "gmx donated"),
    ("ort 1t", "gmx"),
    ("ort", "gmx"),
    ("jax", "gmx"),  # jax.jit, scatters only
    ("gmx", "gmx unchecked"),
    ("memcpy", "gmx"),
    ("gmx iree cpu", "gmx"),  # the iree contenders (iree_contenders), when installed
    ("torch cuda", "gmx iree cuda"),
]


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds per variant (default 7)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed rounds first (default 2)")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument(
        "--variants", nargs="+", metavar="NAME",
        help=f"only these (space or comma separated): {', '.join(benchmark_names())}",
    )
    parser.add_argument("--json", metavar="PATH", help="also write every measurement as JSON")
    parser.add_argument(
        "--threads", type=positive_int, default=usable_cores(), metavar="N",
        help=f"threads a gmx call may run on, and the most the scaling table shows (default: the usable cores, here {usable_cores()})",
    )
    parser.add_argument(
        "--backend", choices=BACKENDS, default="engine",
        help="what runs the timing table's gmx and gmx unchecked: engine (default; the IREE contenders are added "
        "where the [iree] extra is installed) or iree",
    )
    parser.add_argument("--device", metavar="NAME", help="with --backend iree: local-task (default), local-sync or cuda")
    parser.add_argument(
        "--sections", default=",".join(SECTIONS),
        help=f"comma separated, any of {', '.join(SECTIONS)} (default: all)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        parser.error("--repeat must be >= 1 and --warmup >= 0")
    try:
        check_backend(args.backend, args.device)
    except (ValueError, CompileError) as error:
        parser.error(str(error))
    args.sections = [n for n in args.sections.split(",") if n]
    unknown = sorted(set(args.sections) - set(SECTIONS))
    if unknown or not args.sections:
        parser.error(f"unknown section(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(SECTIONS)}")
    if args.variants:
        args.variants = [n for item in args.variants for n in item.split(",") if n]
    try:
        select(args.variants)
    except ValueError as error:
        parser.error(str(error))
    return args


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_benchmark(benchmark: Benchmark, size: str, contenders: list, repeat: int, warmup: int) -> VariantResult:
    """Export, compile, check and time one benchmark."""
    name = benchmark.name
    case = benchmark.case(size)
    _log(f"{name}: exported in {case.export_s:.2f} s ({len(case.text):,} chars)")
    run = check(contenders, case)
    for result in run.results.values():
        if not result.ok:
            _log(f"{name}: {result.name}: {result.line()}")
    _log(f"{name}: compiled; timing {', '.join(run.calls)}")
    time_run(run, repeat, warmup)
    return VariantResult(
        name, case.study.expression(), benchmark.linearised,
        [list(a.shape) for a in case.inputs], list(case.expected.shape),
        case.output_elements, case.output_bytes, benchmark.kind, case.export_s, len(case.text), run.results,
        index_bytes=sum(a.nbytes for a in case.inputs if a.dtype.kind in "iu"),
    )


def main(args: argparse.Namespace) -> int:
    size = "quick" if args.quick else "full"
    machine = machine_summary()
    print(machine_line(machine))
    report: dict = {
        "machine": machine,
        "options": {"size": size, "repeat": args.repeat, "warmup": args.warmup, "threads": args.threads,
                    "backend": args.backend, "device": args.device},
    }
    ok = True
    if "timing" in args.sections:
        results = timing_section(args, size)
        ok = all(r.ok for r in results)
        report["variants"] = variant_entries(results)
    if "scaling" in args.sections:
        results = scaling_section(args, size)
        ok = ok and all(r.ok for r in results)
        report["scaling"] = variant_entries(results)
    if "overhead" in args.sections:
        _log("overhead: gmx.runtime calls on small gathers against numpy")
        rows = overhead.call_overhead(size, args.repeat, args.threads)
        print(f"\nCall overhead: microseconds per call, median of {args.repeat} interleaved samples "
              f"of {overhead.CALLS[size]} calls (take_along_axis, f32 data, i64 indices):\n")
        print(overhead.markdown(rows))
        report["overhead"] = rows
    if "memory" in args.sections:
        _log(f"memory: {MEMORY_VARIANT}, one child process per contender")
        peaks = memory.peak_memory(MEMORY_VARIANT, size)
        print("\n" + memory.markdown(MEMORY_VARIANT, peaks))
        report["memory"] = {MEMORY_VARIANT: peaks}
    if "compile-time" in args.sections:
        _log(f"compile time: gmx-opt on {', '.join(map(str, COMPILE_SIZES[size][1:]))} gathers")
        times = compile_time.compile_times(COMPILE_SIZES[size])
        print("\nCompile time, `gmx-opt --gmx-canonicalize --gmx-lower-to-llvm`, median of 3:\n")
        print(compile_time.markdown(times))
        report["compile_time_s"] = times
        n = LAYOUT_GATHERS[size]
        _log(f"compile time: {n} checked gathers in one function and in {n} functions")
        layouts = compile_layouts.layout_times(n)
        print(f"\nCompile time by layout, `gmx-opt --gmx-canonicalize --gmx-lower-to-llvm` on {n} checked "
              "gathers, median of 3, start-up subtracted:\n")
        print(compile_layouts.markdown(n, layouts))
        report["compile_layouts_s"] = {"gathers": n, **layouts}
    if args.json:
        try:
            write_json(args.json, report)
        except OutputError as error:
            print(f"gmx-bench: error: {error}", file=sys.stderr)
            return 1
    return 0 if ok else 1


def timing_section(args: argparse.Namespace, size: str) -> list[VariantResult]:
    contenders = default_contenders(args.threads, args.backend, args.device)
    results = [
        run_benchmark(b, size, contenders, args.repeat, args.warmup) for b in select(args.variants)
    ]
    names = [c.name for c in contenders]
    print(f"sizes: {size}; median of {args.repeat} interleaved runs after {args.warmup} warm-up; "
          f"f32 data, i64 indices; gmx on up to {args.threads} threads; GB/s = output bytes / gmx time; "
          f"OMP_WAIT_POLICY={os.environ.get(QUIET_OPENMP[0], 'unset')}\n")
    print(table(results, timing_columns(names, [r for r in RATIOS if set(r) <= set(names)])))
    print()
    print(table(results, compile_columns(names)))
    if on_device := device_contenders(results):
        print(f"\nOn the GPU: device time per call (torch: CUDA events over {DEVICE_CALLS} calls; gmx iree: each "
              f"dispatch repeated {DISPATCH_REPEAT}x minus a plain call, over {DISPATCH_REPEAT - 1}); "
              "GB/s = least traffic (indices once, outputs read and written once) / device time:\n")
        print(table(results, device_columns(on_device, RATIOS)))
    return results


def scaling_section(args: argparse.Namespace, size: str) -> list[VariantResult]:
    """gmx on 1, 2, ... threads per variant: times and speedups."""
    contenders = scaling_contenders(args.threads)
    results = [
        run_benchmark(b, size, contenders, args.repeat, args.warmup) for b in select(args.variants)
    ]
    counts = thread_counts(args.threads)
    names = [c.name for c in contenders]
    ratios = [("gmx 1t", f"gmx {n}t") for n in counts[1:]] + [("torch", f"gmx {counts[-1]}t")]
    print(f"\nScaling: gmx (checked) on {', '.join(map(str, counts))} threads, "
          f"median of {args.repeat} interleaved runs; gmx 1t/gmx Nt is the speedup on N threads:\n")
    columns = [c for c in timing_columns(names, ratios) if not c[0].endswith("GB/s")]
    print(table(results, columns))
    return results


# Interleaved with the other contenders on a few cores, an OpenMP pool that
# spins after its call takes the next contender's cores: on the 2-core VM,
# torch's index_add_ on 2 threads between gmx's calls made gmx's 2-thread
# call 5.3 ms instead of 3.2 (no speedup over 1 thread), and passive it cost
# torch's call 2.2 ms instead of 1.7. Each pool sleeps once its call is done,
# as gmx's libomp (KMP_BLOCKTIME=0) and ONNX Runtime's (allow_spinning 0) do;
# set before torch loads its OpenMP, which reads it then. OMP_WAIT_POLICY=ACTIVE
# in the environment keeps torch's spinning.
QUIET_OPENMP = ("OMP_WAIT_POLICY", "PASSIVE")


def _cli_main() -> None:
    os.environ.setdefault(*QUIET_OPENMP)
    sys.exit(main(parse_arguments()))


if __name__ == "__main__":
    _cli_main()
