"""`--convert-gmx-to-linalg`: each gmx.gather_multiaxis becomes one linalg.generic.

Before:

    %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>}
           : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>

After (checked mode; `%c4`, `%c0` are constants hoisted before the generic):

    %e = tensor.empty() : tensor<2x3xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>,
                                          affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
           ins(%i : tensor<2x1xi64>) outs(%e : tensor<2x3xf32>) {
    ^bb0(%v: i64, %out: f32):
      %raw = arith.index_cast %v : i64 to index
      %neg = arith.cmpi slt, %raw, %c0 : index
      %wrapped = arith.addi %raw, %c4 : index
      %idx = arith.select %neg, %wrapped, %raw : index
      %ok = arith.cmpi ult, %idx, %c4 : index
      %safe = arith.select %ok, %idx, %c0 : index
      scf.if %ok {} else { func.call @gmx_index_error(site, axis, value, size) }
      %d1 = linalg.index 1 : index
      %x = tensor.extract %x[%safe, %d1] : tensor<4x3xf32>
      linalg.yield %x : f32
    } -> tensor<2x3xf32>

The iteration space is the output's. Indices are read through indexing maps
(coordinate j of a tuple at `d_last * c + j`; broadcast dims at 0), or with
`tensor.extract` when a dynamic dim may broadcast at run time. The input is
read with `tensor.extract`. Negative indices wrap once. In checked mode
(default) an index outside its axis is reported through
`@gmx_index_error(site, axis, value, size)` and replaced by 0, so the
generated code never reads outside its buffers; `checked=false` drops the
check for benchmarks. Dynamic shapes that turn out incompatible at run time
are reported through `@gmx_shape_error(site, dim, input_size, indices_size)`
and the gather is skipped (an `scf.if` guards it). `site` indexes the module
attribute `gmx.error_sites`, which holds each gather's source location.
"""

from __future__ import annotations

from gmx.dialect import GatherMultiaxisOp
from gmx.dialect.gmx import static_shape
from gmx.dialect.locations import location_text
from gmx.dialect.mlir import arith, func, ir, linalg, scf, tensor

from .gather_plan import Access, GatherPlan, plan_gather
from .registry import PassInfo, PassOption, add_python_pass

INDEX_ERROR_FN = "gmx_index_error"
SHAPE_ERROR_FN = "gmx_shape_error"
ERROR_SITES_ATTR = "gmx.error_sites"
# Kinds of run-time shape errors, passed as `dim` < 0 to gmx_shape_error.
SHAPE_ERROR_NOT_DIVISIBLE = -1
SHAPE_ERROR_EMPTY_AXIS = -2


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _i64(value: ir.Value) -> ir.Value:
    """An index or integer value as i64, for the error callbacks."""
    i64 = ir.IntegerType.get_signless(64)
    if isinstance(value.type, ir.IndexType):
        return arith.index_cast(i64, value)
    if ir.IntegerType(value.type).width < 64:
        return arith.extsi(i64, value)
    return value


def _dim(tensor_value: ir.Value, d: int) -> ir.Value:
    size = ir.RankedTensorType(tensor_value.type).shape[d]
    if ir.ShapedType.is_dynamic_size(size):
        return tensor.dim(tensor_value, _index(d))
    return _index(size)


