"""lit configuration: gmx-opt, gmx-run, gmx-study and FileCheck (the PyPI `filecheck`)."""

import os
import shutil
import sys

import lit.formats

from gmx.passes.debug import STRICT_ENV

config.name = "gmx"
config.test_format = lit.formats.ShTest(execute_external=False)  # lit's shell: pipes and `not`
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["Inputs"]
# The tools installed beside the interpreter running lit come first, so
# `.venv/bin/lit lit_tests` works without activating the venv.
_BIN = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([_BIN, os.environ.get("PATH", "")])
# Strict passes (gmx.passes.debug): a crashing pattern fails its test instead
# of passing as "no match". A RUN line shows the users' warning with GMX_STRICT=0.
config.environment[STRICT_ENV] = "1"


def _tool(name):
    path = shutil.which(name, path=config.environment["PATH"])
    if path is None:
        lit_config.fatal(f"'{name}' is not on PATH: install the project with its test extra")
    return path


config.substitutions.append(("gmx-opt", _tool("gmx-opt")))
config.substitutions.append(("gmx-run", _tool("gmx-run")))
config.substitutions.append(("gmx-study", _tool("gmx-study")))
config.substitutions.append(("FileCheck", _tool("filecheck")))
