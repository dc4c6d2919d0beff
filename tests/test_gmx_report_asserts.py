"""--gmx-report-asserts: a failing cf.assert is a catchable ValueError with
its message and location (one `error:` line in gmx-run), never an abort of
the process; the program is usable afterwards."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gmx.passes.lowering.gmx_report_asserts import assert_message
from gmx.runtime import compile
from gmx.tools.experiments.frontends import torch_export

ASSERTING = """func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %a = tensor.dim %x, %c0 : tensor<?xf32>
  %b = tensor.dim %y, %c0 : tensor<?xf32>
  %ok = arith.cmpi eq, %a, %b : index
  cf.assert %ok, "mismatched size for broadcast"
  %r = arith.addf %x, %y : tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def test_verification_messages_are_reduced_to_their_reason():
    text = "ERROR: Runtime op verification failed\n%0 = tensor.cast ...\n^ size mismatch of dim 0\nLocation: loc(...)"
    assert assert_message(text) == "size mismatch of dim 0"
    assert assert_message("mismatched size for broadcast") == "mismatched size for broadcast"


@pytest.mark.parametrize("checked", [True, False])
def test_failed_assert_raises_value_error_and_the_program_goes_on(checked):
    program = compile(ASSERTING, checked=checked)
    x = np.arange(4, dtype=np.float32)
    with pytest.raises(ValueError, match=r"^-:6:3: mismatched size for broadcast$"):
        program(x, x[:3])
    np.testing.assert_array_equal(program(x, x), 2 * x)


def test_torch_mlir_broadcast_assert_is_a_value_error():
    """torch-mlir's linalg-on-tensors export asserts that dynamic sizes
    broadcast; sizes that do not are gmx's ValueError."""
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    text = torch_export(lambda a, b: a + b, [x, y], dynamic_dims=[{0: "n"}, {0: "n"}], output_type="linalg-on-tensors")
    assert "cf.assert" in text
    program = compile(text)
    with pytest.raises(ValueError, match="mismatched size for broadcast"):
        program(np.ones((3, 4), np.float32), np.ones((5, 4), np.float32))
    np.testing.assert_array_equal(program(x.numpy(), y.numpy()), (x + y).numpy())


def test_gmx_run_prints_one_error_line(mlir_file, tmp_path, gmx_run, capsys):
    source = mlir_file(ASSERTING, "assert.mlir")
    np.save(tmp_path / "x.npy", np.arange(4, dtype=np.float32))
    np.save(tmp_path / "y.npy", np.arange(3, dtype=np.float32))
    assert gmx_run(source, "--input", tmp_path / "x.npy", "--input", tmp_path / "y.npy") == 1
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and f"{source}:6:3: mismatched size for broadcast" in err, err
