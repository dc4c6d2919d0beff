"""gmx-study, called in-process: argument errors, one variant's text, and a
tiny --all sweep whose report and plots are checked."""

from __future__ import annotations

import os
import re

import matplotlib.image
import pytest

from gmx.runtime import CompileError
from gmx.tools import gmx_study
from study_cli import one_error_line, study
from gmx.tools.experiments import contenders
from gmx.tools.study import plots
from gmx.tools.study import sweep as sweep_module
from gmx.tools.experiments.variants import VARIANTS

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"




# --- arguments -------------------------------------------------------------------------

BAD_ARGUMENTS = [
    ([], "name a VARIANT (onnx-gather, "),
    (["gather-everything"], "unknown variant 'gather-everything' (known: onnx-gather, "),
    (["onnx-gather-elements", "--indices-shape", "4x3"],
     "onnx-gather-elements: indices rank 2 must equal data rank 3 (--shape 4x5x6, --indices-shape 4x3); "
     "defaults used: --shape 4x5x6, --axis 1"),
    (["torch-gather", "--axis", "3"], "torch-gather: axis 3 is out of range [-3, 3) for data rank 3"),
    (["torch-gather", "--indices-shape", "5x3x6"],
     "torch-gather: indices dim 0 has size 5, larger than data dim 0 of size 4"),
    (["take-along-axis", "--indices-shape", "2x3x6"], "take-along-axis: dim 0 does not broadcast"),
    (["advanced-index", "--pattern", "i,:,j,k"],
     "advanced-index: pattern 'i,:,j,k' has 4 entries, more than the 3 dims of the data"),
    (["advanced-index", "--pattern", "i,:,i"], "advanced-index: index name 'i' appears twice"),
    (["advanced-index", "--pattern", "i,2"], "advanced-index: pattern entry '2' in 'i,2' must be ':' or an index name"),
    (["onnx-gather-nd", "--batch-dims", "2"],
     "onnx-gather-nd: batch_dims 2 must lie in [0, min(data rank 3, indices rank 2))"),
    (["onnx-gather-nd", "--indices-shape", "3x4"],
     "onnx-gather-nd: the last indices dim (4, the tuple size) must lie in [1, data rank 3 - batch_dims 0]"),
    (["onnx-gather-nd", "--index-dtype", "i32"], "onnx-gather-nd: --index-dtype i32 is not accepted by onnx.GatherND"),
    (["embedding", "--shape", "4x5x6"], "embedding: data must have rank 2, got 4x5x6"),
    (["index-select", "--indices-shape", "2x2"], "index-select: indices must have rank 1, got 2x2"),
    (["multiaxis", "--axes", "0,0"], "multiaxis: axes must be unique"),
    (["multiaxis", "--indices-shape", "3x1x3"], "multiaxis: indices last dim 3 must be a multiple of the coordinate size 2"),
    (["take", "--axis", "0"], "--axis does not apply to take"),
    (["take-wrap", "--indices-shape", "2x3x1"], "take-wrap: indices must have size 1 off the axis 1, got 2x3x1"),
    (["torch-gather", "--shape", "4x0x6"], "--shape '4x0x6': every dim must be at least 1"),
    (["torch-gather", "--shape", "4,5"], "--shape '4,5' must be dims separated by 'x'"),
    (["torch-gather", "--stages", "llvm"], "--stages: unknown stage 'llvm'"),
    (["torch-gather", "--repeat", "0"], "--repeat must be at least 1"),
    (["torch-gather", "--report", "out"], "--report goes with --all"),
    (["--all"], "--all needs --report DIR"),
    (["--all", "--report", "out", "--axis", "1"], "--axis does not apply with --all"),
    (["--all", "--report", "out", "--no-timing"], "--no-timing does not apply with --all"),
    (["--all", "--report", "out", "--sizes", "100"], "--sizes '100': 100 is not a positive multiple of 64"),
    (["index-select", "--frontend", "onnx"],
     "index-select is not spelled by frontend onnx (its frontends: tosa, stablehlo, linalg)"),
    (["index-select", "--frontend", "jax"], "argument --frontend: invalid choice: 'jax'"),
    (["--all", "--report", "out", "--frontend", "tosa"], "--frontend does not apply with --all"),
    (["--model", "bart", "--frontend", "tosa"], "--frontend does not apply with --model"),
    (["index-add", "--frontend", "all", "--stages", "fused"], "--stages does not apply with --frontend all"),
    (["index-add", "--frontend", "all", "--iree-ir"], "--iree-ir does not apply with --frontend all"),
]


