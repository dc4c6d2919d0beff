"""gmx-study --model, called in-process: a corpus model, a user's TOSA file
and ONNX file studied whole (fused against unfused, gather by gather), and
bad input as one error line with a non-zero exit status."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

pytest.importorskip("torch")
pytest.importorskip("onnx")

from gmx.tools import gmx_study  # noqa: E402
from study_cli import one_error_line, study  # noqa: E402
from gmx.tools.experiments import models  # noqa: E402

LINEARISED = "examples/linearised_gather.mlir"




def site_rows(out: str, kind: str = "gather") -> list[str]:
    """The rows of the per-gather (per-scatter) table."""
    table = out.split(f"=== {kind}s:")[1].split("===")[1]
    return [line for line in table.splitlines()[3:] if line.strip()]



def test_corpus_model(capsys):
    assert study("--model", "kv_cache_read", "--repeat", "1", "--warmup", "0") == 0
    out = capsys.readouterr().out
    assert out.startswith("gmx-study --model kv_cache_read: decoding: cache.index_select(2, positions)")
    assert "=== gathers: 1 in the source, 1 gmx ops fused ===" in out
    (row,) = site_rows(out)
    # the line of _kv_cache_read, not of a wrapper; fused: a view in front of
    # the gmx op (the i64 -> i32 cast of the index absorbed: the wide index is
    # checked), unfused: the whole linearisation
    assert re.fullmatch(r"models\.py:\d+ +1x1x48xf32 +axes=\[2\]: \S+ +1 \(1 view\) +12 \(7 views\)", row), row
    assert re.search(r"^fused +4 .* equal$", out, re.M), out  # no cast of the index left
    assert re.search(r"^unfused +28 .*x +equal$", out, re.M), out
    assert "median of 1 interleaved runs after 0 warm-up" in out


def test_gathers_that_become_slices_have_no_fused_op(capsys):
    """GPT-2: the position embedding at arange(T) is a slice; the whole
    model runs fused and unfused, equal to eager."""
    assert study("--model", "gpt2_lm", "--no-timing") == 0
    captured = capsys.readouterr()
    rows = site_rows(captured.out)
    assert len(rows) == models.MODELS["gpt2_lm"].gathers
    assert re.match(r"modeling_gpt2\.py:\d+ +1x8x16xf32 +none: a slice, view or constant +– ", rows[1]), rows
    assert re.search(r"^fused .* within tolerance$", captured.out, re.M), captured.out
    assert "Traceback" not in captured.err


def test_second_corpus_model_in_another_form(capsys):
    """A `NAME@FORM` model: its gathers as its form spells them (here
    linalg.generics reading elements), each a gmx op, equal to eager."""
    assert study("--model", "int8_embedding@linalg", "--no-timing") == 0
    out = capsys.readouterr().out
    assert out.startswith("gmx-study --model int8_embedding@linalg: embedding: int8 embedding rows")
    assert "=== gathers: 3 in the source, 3 gmx ops fused ===" in out
    assert re.search(r"^fused .* within tolerance$", out, re.M), out


def test_user_tosa_file_is_checked_against_unfused(capsys):
    assert study("--model", LINEARISED, "--no-timing") == 0
    out = capsys.readouterr().out
    assert "gmx-study --model linearised_gather.mlir: TOSA file" in out
    (row,) = site_rows(out)
    assert re.fullmatch(r"linearised_gather\.mlir:21 +1x1x4xf32 +axes=\[\d\]: \S+ +0 \(0 views\) +9 \(6 views\)", row), row
    assert re.search(r"^fused +3 .* equal$", out, re.M)
    assert re.search(r"^unfused +21 .* the reference$", out, re.M)


def test_user_onnx_file_is_checked_against_the_reference_evaluator(tmp_path, capsys):
    import onnx

    path = tmp_path / "nd.onnx"
    onnx.save(models.MODELS["onnx_gather_nd"].build().program, path)
    assert study("--model", path, "--no-timing") == 0
    out = capsys.readouterr().out
    assert "gmx-study --model nd.onnx: ONNX model" in out
    (row,) = site_rows(out)
    assert row.startswith("picked ")
    assert re.search(r"^fused .* within tolerance$", out, re.M)


def test_scatter_program_reports_each_scatter(capsys):
    """A program of the scatter corpus (`NAME@FORM`): its scatter at its own
    line, the gmx op it raises to, the ops in front of it fused (none but a
    reshape) and unfused (TOSA's linearisation), equal to eager."""
    assert study("--model", "top_k_mask@tosa", "--repeat", "1", "--warmup", "0") == 0
    out = capsys.readouterr().out
    assert out.startswith("gmx-study --model top_k_mask@tosa: scatters: top-k sampling")
    assert "=== gathers:" not in out  # none in the source
    assert "=== scatters: 1 in the source, 1 gmx ops fused ===" in out
    (row,) = site_rows(out, "scatter")
    assert re.fullmatch(r"scatter_corpus\.py:\d+ +1x20x1xf32 +axes=\[1\]: 2x10xf32 +0 \(0 views\) +8 \(4 views\)", row), row  # the index's cast absorbed
    assert re.search(r"^fused +4 .* equal$", out, re.M), out  # no cast of the index left
    assert re.search(r"^unfused +\d+ .*x +equal$", out, re.M), out


def test_training_step_reports_gathers_and_scatters(capsys):
    """A whole training step (forward, backward by torch.func, SGD update) in
    StableHLO: its two gathers and two scatters (cross-entropy's, the
    embedding's scatter-add), each a gmx op, right fused and unfused."""
    assert study("--model", "training_step@stablehlo", "--no-timing") == 0
    out = capsys.readouterr().out
    assert "=== gathers: 2 in the source, 2 gmx ops fused ===" in out
    assert "=== scatters: 2 in the source, 2 gmx ops fused ===" in out
    rows = site_rows(out, "scatter")
    assert [row.split()[1:4] for row in rows] == [
        ["64x10xf32", "axes=[1]", "mode=skip:"], ["1000x1x32xf32", "axes=[0]", "mode=skip"]], rows
    assert "reduction=add" in rows[1] and "reduction" not in rows[0]
    assert re.search(r"^fused .* within tolerance$", out, re.M), out
    assert re.search(r"^unfused .* within tolerance$", out, re.M), out


def test_a_form_the_frontend_cannot_export_is_one_line_with_the_reason(capsys):
    assert study("--model", "gnn_sum@tosa") == 1
    line = one_error_line(capsys)
    assert line.startswith("gmx-study: error: gnn_sum@tosa: torch-mlir could not export the program: "), line
    assert line.endswith("(the corpus knows: TorchToTosa has no lowering of an accumulating scatter "
                         "(scatter_add, index_add, index_put with accumulate))"), line


BAD_ARGUMENTS = [
    (["--model", "gpt5"], "--model 'gpt5' is neither a model of the corpus (gpt2_lm, "),
    (["--model", "gnn_sum"], "--model 'gnn_sum' is neither a model of the corpus ("),
    (["--model", "gnn_sum@jax"], "--model 'gnn_sum@jax' is neither a model of the corpus ("),
    (["--model", "missing.mlir"], "--model 'missing.mlir': no such file"),
    (["--model", "kv_cache_read", "--shape", "4x5"], "--shape does not apply with --model"),
    (["--model", "kv_cache_read", "--input", "x.npy"], "--input and --entry go with a file"),
    (["torch-gather", "--model", "kv_cache_read"], "--model studies one whole program; drop 'torch-gather'"),
]


@pytest.mark.parametrize("argv, message", BAD_ARGUMENTS, ids=[a[1] for a in BAD_ARGUMENTS])
def test_bad_arguments_exit_2_with_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        gmx_study.parse_arguments(argv)
    assert exit_info.value.code == 2
    assert one_error_line(capsys).startswith(f"gmx-study: error: {message}")


def test_a_file_that_does_not_parse_is_one_located_line(tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %y : tensor<2xf32>\n}\n")
    assert study("--model", path) == 1
    line = one_error_line(capsys)
    assert line.startswith(f"gmx-study: error: {path}:2:10: error: use of undeclared SSA value name"), line


def test_a_file_that_is_no_onnx_model_is_one_line(tmp_path, capsys):
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"\xff not a protobuf")
    assert study("--model", path) == 1
    assert one_error_line(capsys).startswith(f"gmx-study: error: {path}: not an ONNX model: ")


def test_a_missing_entry_is_one_line(capsys):
    assert study("--model", LINEARISED, "--entry", "forward") == 1
    assert one_error_line(capsys) == "gmx-study: error: no function '@forward' in the module (its public functions: @main)"


def test_parsing_arguments_imports_no_frontend():
    """The corpus registry (listed in --help) builds its programs lazily:
    torch and transformers are imported only to build one."""
    code = ("import sys; from gmx.tools import gmx_study; gmx_study._argument_parser().format_help(); "
            "assert not {'torch', 'transformers', 'onnx'} & set(sys.modules), sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