def _cmp(predicate: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    return arith.cmpi(getattr(arith.CmpIPredicate, predicate), lhs, rhs)


def _any(values: list[ir.Value]) -> ir.Value:
    result = values[0]
    for v in values[1:]:
        result = arith.ori(result, v)
    return result


def _all(values: list[ir.Value]) -> ir.Value:
    result = values[0]
    for v in values[1:]:
        result = arith.andi(result, v)
    return result


def _call_on_failure(ok: ir.Value, callee: str, args: list[ir.Value]) -> None:
    """`scf.if !ok { func.call @callee(args) }`, args converted to i64."""
    args = [_i64(a) for a in args]
    true = arith.constant(ir.IntegerType.get_signless(1), 1)
    failed = arith.xori(ok, true)
    if_op = scf.IfOp(failed)
    with ir.InsertionPoint(if_op.then_block):
        func.CallOp([], callee, args)
        scf.YieldOp([])


class GatherLowering:
    """Builds the IR of one gather at the current insertion point."""

    def __init__(self, op: GatherMultiaxisOp, site: int, checked: bool):
        self.input = op.input
        self.indices = op.indices
        self.result_type = ir.RankedTensorType(op.output.type)
        self.axes = op.axes_list
        self.site = _index(site)
        self.checked = checked
        self.plan: GatherPlan = plan_gather(
            static_shape(self.input.type), static_shape(self.indices.type), self.axes
        )
        self.rank = self.plan.rank
        self.input_sizes = [_dim(self.input, d) for d in range(self.rank)]
        self.logical_sizes = self._logical_sizes()
        self.output_sizes = [self._output_size(d) for d in range(self.rank)]

    # -- sizes -------------------------------------------------------------
    def _logical_sizes(self) -> list[ir.Value]:
        sizes = [_dim(self.indices, d) for d in range(self.rank)]
        c = self.plan.coordinate_size
        if sizes and c > 1:
            sizes[-1] = arith.divui(sizes[-1], _index(c))
        return sizes

    def _output_size(self, d: int) -> ir.Value:
        static = self.result_type.shape[d]
        if not ir.ShapedType.is_dynamic_size(static):
            return _index(static)
        if d in self.axes:
            return self.logical_sizes[d]
        input_is_one = _cmp("eq", self.input_sizes[d], _index(1))
        return arith.select(input_is_one, self.logical_sizes[d], self.input_sizes[d])

    # -- run-time shape checks --------------------------------------------
    def _shape_checks(self) -> list[ir.Value]:
        """Emit every run-time shape check; return their success flags."""
        flags = []
        one = _index(1)
        for d in self.plan.broadcast_checks:
            a, b = self.input_sizes[d], self.logical_sizes[d]
            ok = _any([_cmp("eq", a, b), _cmp("eq", a, one), _cmp("eq", b, one)])
            _call_on_failure(ok, SHAPE_ERROR_FN, [self.site, _index(d), a, b])
            flags.append(ok)
        if self.plan.divisibility_check:
            last = _dim(self.indices, self.rank - 1)
            c = _index(self.plan.coordinate_size)
            ok = _cmp("eq", arith.remui(last, c), _index(0))
            _call_on_failure(ok, SHAPE_ERROR_FN, [self.site, _index(SHAPE_ERROR_NOT_DIVISIBLE), last, c])
            flags.append(ok)
        if self.plan.nonempty_axis_checks:
            output_empty = _any([_cmp("eq", s, _index(0)) for s in self.output_sizes])
            for axis in self.plan.nonempty_axis_checks:
                size = self.input_sizes[axis]
                ok = arith.ori(_cmp("ne", size, _index(0)), output_empty)
                _call_on_failure(ok, SHAPE_ERROR_FN, [self.site, _index(SHAPE_ERROR_EMPTY_AXIS), _index(axis), size])
                flags.append(ok)
        return flags

    # -- the generic ---------------------------------------------------------
    def build(self) -> ir.Value:
        flags = self._shape_checks()
        if not flags:
            return self._generic()
        guard = scf.IfOp(_all(flags), [self.result_type], has_else=True)
        with ir.InsertionPoint(guard.then_block):
            scf.YieldOp([self._generic()])
        with ir.InsertionPoint(guard.else_block):
            scf.YieldOp([self._empty_output()])
        return guard.results[0]

    def _empty_output(self) -> ir.Value:
        sizes = [
            self.output_sizes[d] if ir.ShapedType.is_dynamic_size(size) else size
            for d, size in enumerate(self.result_type.shape)
        ]
        return tensor.empty(sizes, self.result_type.element_type)

    def _generic(self) -> ir.Value:
        rank, c = self.rank, self.plan.coordinate_size
        index_inputs = [self.indices] * len(self.axes) if self.plan.indices_by_map else []
        maps = [self._indices_map(j) for j in range(len(index_inputs))]
        maps.append(ir.AffineMap.get_identity(rank))
        parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
        generic = linalg.GenericOp_(
            index_inputs,
            [self._empty_output()],
            ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
            ir.ArrayAttr.get([parallel] * rank),
        )
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            raw_values = list(block.arguments)[: len(index_inputs)] or self._extract_indices(c)
            positions = self._input_positions(raw_values)
            linalg.YieldOp([tensor.extract(self.input, positions)])
        return generic.results[0]

    def _indices_map(self, j: int) -> ir.AffineMap:
        """Indexing map of coordinate j: broadcast dims at 0, last at d*c + j."""
        exprs = []
        for d, access in enumerate(self.plan.indices_access):
            expr = ir.AffineConstantExpr.get(0) if access is Access.ZERO else ir.AffineDimExpr.get(d)
            exprs.append(expr)
        last = self.rank - 1
        exprs[last] = exprs[last] * self.plan.coordinate_size + j
        return ir.AffineMap.get(self.rank, 0, exprs)

    def _position(self, access: Access, d: int, size: ir.Value) -> ir.Value:
        """Read position of dim d for an ITER/ZERO/RUNTIME access."""
        if access is Access.ZERO:
            return _index(0)
        here = linalg.IndexOp(d).result
        if access is Access.ITER:
            return here
        return arith.select(_cmp("eq", size, _index(1)), _index(0), here)

    def _extract_indices(self, c: int) -> list[ir.Value]:
        """Read each coordinate with tensor.extract (used when a dim of the
        indices may broadcast at run time)."""
        base = [
            self._position(access, d, self.logical_sizes[d])
            for d, access in enumerate(self.plan.indices_access)
        ]
        last = base[-1]
        if c > 1:
            last = arith.muli(last, _index(c))
        values = []
        for j in range(len(self.axes)):
            column = arith.addi(last, _index(j)) if j else last
            values.append(tensor.extract(self.indices, base[:-1] + [column]))
        return values

    def _input_positions(self, raw_values: list[ir.Value]) -> list[ir.Value]:
        gathered = {axis: self._checked_index(axis, v) for axis, v in zip(self.axes, raw_values)}
        return [
            gathered[d] if d in gathered else self._position(self.plan.input_access[d], d, self.input_sizes[d])
            for d in range(self.rank)
        ]

    def _checked_index(self, axis: int, raw: ir.Value) -> ir.Value:
        """Wrap a negative index once; in checked mode report and zero an
        index still outside [0, size)."""
        size = self.input_sizes[axis]
        value = arith.index_cast(ir.IndexType.get(), raw)
        zero = _index(0)
        wrapped = arith.select(_cmp("slt", value, zero), arith.addi(value, size), value)
        if not self.checked:
            return wrapped
        in_bounds = _cmp("ult", wrapped, size)
        _call_on_failure(in_bounds, INDEX_ERROR_FN, [self.site, _index(axis), raw, size])
        return arith.select(in_bounds, wrapped, zero)


# -- the pass -----------------------------------------------------------------


def _declare_error_callbacks(module: ir.Module) -> None:
    """Private declarations of the callbacks, once per module."""
    body = module.regions[0].blocks[0]
    existing = {op.attributes["sym_name"].value for op in body.operations if "sym_name" in op.attributes}
    i64 = ir.IntegerType.get_signless(64)
    with ir.InsertionPoint.at_block_begin(body), ir.Location.unknown():
        for name in (INDEX_ERROR_FN, SHAPE_ERROR_FN):
            if name in existing:
                continue
            fn = func.FuncOp(name, ir.FunctionType.get([i64] * 4, []), visibility="private")
            fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()


def _gather_ops(module) -> list:
    ops = []

    def collect(op):
        if op.name == GatherMultiaxisOp.OPERATION_NAME:
            ops.append(op.opview)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    return ops


def error_sites(module) -> list[str]:
    """The `file:line:col` of each lowered gather, by site number."""
    attributes = module.attributes
    if ERROR_SITES_ATTR not in attributes:
        return []
    return [ir.StringAttr(s).value for s in ir.ArrayAttr(attributes[ERROR_SITES_ATTR])]


def convert_gmx_to_linalg(module, checked: bool = True) -> None:
    """Replace every gmx.gather_multiaxis in `module` by its linalg form.

    A plain walk rather than `rewrite.apply_partial_conversion`: in this
    bindings build the Python dialect-conversion driver crashes (SIGSEGV) on
    IRDL-defined ops, even for a pattern that only replaces the op by its
    operand, so the ops are rewritten in place.
    """
    sites = error_sites(module)
    lowered_any = False
    for op in _gather_ops(module):
        if ir.RankedTensorType(op.input.type).rank == 0:
            value = op.input  # a rank-0 gather is its input
        else:
            with ir.InsertionPoint(op), op.location:
                value = GatherLowering(op, len(sites), checked).build()
            sites.append(location_text(op.location))
            lowered_any = True
        op.output.replace_all_uses_with(value)
        op.erase()
    if lowered_any:
        module.attributes[ERROR_SITES_ATTR] = ir.ArrayAttr.get([ir.StringAttr.get(s) for s in sites])
        _declare_error_callbacks(module)


def _build(pm, options) -> None:
    add_python_pass(pm, lambda module: convert_gmx_to_linalg(module, options["checked"]), PASS)


PASS = PassInfo(
    argument="convert-gmx-to-linalg",
    description="Lower every gmx.gather_multiaxis to one linalg.generic",
    build=_build,
    options=(
        PassOption(
            "checked",
            True,
            "report indices outside their axis at run time (false: no check, for benchmarks)",
        ),
    ),
)
