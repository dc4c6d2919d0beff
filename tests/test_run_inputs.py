"""gmx-run and gmx-opt on hostile inputs: one line on stderr and exit 1,
never a traceback; bf16 arguments from .npy files written with ml_dtypes."""

import io
import sys

import ml_dtypes
import numpy as np
import pytest

GATHER = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""
INDICES = np.array([[3], [0]], np.int64)


def huge_header(path):
    """A .npy whose header claims 4 TiB of float32, over 16 bytes of data."""
    with open(path, "wb") as handle:
        np.lib.format.write_array_header_1_0(handle, {"descr": "<f4", "fortran_order": False, "shape": (1 << 40,)})
        handle.write(bytes(16))


def truncated(path):
    np.save(path, np.zeros((4, 3), np.float32))
    path.write_bytes(path.read_bytes()[:-5])


def pickled_objects(path):
    np.save(path, np.array([1, "a", None], dtype=object), allow_pickle=True)


def npz_archive(path):
    with open(path, "wb") as handle:  # np.savez would add .npz to a name
        np.savez(handle, x=np.zeros((4, 3), np.float32))


def directory(path):
    path.mkdir()


@pytest.mark.parametrize(
    "make_input, message",
    [
        (huge_header, "is truncated: its header promises float32[1099511627776] (4398046511104 bytes of data), the file holds 16"),
        (truncated, "is truncated: its header promises float32[4, 3] (48 bytes of data), the file holds 43"),
        (pickled_objects, "holds Python objects; gmx-run never unpickles"),
        (npz_archive, "is an .npz archive: give each argument as its own .npy file"),
        (directory, "could not open input '{x}': Is a directory"),
    ],
    ids=["4-TiB-header", "truncated", "pickled", "npz", "directory"],
)
def test_run_bad_input_files_are_one_line(gmx_run, mlir_file, tmp_path, capsys, make_input, message):
    x = tmp_path / "x.npy"
    make_input(x)
    np.save(tmp_path / "i.npy", INDICES)
    assert gmx_run(mlir_file(GATHER), "--input", x, "--input", tmp_path / "i.npy") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gmx-run: error: "), err
    assert message.format(x=x) in err


@pytest.mark.parametrize("tool", ["gmx_opt", "gmx_run"])
def test_invalid_utf8_on_stdin_is_one_line(tool, request, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"func.func @f() {\n  ret\xffurn\n}\n")))
    assert request.getfixturevalue(tool)("-") == 1
    err = capsys.readouterr().err
    prog = tool.replace("_", "-")
    assert err == f"{prog}: error: could not read input file '<stdin>': invalid UTF-8 at line 2, column 6 (byte 0xff)\n"


def test_run_feeds_bf16_npy_files(gmx_run, mlir_file, tmp_path, capsys):
    x = np.arange(12, dtype=np.float32).reshape(4, 3).astype(ml_dtypes.bfloat16)
    np.save(tmp_path / "x.npy", x)
    assert np.load(tmp_path / "x.npy").dtype == np.dtype("V2")  # what numpy makes of it
    np.save(tmp_path / "i.npy", INDICES)
    source = mlir_file(GATHER.replace("f32", "bf16"))
    out = tmp_path / "out.npy"
    assert gmx_run(source, "--input", tmp_path / "x.npy", "--input", tmp_path / "i.npy", "--output", out) == 0, capsys.readouterr().err
    np.testing.assert_array_equal(np.load(out).view(ml_dtypes.bfloat16), x[[3, 0]])


def test_a_void_array_is_not_taken_for_a_float32_argument(gmx_run, mlir_file, tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.zeros((4, 3), ml_dtypes.bfloat16))
    np.save(tmp_path / "i.npy", INDICES)
    assert gmx_run(mlir_file(GATHER), "--input", tmp_path / "x.npy", "--input", tmp_path / "i.npy") == 1
    assert "must be float32[4x3], got dtype |V2" in capsys.readouterr().err


def test_run_help_says_how_to_feed_bf16(capsys):
    from gmx.tools import gmx_run

    with pytest.raises(SystemExit):
        gmx_run.parse_arguments(["--help"])
    assert 'np.save("x.npy", x.astype(ml_dtypes.bfloat16))' in capsys.readouterr().out
