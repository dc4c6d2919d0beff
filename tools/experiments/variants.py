"""The one registry of variants (`REGISTRY`): every gather and scatter
gmx-study studies and gmx-bench benchmarks, by name, and `make_study`, the
validated `Study` of one. A new variant is one entry in `gather_variants`
or `scatter_variants`; the machinery they share is `variant_base`.

`VARIANTS` are the entries gmx-study's `--all` sweep runs: those of the
ops in `SWEPT_OPS`, the gathers. The scatter entries (`SCATTER_VARIANTS`)
are in the registry, so `gmx-study NAME` studies each, gmx-bench times each
of their `benchmarks` (its suite is every entry's) and the tests check each
against numpy, torch and ONNX Runtime; they join `--all` (`OpKind.SCATTER`
in `SWEPT_OPS`) once every frontend's scatter is raised into the op (its
"every frontend" table compares each form's op with the entry's own).
"""

from __future__ import annotations

from gmx.dialect.modes import OpKind

from .gather_variants import GATHER_VARIANTS, parse_pattern
from .scatter_variants import SCATTER_VARIANTS
from .variant_base import (
    SWEEP_UNIT,
    TORCH_FRONTENDS,
    BenchmarkKind,
    BenchmarkShapes,
    Study,
    StudyError,
    Variant,
    fmt_dims,
)
from .frontends import Frontend

REGISTRY: dict[str, Variant] = {v.name: v for v in (*GATHER_VARIANTS, *SCATTER_VARIANTS)}
SWEPT_OPS = frozenset({OpKind.GATHER})  # the ops whose entries gmx-study --all sweeps
VARIANTS: dict[str, Variant] = {name: v for name, v in REGISTRY.items() if v.op in SWEPT_OPS}


def variants_of(kind: OpKind) -> dict[str, Variant]:
    """The registry's entries of one gmx op, by name."""
    return {name: v for name, v in REGISTRY.items() if v.op is kind}


OPTION_FLAGS = {"axis": "--axis", "axes": "--axes", "batch_dims": "--batch-dims", "pattern": "--pattern"}


def make_study(name: str, **given) -> Study:
    """The validated Study of variant `name`: options not given (None) take
    the variant's defaults. Raises StudyError naming the first problem."""
    variant = REGISTRY.get(name)
    if variant is None:
        raise StudyError(f"unknown variant '{name}' (known: {', '.join(REGISTRY)})")
    for option, flag in OPTION_FLAGS.items():
        if given.get(option) is not None and option not in variant.options:
            raise StudyError(f"{flag} does not apply to {name}")
    frontend = given.get("frontend")
    if frontend is not None and frontend not in variant.frontends():
        raise StudyError(f"{name} is not spelled by frontend {frontend} (its frontends: {', '.join(variant.frontends())})")
    values = {"shape": variant.shape, "indices_shape": variant.indices_shape, **variant.options,
              "frontend": variant.frontends()[0]}
    values.update({k: v for k, v in given.items() if v is not None})
    values["frontend"] = Frontend.parse(values["frontend"])  # one of variant.frontends(), as spelled
    study = Study(variant, **values)
    if study.index_dtype not in variant.index_dtypes:
        raise StudyError(
            f"{name}: --index-dtype {study.index_dtype} is not accepted by {study.expression().split('(')[0]}; "
            f"use {' or '.join(variant.index_dtypes)}"
        )
    try:
        variant.check(study)
    except StudyError as error:
        raise StudyError(str(error) + _defaults_note(variant, given)) from None
    return study


def _defaults_note(variant: Variant, given: dict) -> str:
    """`; defaults used: --indices-shape 4x3x6, --axis 1` for what was not given."""
    defaults = {"shape": fmt_dims(variant.shape), "indices_shape": fmt_dims(variant.indices_shape)}
    defaults.update({k: option_text(v) for k, v in variant.options.items()})
    used = [f"--{k.replace('_', '-')} {v}" for k, v in defaults.items() if given.get(k) is None]
    return f"; defaults used: {', '.join(used)}" if used else ""


def option_text(value) -> str:
    """An option's value as written on the command line (`2,0`, `i,:,j`, `1`)."""
    return ",".join(str(v) for v in value) if isinstance(value, tuple) else str(value)


def sweep_study(name: str, n: int, **given) -> Study:
    """Variant `name` at its sweep shapes with n output elements (n a multiple
    of SWEEP_UNIT), with the other options `given` (dtypes, seed)."""
    return make_study(name, **REGISTRY[name].sweep_options(n), **given)


__all__ = [
    "OPTION_FLAGS", "REGISTRY", "SWEEP_UNIT", "SWEPT_OPS", "SCATTER_VARIANTS", "TORCH_FRONTENDS", "VARIANTS",
    "BenchmarkKind", "BenchmarkShapes", "Study", "StudyError", "Variant",
    "fmt_dims", "make_study", "option_text", "parse_pattern", "sweep_study", "variants_of",
]