@pytest.mark.parametrize("argv, message", BAD_ARGUMENTS, ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_bad_arguments_exit_2_with_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        gmx_study.parse_arguments(argv)
    assert exit_.value.code == 2
    line = one_error_line(capsys)
    assert line.startswith("gmx-study: error: ")
    assert message in line


def test_report_must_not_be_a_file(tmp_path, capsys):
    target = tmp_path / "report.md"
    target.write_text("precious")
    with pytest.raises(SystemExit):
        gmx_study.parse_arguments(["--all", "--report", str(target)])
    assert "exists and is not a directory" in one_error_line(capsys)
    assert target.read_text() == "precious"


def test_missing_dependency_names_the_extra(monkeypatch, capsys):
    real = gmx_study.importlib.util.find_spec
    monkeypatch.setattr(gmx_study.importlib.util, "find_spec", lambda name: None if name == "onnx" else real(name))
    with pytest.raises(SystemExit) as exit_:
        gmx_study.parse_arguments(["onnx-gather"])
    assert exit_.value.code == 2
    assert one_error_line(capsys) == (
        "gmx-study: error: onnx is not installed; gmx-study needs the study extra: "
        "pip install 'gmx[study]' (or -e '.[study]' in a checkout)"
    )


def test_sweep_index_dtype_where_the_frontend_takes_it():
    args = gmx_study.parse_arguments(["--all", "--report", "out", "--sizes", "64", "--index-dtype", "i32"])
    dtypes = {s.variant.name: s.index_dtype for _, s in args.sweep}
    assert {name for name, dtype in dtypes.items() if dtype == "i64"} == {"onnx-gather-nd", "take", "take-along-axis"}
    assert set(dtypes.values()) == {"i32", "i64"}


def test_sizes_accept_powers_of_two():
    args = gmx_study.parse_arguments(["--all", "--report", "out", "--sizes", "64,2^8"])
    assert args.sizes == (64, 256)
    assert [(n, s.variant.name) for n, s in args.sweep] == [(n, v) for v in VARIANTS for n in (64, 256)]


# --- one variant -------------------------------------------------------------------------

ADVANCED_DERIVED = (
    "derived: gmx.gather_multiaxis axes=[0, 2]: input 4x5x6xf32 = x; indices 3x1x2xi32 = "
    "collapse_shape(concat(expand_shape(cast(reshape(i))), expand_shape(cast(reshape(j))))); "
    "output 3x5x1xf32, collapse_shape to 3x5xf32, returned"
)


def count_table(out: str) -> dict[str, list[str]]:
    """The op-count table of the text: op -> cells per stage."""
    section = out.split("=== op counts per stage ===\n")[1].split("\n\n")[0]
    rows = [line.split() for line in section.splitlines()]
    assert rows[0] == ["op", "frontend", "fused", "linalg", "loops", "unfused", "loops"]
    return {row[0]: row[1:] for row in rows[1:] if not row[0].startswith("?")}


def test_one_variant_text(capsys):
    assert study("advanced-index", "--no-timing") == 0
    out = capsys.readouterr().out
    assert out.startswith("gmx-study advanced-index: x[i, :, j]\n"
                          "inputs x: f32[4x5x6], i: i64[3], j: i64[3]; output f32[3x5]; checked indices; seed 0\n")
    headers = re.findall(r"^=== (\d)\. (\S+): ", out, re.MULTILINE)
    assert headers == [("1", "frontend"), ("2", "fused"), ("3", "linalg"), ("4", "loops")]
    assert ADVANCED_DERIVED in out.splitlines()
    counts = count_table(out)
    # frontend: torch-mlir's linearised gather; fused: one gmx op and the index views
    assert counts["tosa.gather"] == ["1", "-", "-", "-", "-"]
    assert counts["gmx.gather_multiaxis"] == ["-", "1", "-", "-", "-"]
    assert counts["total"][:2] == ["46", "13"]
    # linalg and loops: what convert-gmx-to-linalg emits is its own business
    # (how many generics, tiled or not); only the level is checked here
    assert counts["linalg.generic"][2] != "-"
    assert counts["scf.for"][3] != "-" and counts["linalg.generic"][3] == "-"
    assert re.search(r"^fused +equal\nunfused +equal\nnumpy +equal: the reference\ntorch +equal$", out, re.MULTILINE)
    assert "=== times" not in out


def test_timing_table_and_a_program_without_frontend(capsys):
    assert study("multiaxis", "--repeat", "1", "--warmup", "0", "--stages", "none") == 0
    out = capsys.readouterr().out
    assert "=== 1." not in out and "derived" not in out
    assert re.search(r"^unfused +absent: the frontend program is gmx already$", out, re.MULTILINE)
    times = out.split("=== times: median of 1 interleaved runs after 0 warm-up, one thread ===\n")[1]
    rows = {line.split()[0]: line.split()[1:] for line in times.splitlines()[1:5]}
    assert rows["fused"][1] == "1.00x" and rows["unfused"] == ["–", "–"]
    for name in ("fused", "numpy", "torch"):
        assert float(rows[name][0]) > 0


def test_f64_unfused_runs(capsys):
    # Upstream's TOSA profile validation, which --gmx-lower-to-llvm leaves
    # out, rejected the unfused program's f64 tosa.reshape.
    assert study("torch-gather", "--dtype", "f64", "--no-timing", "--stages", "none") == 0
    out = capsys.readouterr().out
    assert re.search(r"^fused +equal$", out, re.MULTILINE)
    assert re.search(r"^unfused +equal$", out, re.MULTILINE)


def test_unfused_that_does_not_compile_is_reported(monkeypatch, capsys):
    def does_not_compile(self, case):
        raise CompileError("-:3:8: error: 'tosa.foo' op is unknown\nreproduce with: ...")

    monkeypatch.setattr(contenders.Unfused, "prepare", does_not_compile)
    assert study("torch-gather", "--no-timing", "--stages", "none") == 0
    out = capsys.readouterr().out
    assert re.search(r"^fused +equal$", out, re.MULTILINE)
    assert re.search(r"^unfused +does not compile: -:3:8: error: 'tosa.foo' op is unknown$", out, re.MULTILINE)


# --- the sweep --------------------------------------------------------------------------

# The axes the fusion derives for these variants (a new variant needs no entry).
DERIVED_AXES = {
    "onnx-gather": "[1]", "onnx-gather-elements": "[1]", "onnx-gather-nd": "[0, 1]", "take": "[1]",
    "take-along-axis": "[1]", "torch-gather": "[1]", "index-select": "[1]", "embedding": "[0]",
    "advanced-index": "[0, 2]", "multiaxis": "[2, 0]", "take-wrap": "[1]", "take-clip": "[1]", "take-fill": "[1]",
}
GMX_FRONTEND = [name for name, v in VARIANTS.items() if v.frontend == "gmx"]  # no unfused program


def markdown_tables(text: str) -> dict[str, list[dict[str, str]]]:
    """Each `## Section`'s table as a list of rows (header -> cell)."""
    tables = {}
    for section in text.split("\n## ")[1:]:
        title, _, body = section.partition("\n")
        lines = [line for line in body.splitlines() if line.startswith("|")]
        if lines:
            head = [c.strip() for c in lines[0].strip("|").split("|")]
            tables[title] = [dict(zip(head, (c.strip() for c in line.strip("|").split("|")))) for line in lines[2:]]
    return tables


FULL = os.environ.get("GMX_FULL_CORPUS", "") not in ("", "0")
# The sweep's points (variant, outputs): every variant at 64, one at both
# sizes (a row and a plot point per size); every variant at both with
# GMX_FULL_CORPUS=1.
POINTS = [(v, s) for v in VARIANTS for s in ("64", "128") if FULL or s == "64" or v == "torch-gather"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    directory = tmp_path_factory.mktemp("study") / "report"
    args = gmx_study.parse_arguments(
        ["--all", "--report", str(directory), "--sizes", "64,128", "--repeat", "1", "--warmup", "0"])
    args.sweep = [(n, s) for n, s in args.sweep if (s.variant.name, str(n)) in POINTS]
    return directory, gmx_study.main(args)


def test_sweep_writes_the_report(report, capsys):
    directory, status = report
    assert status == 0
    tables = markdown_tables((directory / "report.md").read_text())
    equivalence = {row["variant"]: row for row in tables["What the fusion derived"]}
    assert list(equivalence) == list(VARIANTS)
    derived = {name: row["axes"].strip("`") for name, row in equivalence.items()}
    assert {name: derived[name] for name in DERIVED_AXES} == DERIVED_AXES  # the known answers
    assert all(re.fullmatch(r"\[\d+(, \d+)*\]", axes) for axes in derived.values()), derived
    assert equivalence["torch-gather"]["gmx indices"] == "`4x16xi64 = idx`"  # TOSA's i32 cast absorbed: the wide index checked
    assert equivalence["take"]["gmx input"] == "`1x128x1xf32 = expand_shape(collapse_shape(x))`"
    assert equivalence["multiaxis"]["result"] == "returned"
    counts = tables["Op counts per stage"]
    assert [(r["variant"], r["outputs"]) for r in counts] == POINTS
    assert all(r["gmx ops"] == "1" and r["tosa.gather left"] == "0" for r in counts)
    assert {r["frontend"] for r in counts if r["variant"] == "multiaxis"} == {"3"}
    times = tables["Run times"]
    assert len(times) == len(POINTS)
    for row in times:
        timed = ["fused", "numpy", "torch"] + ([] if row["variant"] in GMX_FRONTEND else ["unfused"])
        assert all(float(row[f"{n} ms"]) > 0 for n in timed), row
    assert "None: every result equals numpy's and every stage lowered." in (directory / "report.md").read_text()
    spellings = tables["One gather, every frontend"]
    assert [(r["variant"], r["frontend"]) for r in spellings] == [
        (name, f) for name, variant in VARIANTS.items() for f in variant.frontends()]
    verdicts = {(r["variant"], r["frontend"]): r["vs the variant's own"] for r in spellings}
    assert verdicts[("onnx-gather", "onnx")] == "the variant's own spelling"
    assert verdicts[("onnx-gather", "tosa")] == "same op"
    assert verdicts[("multiaxis", "tosa")] == "same gather, its axes (and coordinates) in another order"


def test_sweep_plots_are_valid_pngs(report):
    directory, _ = report
    for name in VARIANTS:
        path = directory / f"{name}.png"
        assert path.read_bytes()[:8] == PNG_SIGNATURE
        height, width, channels = matplotlib.image.imread(path).shape
        assert height > 100 and width > 100 and channels in (3, 4)


def test_sweep_goes_on_after_failures(tmp_path, monkeypatch, capsys):
    args = gmx_study.parse_arguments(["--all", "--report", str(tmp_path), "--sizes", "64", "--repeat", "1"])
    args.sweep = [p for p in args.sweep if p[1].variant.name in ("take", "multiaxis")]
    args.spellings = [s for s in args.spellings if s.variant.name in ("take", "multiaxis")]
    real = sweep_module.run_study

    def broken(study, *rest):
        if study.variant.name == "take":
            raise KeyError("boom")
        return real(study, *rest)

    def broken_plot(points):
        raise ValueError("no ink")

    monkeypatch.setattr(sweep_module, "run_study", broken)
    monkeypatch.setattr(plots, "plot_variant", broken_plot)
    assert gmx_study.main(args) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "gmx-study: error: take at 64 outputs: internal error: KeyError: 'boom'" in captured.err
    assert "gmx-study: error: plot of multiaxis: internal error: ValueError: no ink" in captured.err
    assert "[##############################] 2/2 done" in captured.err
    text = (tmp_path / "report.md").read_text()
    assert "- take at 64 outputs: internal error: KeyError: 'boom'" in text
    assert "- plot of multiaxis: internal error: ValueError: no ink" in text
    assert "multiaxis.png" not in text and not (tmp_path / "multiaxis.png").exists()
    times = {r["variant"]: r for r in markdown_tables(text)["Run times"]}
    assert times["take"]["fused ms"] == "FAILED" and float(times["multiaxis"]["fused ms"]) > 0


def test_a_wrong_result_fails_the_study(monkeypatch, capsys):
    # a reference that disagrees with everything: every contender is wrong
    variant = type(VARIANTS["multiaxis"])
    right = variant.numpy_fn
    monkeypatch.setattr(variant, "numpy_fn", lambda self, s: lambda *a: right(self, s)(*a) + 1)
    assert study("multiaxis", "--no-timing", "--stages", "none") == 1
    captured = capsys.readouterr()
    assert re.search(r"^fused +wrong: 15 of 15 elements differ$", captured.out, re.MULTILINE)
    assert re.search(r"^torch +wrong: 15 of 15 elements differ$", captured.out, re.MULTILINE)
    assert captured.err.splitlines() == [
        "gmx-study: error: multiaxis: fused: wrong: 15 of 15 elements differ",
        "gmx-study: error: multiaxis: torch: wrong: 15 of 15 elements differ",
    ]


@pytest.mark.parametrize("mode", ["wrap", "clip", "fill"])
def test_mode_variants_run_equal_to_numpy_and_torch(mode, capsys):
    """numpy.take(mode=...) (and JAX's fill) as gmx ops in their mode, on
    indices mostly outside the axis: checked code reports none of them."""
    assert study(f"take-{mode}", "--no-timing", "--stages", "none", "--shape", "7x9", "--indices-shape", "1x40") == 0
    out = capsys.readouterr().out
    assert re.search(r"^fused +equal\nunfused +absent: the frontend program is gmx already\nnumpy +equal: the reference\n"
                     r"torch +equal$", out, re.MULTILINE), out


def test_every_frontend_of_a_scatter(capfd):
    """`--frontend all`: a scatter variant as every frontend spells it, the op
    each spelling is written with, the gmx op each raises to; a frontend
    that cannot export it says why in one cell (torch-mlir's diagnostic,
    held off the terminal)."""
    assert study("index-add", "--frontend", "all") == 0
    out, err = capfd.readouterr()
    assert out.startswith("gmx-study index-add --frontend all: torch.index_add(x, 0, idx, upd)")
    rows = {line.split()[1]: line for line in out.splitlines() if line.startswith("index-add ")}
    assert list(rows) == ["stablehlo", "tosa", "linalg", "gmx"]
    assert re.search(r"1 stablehlo\.scatter +axes=\[0\] mode=skip reduction=add 10x4xf32, 6x1xi64 -> 10x4xf32 +"
                     r"the variant's own spelling$", rows["stablehlo"]), rows
    assert rows["tosa"].endswith("failed with the following diagnostics: failed to legalize operation "
                                 "'torch.aten.index_put.hacked_twin' that was explicitly marked illegal"), rows
    assert re.search(r"1 tm_tensor\.scatter +axes=\[0\] reduction=add .* same scatter, mode raise where its own "
                     r"is skip$", rows["linalg"]), rows
    assert "error:" not in err
