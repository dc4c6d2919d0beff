"""--gmx-canonicalize: raise what frontends emit for gathers and scatters into
gmx.gather_multiaxis and gmx.scatter_multiaxis.

IR in: any module; frontends' gathers appear as `tosa.gather` on a flattened input with reshapes around it
and linearised index arithmetic in front of it (docs/semantics.md#how-frontends-spell-gathers-today), as
`stablehlo.gather`, as `linalg.generic`s reading one element at computed positions, or as `tensor.gather`;
scatters as `tosa.scatter`, `tm_tensor.scatter`, `stablehlo.scatter`, `tensor.scatter`. IR out: one gmx
op per gather or scatter, over the unflattened input with its true axes, and at most one reshape per operand and result.

The patterns, by family (one module each, exporting its `PATTERNS`), each one
rewrite of one recognised shape (IR before and after in its docstring, its
summary in docs/passes.md's generated table; `lit_tests/passes/gmx-canonicalize*.mlir`
has a positive and a negative case for each, marked `positive: <name>` and
`negative: <name>`):

  tosa_gathers
    raise-tosa-gather         tosa.gather -> gmx, axes = [1]
  tosa_scatters (the input_views folds and simplify-indices read gmx scatters too)
    raise-tosa-scatter        tosa.scatter -> gmx scatter, axes = [1]
  input_views
    fold-input-reshape        gmx(reshape(x)) -> gmx(x), rank and axes adjusted
    raise-linearised-indices  gmx(reshape(x), sum(c_i * stride_i)) -> gmx(x, c...), true axes
    split-linearised-index    gmx(v, sum(concat(c...) * strides)) -> gmx(view(v), c...)
    fold-constant-input       gmx(const) -> gmx(const without the unit dims it does not gather)
  input_folds
    fold-input-transpose      gmx(transpose(x)) -> gmx(x), axes permuted (tosa or linalg.transpose)
    fold-input-broadcast      gmx(tile(x)) -> gmx(x) broadcasting its unit dims
  result_folds
    fold-value-casts          cast(gmx(cast(x))) -> gmx(x) when the casts round-trip
    fold-result-reshape       reshape(gmx) -> gmx with the reshaped output
    view-shared-result        reshape(views(gmx)), the views shared -> one view of the gmx result per user
  index_folds
    simplify-indices          gmx(f(i)) -> gmx(i): views, tiles, casts, negative wrap, iotas absorbed
    absorb-floor-modulo       gmx(i mod size) -> gmx(i) {mode = "wrap"}
    drop-inert-mode           gmx(const in range) {mode = m} -> gmx(const)
  linalg_gathers
    raise-linalg-gather       linalg.generic that is provably a gather -> gmx (mode clip for StableHLO's clamp)
  reduction_gathers
    raise-reduction-gather    reduction loop nest reading w[f(i), k] -> gmx over the loop dims it uses, read by the nest
  linalg_scatters
    raise-tm-tensor-scatter   tm_tensor.scatter (+ its flattening generic) -> gmx scatter, the region's reduction
  tensor_gathers
    raise-tensor-gather       tensor.gather -> gmx, static or dynamic
  dynamic_gathers
    fold-dynamic-input-views     gmx(views(x)) -> gmx(view(x)), where a dim is `?`
    fold-dynamic-index-views     gmx(views(cast(views(i)))) -> gmx(view(cast(i))), where a dim is `?`
    fold-dynamic-result-reshape  reshape(gmx) -> gmx with reshaped indices, where a dim is `?`
  stablehlo_gathers
    raise-stablehlo-gather    stablehlo.gather -> gmx, mode = "clip"
    raise-jax-fill-gather     select(in_bounds(i), stablehlo.gather(x, wrap(i)), fill) -> gmx(x, i), mode "fill"
    fold-stablehlo-constant-arithmetic  integer stablehlo ops on constants -> stablehlo.constant
  stablehlo_scatters
    raise-jax-clip-scatter    stablehlo.scatter(clamp(0, i, dim - 1)) -> gmx scatter(i), mode = "clip"
    raise-stablehlo-scatter   stablehlo.scatter -> gmx scatter, mode = "skip" or "drop"
  tensor_scatters
    raise-tensor-scatter      tensor.scatter -> gmx scatter
  scatter_folds
    fold-identity-reset       scatter_R(scatter(x, i, c), i, u) -> select(moved, scatter_R(stack(c, m), i, stack(u, m)))

With `inline=true` (the default, with `fuse=true`), calls are inlined first
(upstream's `inline`, no nested canonicalization) and dead private functions
dropped (`symbol-dce`): JAX's gathers live in private helpers (`@_take`).

Every reader hands what it recognised to `raised_gather.emit_gather` or
`raised_scatter.emit_scatter` (through `scatter_spec.synthesize_scatter`
where it read positions); views come from `views.emit_view` alone. A pattern
that cannot express the whole op (`NoMatch`), or that fails (a bug, reported
as `gmx.passes.patterns` says), changes nothing. The rewrites of a gmx op
change index values and axis sizes, which only "raise" survives: a gmx op of
another mode (absorb-floor-modulo, the StableHLO and linalg raisings) is left
as it is. A `?` dim is read by shapes alone (`dynamic_gathers`). With
`fuse=false`, every tosa.gather, tensor.gather, tensor.scatter and
stablehlo.scatter becomes a gmx op, nothing fused (the first stage of
`--gmx-lower-to-llvm`). Exactness contract: see `coordinates`.
"""

