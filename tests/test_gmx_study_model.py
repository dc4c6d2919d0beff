"""gmx-study --model, called in-process: a corpus model, a user's TOSA file
and ONNX file studied whole (fused against unfused, gather by gather), and
bad input as one error line with a non-zero exit status."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

from gmx.tools import gmx_study  # noqa: E402
from study_cli import one_error_line, study  # noqa: E402
from gmx.tools.experiments import models  # noqa: E402

LINEARISED = "examples/linearised_gather.mlir"




def gather_rows(out: str) -> list[str]:
    """The rows of the per-gather table."""
    table = out.split("=== gathers:")[1].split("=== programs ===")[0]
    return [line for line in table.splitlines()[3:] if line.strip()]


def test_corpus_model(capsys):
    assert study("--model", "kv_cache_read", "--repeat", "1", "--warmup", "0") == 0
    out = capsys.readouterr().out
    assert out.startswith("gmx-study --model kv_cache_read: decoding: cache.index_select(2, positions)")
    assert "=== gathers: 1 in the source, 1 gmx ops fused ===" in out
    (row,) = gather_rows(out)
    # the line of _kv_cache_read, not of a wrapper; fused: a cast and views in
    # front of the gmx op, unfused: the whole linearisation
    assert re.fullmatch(r"models\.py:\d+ +1x1x48xf32 +2 \(1 view\) +12 \(7 views\)", row), row
    assert re.search(r"^fused +5 .* equal$", out, re.M), out
    assert re.search(r"^unfused +28 .*x +equal$", out, re.M), out
    assert "median of 1 interleaved runs after 0 warm-up" in out


def test_gathers_that_become_slices_have_no_fused_op(capsys):
    """GPT-2: the position embedding at arange(T) is a slice; the whole
    model runs fused and unfused, equal to eager."""
    assert study("--model", "gpt2_lm", "--no-timing") == 0
    captured = capsys.readouterr()
    rows = gather_rows(captured.out)
    assert len(rows) == models.MODELS["gpt2_lm"].gathers
    assert re.match(r"modeling_gpt2\.py:\d+ +1x8x16xf32 +none: a slice, view or constant", rows[1]), rows
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
    (row,) = gather_rows(out)
    assert re.fullmatch(r"linearised_gather\.mlir:21 +1x1x4xf32 +0 \(0 views\) +9 \(6 views\)", row), row
    assert re.search(r"^fused +3 .* equal$", out, re.M)
    assert re.search(r"^unfused +21 .* the reference$", out, re.M)


def test_user_onnx_file_is_checked_against_the_reference_evaluator(tmp_path, capsys):
    import onnx

    path = tmp_path / "nd.onnx"
    onnx.save(models.MODELS["onnx_gather_nd"].build().program, path)
    assert study("--model", path, "--no-timing") == 0
    out = capsys.readouterr().out
    assert "gmx-study --model nd.onnx: ONNX model" in out
    (row,) = gather_rows(out)
    assert row.startswith("picked ")
    assert re.search(r"^fused .* within tolerance$", out, re.M)


BAD_ARGUMENTS = [
    (["--model", "gpt5"], "--model 'gpt5' is neither a model of the corpus (gpt2_lm, "),
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
