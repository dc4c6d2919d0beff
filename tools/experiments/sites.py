"""The gathers and scatters of a program and what stands in front of each.

A gather (`tosa.gather` or `gmx.gather_multiaxis`) or a scatter (`SCATTER_OPS`:
the gmx op, `tosa.scatter`, `tm_tensor.scatter`, `stablehlo.scatter`) has in
front of it

- its index computation (`index_computation`): the ops that compute its
  indices operand, walking back from it through ops whose operands and
  results are all integers (tensors of integers or indices, shapes). The
  walk stops at function arguments, constants, other gathers, scatters
  (what a scatter writes is data; the linearisation of its own indices is
  the scatter's: BART's shift_tokens_right) and ops with a floating-point
  operand (argmax, topk, a cast of floats): those are where an index comes
  from, not how it is spelled;
- the views of its data (`data_views`): the chain of reshapes and
  transposes directly above its input operand (a scatter's: the tensor it
  writes into; constants not counted);
  `data_reshapes` of them change more than unit dims.

The linearisation a frontend wraps around a gather (iota constants
concatenated with the index, multiplied by the strides and summed, the
tiles that broadcast it) is what `--gmx-canonicalize` removes: once it
has, none of `LINEARISATION_OPS` is left in a gmx op's index computation,
except the user's own arithmetic on an index.

    sites = gather_sites(module)      # in program order
    sites[0].line, sites[0].ops_in_front
    scatter_sites(module)             # the same of its scatters
    linearisation_left(sites, kept={"tosa.mul": 1})
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass

from gmx.dialect import OP_NAME, SCATTER_OP_NAME, read_mode, read_reduction
from gmx.dialect.mlir import ir
from gmx.dialect.modes import Mode
from gmx.dialect.reductions import Reduction
from gmx.passes.views import VIEW_OPS, defining_op

GATHER_OPS = (OP_NAME, "tosa.gather")
SCATTER_OPS = (SCATTER_OP_NAME, "tosa.scatter", "tm_tensor.scatter", "stablehlo.scatter")
# The operand a site reads or writes its data from: the first, but for
# tm_tensor.scatter (ins(updates, indices) outs(original)). Its indices are
# operand 1 in every one of them.
_DATA_OPERAND = {"tm_tensor.scatter": 2}
CONSTANT_OPS = ("tosa.const", "tosa.const_shape", "arith.constant", "stablehlo.constant")
DATA_VIEW_OPS = (*VIEW_OPS, "tosa.transpose")
# What is left of a gather's linearisation when the pass missed it:
# tensor.insert_slice is what tosa-to-tensor makes of tosa.concat.
# (tensor.concat is allowed: it folds coordinate tuples of several index
# tensors into gmx's last indices dim.)
LINEARISATION_OPS = (
    "tosa.gather",
    "tosa.reduce_sum",
    "tosa.concat",
    "tosa.tile",
    "tosa.mul",
    "tensor.insert_slice",
)
_FRAME = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):\d+')
_LIBRARY = re.compile(r"[/\\]torch[/\\]")  # torch's own modules: nn.Embedding, functional


@dataclass(frozen=True)
class Site:
    """One gather or scatter of a program."""

    op: str  # a name of GATHER_OPS or SCATTER_OPS
    line: str  # source_line of its location
    result_type: str
    index_ops: Counter  # op name -> how many, in its index computation
    data_views: int
    # of data_views, those that reshape the data (not only add or drop unit
    # dims, which is how gmx spells a gather that inserts unit dims)
    data_reshapes: int = 0
    # a gmx op's axes, mode and (a scatter's) reduction; None for a frontend's op
    axes: tuple[int, ...] | None = None
    mode: Mode | None = None
    reduction: Reduction | None = None

    @property
    def ops_in_front(self) -> int:
        return sum(self.index_ops.values()) + self.data_views

    @property
    def views_in_front(self) -> int:
        """Of ops_in_front, the reshapes and transposes (no arithmetic)."""
        return sum(self.index_ops[name] for name in DATA_VIEW_OPS) + self.data_views


def linearisation_left(sites, kept: dict | None = None) -> dict[str, int]:
    """The LINEARISATION_OPS in the index computations of `sites`, summed,
    beyond `kept` (op name -> how many belong to the program's own index
    arithmetic, e.g. a user's `arange(B) * beams + beam`)."""
    kept = kept or {}
    total = Counter()
    for site in sites:
        total.update({name: site.index_ops[name] for name in LINEARISATION_OPS if site.index_ops[name]})
    return {name: n - kept.get(name, 0) for name, n in total.items() if n > kept.get(name, 0)}


def source_line(location: ir.Location) -> str:
    """`file:line` of the innermost frame of `location` outside torch's own
    modules (the model's line that called nn.Embedding, not nn.Embedding's),
    else its innermost frame, else the location as printed (an ONNX node's
    name)."""
    text = str(location)
    frames = [(path, line) for path, line in _FRAME.findall(text)]
    if not frames:
        name = text.removeprefix("loc(").removesuffix(")").strip('"')
        return "<unknown>" if name in ("", "unknown") else name
    outside = [f for f in frames if not _LIBRARY.search(f[0])] or frames
    path, line = outside[0]
    return f"{os.path.basename(path)}:{line}"


def _has_float(types) -> bool:
    elements = [t.element_type if isinstance(t, ir.ShapedType) else t for t in types]
    return any(isinstance(e, (ir.FloatType, ir.ComplexType)) for e in elements)


def _computes_an_index(op: ir.Operation) -> bool:
    if op.name in GATHER_OPS or op.name in CONSTANT_OPS or op.name in SCATTER_OPS:
        return False
    return not _has_float([v.type for v in op.operands] + [r.type for r in op.results])


def index_computation(site: ir.Operation) -> list[ir.Operation]:
    """The ops computing the indices of `site` (a gather or scatter; see the
    module docstring), each once."""
    found: list[ir.Operation] = []
    pending = [site.operands[1]]
    while pending:
        op = defining_op(pending.pop())
        if op is None or not _computes_an_index(op) or any(op == seen for seen in found):
            continue
        found.append(op)
        pending.extend(op.operands)
    return found


def data_views(site: ir.Operation) -> int:
    """Reshapes and transposes in a chain directly above the data of `site`
    (a gather's input, the tensor a scatter writes into)."""
    return len(_data_view_ops(site))


def data_reshapes(site: ir.Operation) -> int:
    """Of `data_views`, those other than a reshape that only adds or drops unit dims."""
    return sum(not _unit_dims_only(op) for op in _data_view_ops(site))


def _data_view_ops(site: ir.Operation) -> list:
    ops, op = [], defining_op(site.operands[_DATA_OPERAND.get(site.name, 0)])
    while op is not None and op.name in DATA_VIEW_OPS:
        ops.append(op)
        op = defining_op(op.operands[0])
    return ops


def _unit_dims_only(op) -> bool:
    if op.name not in VIEW_OPS:
        return False
    shapes = [ir.ShapedType(v.type) for v in (op.operands[0], op.results[0])]
    if not all(t.has_static_shape for t in shapes):
        return False
    source, result = ([d for d in t.shape if d != 1] for t in shapes)
    return source == result


def gather_sites(module: ir.Module) -> list[Site]:
    """Every gather of `module`, in program order."""
    return _sites(module, GATHER_OPS)


def scatter_sites(module: ir.Module) -> list[Site]:
    """Every scatter of `module` (SCATTER_OPS), in program order."""
    return _sites(module, SCATTER_OPS)


def _sites(module: ir.Module, names: tuple[str, ...]) -> list[Site]:
    sites: list[Site] = []

    def visit(op):
        if op.name in names:
            sites.append(_site(op))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return sites


def _site(op: ir.Operation) -> Site:
    index_ops = Counter(o.name for o in index_computation(op))
    rules = {}
    if op.name in (OP_NAME, SCATTER_OP_NAME):
        rules = {"axes": tuple(ir.DenseI64ArrayAttr(op.attributes["axes"])), "mode": read_mode(op)[0],
                 "reduction": read_reduction(op) if op.name == SCATTER_OP_NAME else None}
    return Site(op.name, source_line(op.location), str(op.results[0].type), index_ops, data_views(op),
                      data_reshapes(op), **rules)
