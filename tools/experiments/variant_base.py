"""The machinery of the one variant registry (`variants`): a `Variant`
(one gather or scatter as a frontend writes it), a validated `Study` of one,
and gmx-bench's `BenchmarkShapes`. The entries are per op:
`gather_variants`, `scatter_variants`.

A `Variant` says which options apply (`axis`, `axes`, `batch_dims`,
`pattern`) and their defaults, checks every rule its frontend imposes on
shapes (`check`, raising `StudyError` before anything is built), makes
inputs whose index values lie in the range the frontend accepts, and gives
the numpy and torch callables that compute the same result (`numpy_fn`,
`torch_fn`, on the inputs in argument order; a scatter's in-place torch
spelling, `torch_inplace_fn`) and the reference's (`reference_fn`: the
numpy form for gathers, `gmx.reference` for scatters). Its `op` says which gmx op it is (`op_name`, what contenders
count). Its `frontend` says where the program comes from: "torch" exports
`torch_fn` itself with torch-mlir, "onnx" imports one ONNX node
(`onnx_node`), "gmx" is the op itself (`gmx_program`). `sweep_options(n)`
gives shapes with exactly n output elements (n a multiple of SWEEP_UNIT)
for `--all`, as r rows of c (`sweep_dims`): no dim of size 1, where
frontends and the fusion take other paths. `benchmarks` are the variant's
gmx-bench benchmarks (`BenchmarkShapes`: fixed shapes, a full and a quick
size), from which gmx-bench's suite is derived.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gmx.dialect import OP_NAME, SCATTER_OP_NAME
from gmx.dialect.errors import GmxError
from gmx.dialect.modes import Mode, OpKind, mode_rule

from .choices import Choice
from .dtypes import INDEX_DTYPES, random_data
from .frontends import Frontend

# The gmx op of each kind: what contenders count in a fused program.
OP_NAMES = {OpKind.GATHER: OP_NAME, OpKind.SCATTER: SCATTER_OP_NAME}


SWEEP_UNIT = 64  # sweep sizes are multiples of this

# The argument an in-place form writes (`Variant.torch_inplace_fn`) and
# gmx's in-place contender donates: the data.
IN_PLACE_ARGUMENT = 0


def sweep_dims(n: int) -> tuple[int, int]:
    """(r, c) with r * c = n outputs, both > 1 for every n >= SWEEP_UNIT."""
    c = 16 if n < 1024 else 64
    return n // c, c


def element_sweep_options(n: int) -> dict:
    """An element gather's (scatter's) sweep shapes: n indices, r rows of c
    along axis 1 of data with 16 more columns."""
    r, c = sweep_dims(n)
    return {"shape": (r, c + 16), "indices_shape": (r, c), "axis": 1}


class StudyError(GmxError, ValueError):
    """Options that do not fit the variant; the message says which and why."""


class BenchmarkKind(Choice):
    """How a benchmarked gather reads, which says what it is compared with."""

    ELEMENTWISE = "elementwise"  # one index per output element
    BLOCK = "block"  # one index per row of >= 64 contiguous elements (compared with memcpy)
    BROADCAST = "broadcast"  # indices broadcast against the data (peak memory is measured)


Shapes = tuple[tuple[int, ...], tuple[int, ...]]  # (data shape, indices shape)


@dataclass(frozen=True)
class BenchmarkShapes:
    """One gmx-bench benchmark of a variant: `full` (>= 4M outputs) and
    `quick` (a smoke test) shapes, the variant's other options, and whether
    the frontend program linearises the index (embedding's does not)."""

    name: str
    kind: BenchmarkKind
    full: Shapes
    quick: Shapes
    options: dict = field(default_factory=dict)
    linearised: bool = True


@dataclass(frozen=True)
class Study:
    """One variant at concrete shapes and dtypes, validated by `make_study`.

    `axis` is as given (may be negative; `axis_index` is in [0, rank)).
    `pattern` lists the entries of an advanced index, `:` or a name."""

    variant: Variant
    shape: tuple[int, ...]
    indices_shape: tuple[int, ...]
    axis: int | None = None
    axes: tuple[int, ...] | None = None
    batch_dims: int | None = None
    pattern: tuple[str, ...] | None = None
    dtype: str = "f32"
    index_dtype: str = "i64"
    seed: int = 0
    frontend: Frontend = Frontend.TOSA  # how the program is spelled (`Variant.frontends`); make_study sets it

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def axis_index(self) -> int:
        return self.axis % self.rank

    def arguments(self) -> tuple[str, ...]:
        """The names of the inputs, in the frontend program's argument order."""
        return self.variant.arguments(self)

    def inputs(self) -> tuple[np.ndarray, ...]:
        """Random inputs (seeded), in argument order; every index in range."""
        return self.variant.inputs(self, np.random.default_rng(self.seed))

    def expression(self) -> str:
        return self.variant.expression(self)

    def describe(self) -> str:
        """`x: f32[4x5x6], idx: i64[4x3x6]` for the inputs."""
        types = self.variant.input_types(self)
        return ", ".join(f"{n}: {t}[{fmt_dims(s)}]" for n, (t, s) in zip(self.arguments(), types))


def fmt_dims(shape) -> str:
    """`4x5x6`, as shapes are written on the command line and in MLIR types."""
    return "x".join(str(d) for d in shape)


@dataclass(frozen=True)
class Variant:
    """A gather or scatter variant: see the module docstring. Subclasses
    fill in the hooks; the base class has the gather's common single-index case."""

    name: str
    frontend: str  # "torch", "onnx" or "gmx"
    category: str  # docs/semantics.md#equivalence-classes
    shape: tuple[int, ...]  # default data shape
    indices_shape: tuple[int, ...]  # default indices shape
    options: dict = field(default_factory=dict)  # option -> default value
    negative: bool = True  # the frontend accepts indices in [-size, size)
    index_dtypes: tuple[str, ...] = ("i32", "i64")
    mode: Mode | None = None  # gmx's out-of-range mode of the frontend's gather (None: the default)
    benchmarks: tuple[BenchmarkShapes, ...] = ()  # gmx-bench's benchmarks of this variant
    op: OpKind = OpKind.GATHER  # which gmx op the frontend's program is

    @property
    def op_name(self) -> str:
        """The gmx op's name, as contenders count it in a fused program."""
        return OP_NAMES[self.op]

    @property
    def fill_value(self):
        """The value an index outside the axis yields where the mode takes one, else None."""
        return MODE_FILL_VALUE if mode_rule(self.mode).takes_fill_value else None

    # -- how frontends spell it ---------------------------------------------------
    def frontends(self) -> tuple[Frontend, ...]:
        """The frontends (`frontends.FRONTENDS`) that spell this gather, its
        own first (the default): every variant has a torch expression, which
        torch-mlir exports as TOSA, StableHLO and linalg-on-tensors."""
        own = {"torch": (), "onnx": (Frontend.ONNX,), "gmx": (Frontend.GMX,)}[self.frontend]
        return own + TORCH_FRONTENDS

    # -- arguments and inputs --------------------------------------------------
    def arguments(self, s: Study) -> tuple[str, ...]:
        return ("x", "idx")

    def input_types(self, s: Study) -> list[tuple[str, tuple[int, ...]]]:
        return [(s.dtype, s.shape), (s.index_dtype, s.indices_shape)]

    def indexed_size(self, s: Study) -> int:
        """The size of the dim the indices address."""
        return s.shape[s.axis_index]

    def inputs(self, s: Study, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        data = random_data(s.shape, s.dtype, rng)
        return data, index_values(rng, s.indices_shape, self.indexed_size(s), self.negative, s.index_dtype)

    # -- rules -----------------------------------------------------------------
    def check(self, s: Study) -> None:
        """Raise StudyError for shapes the frontend does not accept."""

    # -- what it computes --------------------------------------------------------
    def expression(self, s: Study) -> str:
        raise NotImplementedError

    def numpy_expression(self, s: Study) -> str:
        raise NotImplementedError

    def numpy_fn(self, s: Study) -> Callable:
        raise NotImplementedError

    def reference_fn(self, s: Study) -> Callable:
        """What every contender is checked against: the gathers' numpy form."""
        return self.numpy_fn(s)

    def reference_expression(self, s: Study) -> str:
        """How `reference_fn` computes, as a report names it."""
        return self.numpy_expression(s)

    @property
    def numpy_is_reference(self) -> bool:
        """Whether the numpy contender computes the reference itself (gathers) or is checked against it."""
        return True

    def gmx_program(self, s: Study) -> str:
        """The gmx program (`@main`, the arguments in `arguments()` order), for frontend "gmx"."""
        raise NotImplementedError

    def torch_fn(self, s: Study) -> Callable:
        raise NotImplementedError

    def torch_inplace_fn(self, s: Study) -> Callable | None:
        """`torch_fn`'s expression in torch's in-place spelling (`x.scatter_`,
        `x.index_add_`, `x.index_put_`, ...): it writes its result into its
        argument `IN_PLACE_ARGUMENT` (the data) and returns it; None where
        the variant has no in-place form (the gathers)."""
        return None

    def jax_fn(self, s: Study) -> Callable | None:
        """The same computation on jax arrays (for `jax.jit`); None where
        the registry has no JAX form (the gathers: scatters' only)."""
        return None

    def onnx_node(self, s: Study) -> tuple[str, dict]:
        """(op type, attributes) of the ONNX node, for frontend "onnx"."""
        raise NotImplementedError

    def onnx_graph(self, s: Study) -> list[tuple] | None:
        """The same gather as ONNX nodes (op type, input names, output
        names, attributes) from the study's arguments to `out`, for ONNX
        Runtime; None where ONNX has no plain form of it. Frontend "onnx":
        its one node."""
        if self.frontend != "onnx":
            return None
        op_type, attributes = self.onnx_node(s)
        return [(op_type, list(s.arguments()), ["out"], attributes)]

    def sweep_options(self, n: int) -> dict:
        raise NotImplementedError


# --- helpers ------------------------------------------------------------------


def index_values(rng, shape, size: int, negative: bool, dtype: str) -> np.ndarray:
    """Uniform indices into a dim of `size`: [-size, size) or [0, size)."""
    low = -size if negative else 0
    return rng.integers(low, size, shape).astype(INDEX_DTYPES[dtype])


def index_tuples(rng, logical_shape, sizes, negative: bool, dtype: str) -> np.ndarray:
    """Coordinate tuples: shape `logical_shape + [len(sizes)]`, coordinate j
    uniform over a dim of `sizes[j]`."""
    columns = [index_values(rng, tuple(logical_shape), n, negative, dtype) for n in sizes]
    return np.stack(columns, axis=-1)


def check_axis(s: Study) -> None:
    if not -s.rank <= s.axis < s.rank:
        raise StudyError(f"{s.variant.name}: axis {s.axis} is out of range [{-s.rank}, {s.rank}) for data rank {s.rank}")


def check_same_rank(s: Study) -> None:
    if len(s.indices_shape) != s.rank:
        raise StudyError(
            f"{s.variant.name}: indices rank {len(s.indices_shape)} must equal data rank {s.rank} "
            f"(--shape {fmt_dims(s.shape)}, --indices-shape {fmt_dims(s.indices_shape)})"
        )


def check_within(s: Study) -> None:
    """torch.gather and ONNX GatherElements: indices no larger than the data off the axis."""
    for d, (n, m) in enumerate(zip(s.shape, s.indices_shape)):
        if d != s.axis_index and m > n:
            raise StudyError(
                f"{s.variant.name}: indices dim {d} has size {m}, larger than data dim {d} of size {n} "
                f"(only the axis {s.axis_index} may differ)"
            )


def check_broadcastable(s: Study) -> None:
    """take_along_dim: off the axis, data and indices broadcast (equal or one of them 1)."""
    for d, (n, m) in enumerate(zip(s.shape, s.indices_shape)):
        if d != s.axis_index and n != m and 1 not in (n, m):
            raise StudyError(
                f"{s.variant.name}: dim {d} does not broadcast: data has size {n}, indices have size {m} "
                f"(must be equal or one of them 1 off the axis {s.axis_index})"
            )


def check_rank(s: Study, rank: int | None = None, at_least: int = 1, what: str = "data") -> None:
    shape = s.shape if what == "data" else s.indices_shape
    if rank is not None and len(shape) != rank:
        raise StudyError(f"{s.variant.name}: {what} must have rank {rank}, got {fmt_dims(shape)} (rank {len(shape)})")
    if len(shape) < at_least:
        raise StudyError(f"{s.variant.name}: {what} must have rank >= {at_least}, got {fmt_dims(shape)}")


MODE_FILL_VALUE = 1  # a value of every element type (true for i1)

# torch-mlir's output types, as gmx-study's --frontend names them
TORCH_FRONTENDS = (Frontend.TOSA, Frontend.STABLEHLO, Frontend.LINALG)
