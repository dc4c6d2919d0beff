"""The benchmark entry point runs, checks every contender and reports it.

No timing is asserted (the machine is shared); what is asserted is that
every contender, gmx checked and unchecked included, returned the
reference's exact output on every variant (memcpy, which computes nothing,
is not checked), and that the table and the JSON carry each of them.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from gmx.benchmarks.__main__ import RATIOS, main, parse_arguments
from gmx.benchmarks.suite import BENCHMARKS, benchmark_names as variant_names
from gmx.dialect.modes import OpKind
from gmx.tools.experiments.variants import REGISTRY
from gmx.runtime import CompiledProgram

from gmx.tools.experiments.iree_contenders import iree_contenders  # noqa: E402

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

CONTENDERS = ["gmx", "gmx unchecked", "gmx donated", "unfused", "numpy", "torch 1t", "torch", "torch in-place 1t",
              "torch in-place", "ort 1t", "ort", "jax", "memcpy",
              *(c.name for c in iree_contenders())]
FULL = os.environ.get("GMX_FULL_CORPUS", "") not in ("", "0")
# The quick timing check's variants: a gather and a scatter of each kind, a
# scatter some contenders lack (absent), the donated KV cache; every
# variant with GMX_FULL_CORPUS=1.
TIMED = [n for n in variant_names() if FULL or n in (
    "take_along_dim_bcast", "gather_elements", "index_select", "scatter_elements", "gnn_aggregate", "advanced_put",
    "kv_cache_update")]
SCATTERS = {b.name for b in BENCHMARKS if REGISTRY[b.variant].op is OpKind.SCATTER}


def test_quick_timing_checks_every_contender(tmp_path, capsys):
    path = tmp_path / "bench.json"
    args = parse_arguments(["--quick", "--repeat", "1", "--warmup", "0", "--sections", "timing", "--variants",
                            ",".join(TIMED), "--json", str(path)])
    assert main(args) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| variant | kind"))
    for name in CONTENDERS:
        assert f"| {name} ms |" in header
    for a, b in RATIOS:
        if a in CONTENDERS and b in CONTENDERS:  # the GPU's only with a GPU
            assert f"| {a}/{b} |" in header
    report = json.loads(path.read_text())
    assert [v["name"] for v in report["variants"]] == TIMED
    for variant in report["variants"]:
        assert sorted(variant["contenders"]) == sorted(CONTENDERS)
        for name, result in variant["contenders"].items():
            assert result["error"] is None, (variant["name"], name, result["error"])
            assert len(result["samples"]) == (0 if result["status"] == "absent" else 1)
        assert all(variant["contenders"][name]["status"] == "equal" for name in ("gmx", "gmx unchecked", "torch"))
        assert variant["contenders"]["gmx"]["info"]["gmx_ops"] == 1
        # a scatter also in place (torch's in-place form, gmx's data donated), checked; a gather has no such form
        in_place = {variant["contenders"][name]["status"] for name in ("gmx donated", "torch in-place 1t", "torch in-place")}
        assert in_place == {"equal" if variant["name"] in SCATTERS else "absent"}, variant["name"]
    # the KV-cache update is donated: gmx writes the cache in place, reset before each call
    (kv,) = [v for v in report["variants"] if v["name"] == "kv_cache_update"]
    assert kv["contenders"]["gmx"]["info"]["donated"] == [0]


def test_backend_iree_runs_gmx_on_iree(tmp_path, capsys):
    """`--backend iree`: the gmx columns are IREE's (on its default device
    here), checked against the reference, with no IREE contender beside
    them; a device IREE does not have, or one for the engine, is an
    argument error."""
    import pytest

    pytest.importorskip("iree.runtime")
    path = tmp_path / "bench.json"
    args = parse_arguments(["--quick", "--repeat", "1", "--warmup", "0", "--sections", "timing", "--variants",
                            "embedding", "--backend", "iree", "--json", str(path)])
    assert main(args) == 0
    header = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| variant | kind"))
    assert "| gmx ms | gmx unchecked ms |" in header and "iree" not in header
    (variant,) = json.loads(path.read_text())["variants"]
    assert variant["contenders"]["gmx"]["info"]["device"] == "local-task"
    assert variant["contenders"]["gmx"]["error"] is None and variant["contenders"]["gmx"]["info"]["gmx_ops"] == 1
    for argv, message in [(["--device", "cuda"], "needs backend='iree'"),
                          (["--backend", "iree", "--device", "tpu"], "unknown IREE device 'tpu'")]:
        with pytest.raises(SystemExit):
            parse_arguments(argv)
        assert message in capsys.readouterr().err


def test_unknown_section_is_an_argument_error(capsys):
    import pytest

    with pytest.raises(SystemExit) as exit_info:
        parse_arguments(["--sections", "timing,speed"])
    assert exit_info.value.code == 2
    assert "unknown section(s) speed" in capsys.readouterr().err


@pytest.mark.parametrize("given", [None, "ACTIVE"])
def test_the_command_quiets_openmp_pools_unless_told(monkeypatch, given):
    """gmx-bench's command sets OMP_WAIT_POLICY=PASSIVE (torch's pool sleeps
    after its call instead of spinning on the next contender's cores), and
    keeps a policy the environment gives."""
    import sys

    from gmx.benchmarks import __main__ as bench

    if given is None:
        monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    else:
        monkeypatch.setenv("OMP_WAIT_POLICY", given)
    seen = {}
    monkeypatch.setattr(bench, "main", lambda args: seen.setdefault("policy", os.environ["OMP_WAIT_POLICY"]) and 0)
    monkeypatch.setattr(sys, "argv", ["gmx-bench", "--sections", "overhead"])
    with pytest.raises(SystemExit):
        bench._cli_main()
    assert seen["policy"] == (given or "PASSIVE")


def test_quick_scaling_and_overhead_sections(tmp_path, capsys):
    """gmx on 1 and 2 threads, checked equal to the reference on every
    variant, and the call-overhead table (checked equal to numpy)."""
    path = tmp_path / "bench.json"
    args = parse_arguments(["--quick", "--repeat", "1", "--warmup", "0", "--threads", "2", "--variants",
                            "embedding,gather_elements,scatter_elements,gnn_aggregate,kv_cache_update",
                            "--sections", "scaling,overhead", "--json", str(path)])
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "| variant | kind | outputs | gmx 1t ms | gmx 2t ms | torch ms | gmx 1t/gmx 2t | torch/gmx 2t |" in out
    assert "| case | outputs | gmx µs/call | numpy µs/call | numpy/gmx |" in out
    report = json.loads(path.read_text())
    assert report["options"]["threads"] == 2
    for variant in report["scaling"]:
        assert sorted(variant["contenders"]) == ["gmx 1t", "gmx 2t", "torch"]
        assert all(r["error"] is None for r in variant["contenders"].values())
        assert variant["contenders"]["gmx 2t"]["info"]["threads"] == 2
    assert [r["case"] for r in report["overhead"]] == ["tiny", "64x64", "256x256"]


def test_threads_must_be_positive(capsys):
    import pytest

    with pytest.raises(SystemExit) as exit_info:
        parse_arguments(["--threads", "0"])
    assert exit_info.value.code == 2
    assert "argument --threads: expected a positive integer, got 0" in capsys.readouterr().err


def test_thread_counts():
    from gmx.benchmarks.suite import thread_counts

    assert [thread_counts(n) for n in (1, 2, 3, 4, 6, 16)] == [
        [1], [1, 2], [1, 2, 3], [1, 2, 4], [1, 2, 4, 6], [1, 2, 4, 8, 16]
    ]


@pytest.mark.parametrize("threads", [1, 3])
def test_memcpy_copies_every_byte_on_its_threads(threads):
    from gmx.tools.experiments.contenders import Case, Memcpy
    from gmx.tools.experiments.variants import make_study

    study = make_study("index-select")
    inputs = study.inputs()
    expected = study.variant.numpy_fn(study)(*inputs)
    prepared = Memcpy("memcpy", threads=threads).prepare(Case(study, inputs, expected, text="", export_s=0.0))
    assert prepared.info == {"threads": threads}
    # one native call of a compiled copy on `threads` OpenMP threads, no Python threads
    assert isinstance(prepared.call.func, CompiledProgram) and prepared.call.func.threads == threads
    copied = prepared.call()
    assert copied.dtype == np.int8 and np.array_equal(copied.view(expected.dtype).reshape(expected.shape), expected)



def test_the_suite_is_the_variants_benchmarks():
    """gmx-bench benchmarks what the variant registry says, in its order:
    a new benchmark is one edit of a variant; each one's shapes are a valid
    study at both sizes."""
    from gmx.benchmarks.suite import BENCHMARKS
    from gmx.tools.experiments.variants import REGISTRY, BenchmarkKind

    assert [(b.variant, b.shapes) for b in BENCHMARKS] == [
        (name, shapes) for name, v in REGISTRY.items() for shapes in v.benchmarks]
    assert len(set(variant_names())) == len(BENCHMARKS) >= 6
    assert {b.kind for b in BENCHMARKS} == set(BenchmarkKind)
    for b in BENCHMARKS:
        for size in ("quick", "full"):
            study = b.study(size)
            assert (study.shape, study.indices_shape) == getattr(b.shapes, size)


def test_exit_status_is_gmx_s_own():
    """A wrong output of a contender gmx does not compile (ONNX Runtime's
    racing ScatterElements(add) on 2 threads) is WRONG in its cells but no
    failure of gmx-bench; gmx's own wrong output, or a failure to compile,
    is (the same rule for gathers and scatters)."""
    from gmx.benchmarks.report import VariantResult, compiled_by_gmx, table, timing_columns
    from gmx.tools.experiments.contenders import Result

    def result(name, status):
        r = Result(name, status)
        r.samples = [] if status != "equal" else [1e-3]
        return r

    def variant(**statuses):
        contenders = {n: result(n, s) for n, s in statuses.items()}
        return VariantResult("gnn_aggregate", "x.scatter_add", False, [[4, 2]], [4, 2], 8, 32, "block", 0.1, 10,
                             contenders)

    theirs = variant(gmx="equal", ort="wrong")
    assert theirs.ok
    assert "WRONG" in table([theirs], timing_columns(["gmx", "ort"], [("ort", "gmx")]))
    for name in ("gmx", "gmx unchecked", "gmx donated", "gmx 2t", "unfused", "memcpy", "gmx iree cpu"):
        assert compiled_by_gmx(name)
        assert not variant(**{name: "wrong"}).ok
    assert not variant(gmx="does not compile").ok
    assert not any(compiled_by_gmx(n) for n in ("numpy", "torch", "torch 1t", "torch in-place", "torch in-place 1t",
                                                 "torch cuda", "ort", "ort 1t", "jax"))


def test_gpu_table_from_device_times():
    """The GPU table (printed when contenders measured a device time): µs,
    GB/s of the least traffic, % of the GPU's peak, device-time ratios.
    Built from measurements as a GPU run would give them (no GPU needed)."""
    from gmx.benchmarks.report import GPU_PEAK_GB_S, VariantResult, device_columns, device_contenders, table
    from gmx.tools.experiments.contenders import Result

    def measured(name, us, device):
        result = Result(name)
        result.status, result.info = "equal", {"device": device, "device_us": us}
        return result

    gpu = "NVIDIA H100 80GB HBM3"
    contenders = {"gmx iree cuda": measured("gmx iree cuda", 40.0, "cuda"), "torch cuda": measured("torch cuda", 50.0, gpu)}
    result = VariantResult("embedding", "x[i]", False, [[50000, 128], [256, 128]], [256, 128, 128],
                           1 << 22, 1 << 24, "block", 0.1, 100, contenders, index_bytes=1 << 18)
    assert result.least_traffic_bytes == (1 << 18) + (1 << 25)
    names = device_contenders([result])
    assert names == ["gmx iree cuda", "torch cuda"]
    text = table([result], device_columns(names, RATIOS))
    gb_s = result.least_traffic_bytes / 40e-6 / 1e9
    assert f"| {gb_s:.0f} |" in text and f"{100 * gb_s / GPU_PEAK_GB_S[gpu]:.0f}%" in text
    assert "| 1.25x |" in text  # torch cuda / gmx iree cuda


def test_dispatch_time_of_a_repeated_program():
    """gmx iree's device time: a program with every dispatch repeated, less
    a plain call, per repeat (here on IREE's CPU device)."""
    pytest.importorskip("iree.runtime")
    from gather_programs import gather_module
    from gmx.runtime.iree_backend import IreeProgram
    from gmx.tools.experiments.iree_contenders import dispatch_time_us, repeat_flags

    text = gather_module((512, 256), (4096, 1), (0,))
    x = np.ones((512, 256), np.float32)
    i = np.random.default_rng(0).integers(0, 512, (4096, 1))
    plain = IreeProgram(text, "main", True, "local-sync")
    repeated = IreeProgram(text, "main", True, "local-sync", repeat_flags(9))
    np.testing.assert_array_equal(repeated(x, i), plain(x, i))
    us = dispatch_time_us(lambda: plain(x, i), lambda: repeated(x, i), 9, calls=15)
    assert 0 < us < 1e5
