"""gmx.runtime's API under misuse: what `compile` and `run` accept, which
functions are entry points, and what a failed lowering reports."""

import re

import numpy as np
import pytest

from gmx.runtime import CompileError, compile, run

IDENTITY = "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n  return %x : tensor<3xf32>\n}\n"
X = np.arange(3, dtype=np.float32)


# --- what compile accepts -------------------------------------------------------------------


def test_module_as_utf8_bytes():
    text = IDENTITY + "// é, as UTF-8\n"
    np.testing.assert_array_equal(compile(text.encode())(X), X)
    np.testing.assert_array_equal(run(bytearray(text.encode()), X), X)


def test_module_as_invalid_utf8_bytes_is_located():
    data = IDENTITY.encode() + b"// \xff\n"
    with pytest.raises(CompileError, match=r"^-:4:4: error: invalid UTF-8 \(byte 0xff\)"):
        compile(data)


def test_module_text_with_a_lone_surrogate():
    with pytest.raises(CompileError, match=r"^-:4:4: error: .*lone surrogate \(U\+DC80\)"):
        compile(IDENTITY + "// \udc80\n")


def test_module_as_operation():
    from gmx.dialect import make_context
    from gmx.dialect.mlir import ir

    with make_context():
        module = ir.Module.parse(IDENTITY)
        np.testing.assert_array_equal(compile(module.operation)(X), X)
        function = module.body.operations[0]
        np.testing.assert_array_equal(compile(function)(X), X)  # an op view, wrapped in a module


@pytest.mark.parametrize("module", [None, 123, 1.5, ["func.func"], object()], ids=lambda m: type(m).__name__)
def test_module_of_another_type(module):
    with pytest.raises(TypeError, match=r"the module must be str, bytes \(UTF-8 or MLIR bytecode\), ir.Module or ir.Operation, got "):
        compile(module)
    with pytest.raises(TypeError, match="the module must be"):
        run(module, X)


@pytest.mark.parametrize("checked", ["false", "true", 0, 1, None], ids=repr)
def test_checked_must_be_a_bool(checked):
    with pytest.raises(TypeError, match=r"checked must be True or False, got "):
        compile(IDENTITY, checked=checked)
    with pytest.raises(TypeError, match=r"checked must be True or False"):
        run(IDENTITY, X, checked=checked)


def test_checked_as_a_numpy_bool():
    assert compile(IDENTITY, checked=np.bool_(False)) is compile(IDENTITY, checked=False)


@pytest.mark.parametrize("entry", [None, b"main", 0], ids=repr)
def test_entry_must_be_a_str(entry):
    with pytest.raises(TypeError, match=r"entry must be a str \(a function name such as 'main'\), got "):
        compile(IDENTITY, entry)
    with pytest.raises(TypeError, match=r"entry must be a str"):
        run(IDENTITY, X, entry=entry)


# --- entry points ---------------------------------------------------------------------------

TWO_FUNCTIONS = """func.func private @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func public @spelled(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = call @main(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @plain(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
"""


def test_private_entry():
    message = ('\'@main\' is private (sym_visibility = "private"): only public functions are '
               "entry points (its public functions: @spelled, @plain)")
    with pytest.raises(CompileError, match=re.escape(message)):
        compile(TWO_FUNCTIONS)


def test_missing_entry_lists_the_public_functions():
    with pytest.raises(CompileError, match=re.escape("no function '@nope' in the module "
                                                     "(its public functions: @spelled, @plain)")):
        compile(TWO_FUNCTIONS, "nope")
    only_private = "func.func private @f() {\n  return\n}\n"
    with pytest.raises(CompileError, match=re.escape("(it has no public function)")):
        compile(only_private, "g")


def test_public_spelled_out_is_an_entry_point():
    """`func.func public @main`, as JAX emits it."""
    np.testing.assert_array_equal(compile(TWO_FUNCTIONS, "spelled")(X), X)
    np.testing.assert_array_equal(compile(TWO_FUNCTIONS, "plain")(X), X)