from __future__ import annotations

from . import dynamic_gathers, index_folds, input_folds, input_views, linalg_gathers, result_folds
from . import linalg_scatters, stablehlo_gathers, stablehlo_scatters, tensor_gathers, tensor_scatters
from . import reduction_gathers, scatter_folds, tosa_gathers, tosa_scatters
from .index_values import evaluation_cache
from ..patterns import Pattern, apply_patterns
from ..registry import PassInfo, PassOption, add_python_pass

DEBUG_TYPE = "gmx-canonicalize"
MAX_ITERATIONS = 64  # greedy rounds: real programs need a handful; more means patterns undo each other

# In this order: patterns on one root op are tried in it.
PATTERNS: tuple[Pattern, ...] = (
    *tosa_gathers.PATTERNS,
    *tosa_scatters.PATTERNS,
    *input_views.PATTERNS,
    *input_folds.PATTERNS,
    *result_folds.PATTERNS,
    *index_folds.PATTERNS,
    *linalg_gathers.PATTERNS,
    *reduction_gathers.PATTERNS,
    *linalg_scatters.PATTERNS,
    *tensor_gathers.PATTERNS,
    *dynamic_gathers.PATTERNS,
    *stablehlo_gathers.PATTERNS,
    *stablehlo_scatters.PATTERNS,
    *tensor_scatters.PATTERNS,
    *scatter_folds.PATTERNS,
)

# `fuse=false`: what every checked lowering needs first (a tosa.gather bounds-checked as gmx; a
# tensor.gather, tensor.scatter or stablehlo.scatter, which upstream cannot lower), nothing around it fused.
RAISE_ONLY: tuple[Pattern, ...] = (*tosa_gathers.PATTERNS, *tensor_gathers.PATTERNS, *tensor_scatters.PATTERNS,
                                   *stablehlo_scatters.PATTERNS)


def canonicalize(module, fuse: bool = True) -> None:
    """Apply `PATTERNS` (`fuse=False`: `RAISE_ONLY`) to `module` until none
    applies; PassFailed, its errors emitted, when a pattern failed in strict mode."""
    apply_patterns(module, PATTERNS if fuse else RAISE_ONLY, debug_type=DEBUG_TYPE,
                   max_iterations=MAX_ITERATIONS, scope=evaluation_cache)  # the IR only changes in the final rewrite


INLINE = ("inline{default-pipeline=}", "symbol-dce")  # calls inlined (nothing nested), dead private functions dropped


def _build(pm, options) -> None:
    if options["fuse"] and options["inline"]:
        for element in INLINE:
            pm.add(element)
    add_python_pass(pm, lambda module: canonicalize(module, options["fuse"]), PASS)


PASS = PassInfo(
    argument="gmx-canonicalize",
    description="Raise tosa.gather with reshapes and linearised indices, stablehlo.gather, gather-shaped "
    "linalg.generic, gathers read in reduction loops and tensor.gather into gmx.gather_multiaxis, tosa.scatter, "
    "tm_tensor.scatter, stablehlo.scatter and tensor.scatter into gmx.scatter_multiaxis; gmx folds (calls inlined "
    "first, dead private functions dropped: see inline)",
    build=_build,
    options=(
        PassOption("fuse", True,
            "fold what surrounds each gather into it (false: raise-tosa-gather, raise-tensor-gather, "
            "raise-tensor-scatter and the StableHLO scatters' alone, every tosa.gather a gmx op with axes = [1], "
            "every tensor.gather, tensor.scatter and stablehlo.scatter a gmx op, nothing around it fused)",
        ),
        PassOption("inline", True,
            "with fuse: first inline every call (upstream's inline, no nested canonicalization) and drop the "
            "private functions left unused (symbol-dce), so that gathers in helper functions are raised "
            "(false: functions and calls stay as they are)",
        ),
    ),
)
