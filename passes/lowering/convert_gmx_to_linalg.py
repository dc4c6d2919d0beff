"""`--convert-gmx-to-linalg`: each gmx.gather_multiaxis becomes one gather
linalg.generic, preceded in checked mode by a scan of its indices; each
gmx.scatter_multiaxis becomes loops on its input (`scatter_builder`, whose
docstring shows them), behind the same scan.

Before:

    %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>}
           : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>

After (checked mode, the default; names shortened):

    // 1. Are all indices in [-4, 4)? One branch-free and-reduction over the
    //    indices tensor (vectorisable): v + 4 <u 8.
    %ok = linalg.generic {iterator_types = ["reduction", "reduction"]}
            ins(%i : tensor<2x1xi64>) outs(%true : tensor<i1>) {...}
    %r = scf.if %ok -> tensor<2x3xf32> {
      // 2. The gather: the output's iteration space, indices through
      //    indexing maps, the input through tensor.extract; negative
      //    indices wrap once. No check, no branch: LLVM hoists the index
      //    load, turns rows into memcpy and vectorises element gathers.
      %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>,
                                            affine_map<(d0, d1) -> (d0, d1)>],
                           iterator_types = ["parallel", "parallel"]}
             ins(%i : tensor<2x1xi64>) outs(%e : tensor<2x3xf32>) {
      ^bb0(%v: i64, %out: f32):
        %raw = arith.index_cast %v : i64 to index
        %idx = arith.select (%raw < 0), %raw + 4, %raw : index
        %d1 = linalg.index 1 : index
        %x = tensor.extract %x[%idx, %d1] : tensor<4x3xf32>
        linalg.yield %x : f32
      }
      scf.yield %g
    } else {
      // 3. Cold path: report every bad index through
      //    @gmx_index_error(site, axis, value, size), in index order, then
      //    gather with bad indices read as 0 (never outside the input).
      ...
    }

Scanning the indices rather than the output also reports bad indices that
no output element reads (an empty output).

Other shapes of the same generic, for speed on large static gathers (the
strategies `gather_plan` chooses):

- Elementwise gathers (the indices vary along the innermost output dim, so
  every output reads its own index) check while they gather: one generic,
  its loops all reductions, yields the gathered value (a bad index read as
  0) and and-reduces the in-range flag; the reporting scan runs only if the
  flag is false. Reading the indices once instead of twice is what matters
  there.
- Row tiles (gathers of many indices): the scan and the gather of
  TILE_INDICES index values at a time, so the gather re-reads the tile's
  indices from cache.
- Column tiles (x[i, :, j]): the rows sorted by the input slab they read
  (a counting sort), then each slab read once, a cache line of output per
  row at a time, and copied to every row that reads it.

`checked=false` emits the gather alone (for benchmarks). Indices are read
through indexing maps (coordinate j of a tuple at `d_last * c + j`;
broadcast dims at 0), or with `tensor.extract` when a dynamic dim may
broadcast at run time. Dynamic shapes that turn out incompatible at run
time are reported through `@gmx_shape_error(site, dim, input_size,
indices_size)` and the gather is skipped (an `scf.if` guards it). `site`
indexes the module attribute `gmx.error_sites`, which holds each gather's
source location (the contract with the runtime is `runtime_abi`).

The IR comes out folded (`folding`): static sizes and arithmetic on them
are computed while it is built, and each constant is emitted once, at the
function's entry, so the pass alone prints what `--canonicalize --cse`
would make of it. `gather_plan` decides how each gather is lowered,
`gather_builder` builds it (`scatter_plan` and `scatter_builder` for
scatters; both read indices through `index_reading` and check them through
`index_checks`); this module walks the ops, dispatches each through
`LOWERINGS` and records their sites, one numbering for both ops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gmx.dialect import GatherMultiaxisOp, ScatterMultiaxisOp
from gmx.dialect.gmx import static_shape
from gmx.dialect.mlir import ir
from gmx.dialect.scatter import read_reduction

from .folding import Constants
from .gather_builder import build_gather
from .reporters import CALLBACKS, Reporter
from .runtime_abi import number_error_sites
from .iree_scatter import build_iree_scatter
from .scatter_builder import build_scatter, scatter_refusal
from ..registry import PassInfo, PassOption, Refused, add_python_pass


def _gather_is_its_input(op) -> bool:
    """A rank-0 gather reads its one element: it is its input."""
    return ir.RankedTensorType(op.input.type).rank == 0


def _scatter_refusal(op) -> str | None:
    static = all(None not in static_shape(v.type) for v in (op.input, op.indices, op.updates))
    return scatter_refusal(read_reduction(op), ir.RankedTensorType(op.output.type).element_type, static)


def _build_scatter(op, site: int, checked: bool, constants: Constants, target: str, reporter: Reporter) -> ir.Value:
    """Loops for the engine; one iree_linalg_ext.scatter for IREE, which runs no loops on tensors."""
    build = build_iree_scatter if target == "iree" else build_scatter
    return build(op, site, checked, constants, reporter)


@dataclass(frozen=True)
class Lowering:
    """How the pass lowers one op: `build(op, site, checked, constants,
    target, reporter)` emits its linalg form and returns the value replacing it;
    `is_input(op)`: the op is its input (nothing built, no site);
    `refusal(op)`: why it has no lowering yet (None: it has)."""

    build: Callable
    is_input: Callable = lambda op: False
    refusal: Callable = lambda op: None


LOWERINGS: dict[str, Lowering] = {
    GatherMultiaxisOp.OPERATION_NAME: Lowering(build_gather, is_input=_gather_is_its_input),
    ScatterMultiaxisOp.OPERATION_NAME: Lowering(_build_scatter, refusal=_scatter_refusal),
}


def gmx_ops(module, name: str | None = None) -> list:
    """The ops of `module` that LOWERINGS knows (only those named `name`,
    if given), in walk order: the order their sites are numbered in."""
    ops = []

    def collect(op):
        if op.name in LOWERINGS and name in (None, op.name):
            ops.append(op.opview)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    return ops


def takes_a_site(op) -> bool:
    """Whether the pass numbers a site for `op` (one it builds code for)."""
    return not LOWERINGS[op.operation.name].is_input(op)


def convert_gmx_to_linalg(module, checked: bool = True, target: str = "llvm", reporter: Reporter = CALLBACKS) -> None:
    """Replace every gmx op of `module` by its linalg form (planned for
    `target`, "llvm" or "iree"), through the op's entry of LOWERINGS, its
    checks reported through `reporter` (the engine's callbacks by
    default); the sites of gathers and scatters are numbered once, in
    walk order.
    Refused, errors emitted at the ops, for those with no lowering yet
    (the others are lowered).

    A plain walk rather than `rewrite.apply_partial_conversion`: in this
    bindings build the Python dialect-conversion driver crashes (SIGSEGV) on
    IRDL-defined ops, even for a pattern that only replaces the op by its
    operand, so the ops are rewritten in place.
    """
    lowered, refused = [], 0
    for op in gmx_ops(module):
        why = LOWERINGS[op.operation.name].refusal(op)
        if why is not None:
            op.location.emit_error(f"'{op.operation.name}' has no lowering: {why}")
            refused += 1
        else:
            lowered.append(op)
    sited = [op for op in lowered if takes_a_site(op)]
    sites = iter(number_error_sites(module, sited))
    constants: dict[ir.Block, Constants] = {}  # per function: its entry block's
    for op in lowered:
        if not takes_a_site(op):
            value = op.input
        else:
            entry = Constants.entry_block(op)
            pool = constants.setdefault(entry, Constants(entry))
            with ir.InsertionPoint(op), op.location:
                value = LOWERINGS[op.operation.name].build(op, next(sites), checked, pool, target, reporter)
        op.output.replace_all_uses_with(value)
        op.erase()
    if sited:
        reporter.declare(module)
    if refused:
        raise Refused(f"{refused} gmx op(s) not lowered")


def _build(pm, options) -> None:
    add_python_pass(pm, lambda module: convert_gmx_to_linalg(module, options["checked"]), PASS)


PASS = PassInfo(
    argument="convert-gmx-to-linalg",
    description="Lower every gmx.gather_multiaxis to a gather linalg.generic "
    "(checked: behind a scan of its indices, or and-reducing their validity as it gathers), "
    "every gmx.scatter_multiaxis to loops on its input (checked: behind the scan)",
    build=_build,
    options=(
        PassOption(
            "checked",
            True,
            "report indices outside their axis at run time (false: no check, for benchmarks)",
        ),
    ),
)
