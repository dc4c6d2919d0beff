"""Fuzzing the compiled gather: random programs and hostile index values.

Hypothesis (derandomised, so every run tries the same cases) draws batches
of gathers: ranks 0 to 3, dims of size 0, 1 and more, broadcasting both
ways, permuted axes, static and dynamic dims, data of every element kind and
indices of every signless width, and bare `tosa.gather`s (which the
lowering raises into checked gmx ops); their index values are either all in
range or salted with hostile ones (the axis size, one below -size, the
index type's extremes, far out). Each batch runs in a process of its own
(`fuzz_worker.py`), so that an out-of-bounds read that crashes shows as a
signal. Every case must give exactly the numpy reference's result, or an
IndexError where the reference raises one.

Gathers in an out-of-range mode ("wrap", "clip", "fill" with a fill value
of arbitrary bits) are fuzzed the same way, with more hostile values: the
compiled code must never read outside the input, and gives the reference's
result in that mode (an IndexError only for indices into an empty axis).

`GMX_FUZZ_BATCHES=N` runs N batches instead of the default (for a longer
session of fuzzing by hand; the suite keeps the default).
"""

from __future__ import annotations

import os
import signal

import ml_dtypes
import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from fuzz_worker import run_in_worker
from gather_programs import assert_identical, gather_module, random_bits, tensor_type
from nested_bytecode import KINDS as NESTING_KINDS
from nested_bytecode import nested_bytecode
from gmx.reference import gather_multiaxis

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

BATCH = 30
BATCHES = int(os.environ.get("GMX_FUZZ_BATCHES", "4"))
DATA_DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.float64, np.bool_, np.int8,
               np.int32, np.int64, np.complex64]
INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64]
TOSA_DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.int8, np.int16, np.int32]


@st.composite
def shapes_and_axes(draw):
    """(input shape, logical indices shape, axes): valid for the op, with
    empty and unit dims and broadcasting in both directions."""
    r = draw(st.integers(0, 3))
    axes = tuple(draw(st.permutations(range(r)))[: draw(st.integers(0, r))])
    input_shape, logical = [], []
    for d in range(r):
        if d in axes:
            input_shape.append(draw(st.integers(0, 4)))
            logical.append(draw(st.integers(0, 3)))
            continue
        n = draw(st.integers(0, 3))
        kind = draw(st.sampled_from(["equal", "input_is_1", "indices_is_1"]))
        input_shape.append(1 if kind == "input_is_1" else n)
        logical.append(1 if kind == "indices_is_1" else n)
    return tuple(input_shape), tuple(logical), axes


@st.composite
def fuzz_cases(draw):
    """A case: (shapes and axes, data dtype, index dtype, dynamic input dims,
    dynamic indices dims, hostile share of index values, seed)."""
    input_shape, logical, axes = draw(shapes_and_axes())
    r = len(input_shape)
    dims = st.sets(st.integers(0, r - 1)) if r else st.just(set())
    return (
        input_shape, logical, axes,
        draw(st.sampled_from(DATA_DTYPES)), draw(st.sampled_from(INDEX_DTYPES)),
        tuple(sorted(draw(dims))), tuple(sorted(draw(dims))),
        draw(st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0])),
        draw(st.integers(0, 2**32 - 1)),
    )


def hostile_values(size: int, dtype) -> np.ndarray:
    """Index values no frontend should send for an axis of `size`."""
    info = np.iinfo(dtype)
    candidates = [size, size + 1, -size - 1, info.min, info.max, info.min + 1, 2 * size + 7, -2 * size - 9]
    return np.array([v for v in candidates if info.min <= v <= info.max], dtype=np.int64)


def index_values(rng, input_shape, logical, axes, dtype, hostile: float) -> np.ndarray:
    """Folded coordinate tuples: in [-size, size) of each axis, a `hostile`
    share of them replaced by hostile values."""
    c = max(len(axes), 1)
    sizes = [input_shape[a] for a in axes] or [1000]
    columns = []
    for size in sizes:
        info = np.iinfo(dtype)
        low, high = max(-size, info.min), min(size, info.max + 1)
        column = rng.integers(low, high, size=logical) if high > low else np.zeros(logical, np.int64)
        bad = rng.random(logical) < hostile
        column = np.where(bad, rng.choice(hostile_values(size, dtype), size=logical), column)
        columns.append(column)
    tuples = np.stack(columns, axis=-1) if columns else np.zeros((*logical, c), np.int64)
    if not logical:
        return tuples.reshape(()).astype(dtype) if c == 1 else tuples.astype(dtype)
    return tuples.reshape(*logical[:-1], logical[-1] * c).astype(dtype)


@st.composite
def tosa_cases(draw):
    """A bare `tosa.gather(values[N, K, C], indices[N, W] : i32)`: (shapes
    and axes of the gmx op it is, data dtype, hostile share, seed). TOSA
    wants every dim non-empty and i32 indices."""
    n, k, c, w = (draw(st.integers(1, 4)) for _ in range(4))
    return ((n, k, c), (n, w, 1), (1,), draw(st.sampled_from(TOSA_DTYPES)),
            draw(st.sampled_from([0.0, 0.1, 1.0])), draw(st.integers(0, 2**32 - 1)))


def tosa_module(values_shape, indices_shape, dtype) -> str:
    tv, ti = tensor_type(values_shape, dtype), tensor_type(indices_shape, np.int32)
    to = tensor_type((values_shape[0], indices_shape[1], values_shape[2]), dtype)
    return (f"func.func @main(%v: {tv}, %i: {ti}) -> {to} {{\n"
            f"  %r = tosa.gather %v, %i : ({tv}, {ti}) -> {to}\n"
            f"  return %r : {to}\n}}\n")


def materialise_tosa(case) -> dict:
    """The gmx op's operands are the TOSA operands with a unit dim added to
    the indices; the program takes the TOSA operands."""
    input_shape, logical, axes, dtype, hostile, seed = case
    rng = np.random.default_rng(seed)
    x = random_bits(rng, input_shape, dtype)
    idx = index_values(rng, input_shape, logical, axes, np.int32, hostile)
    return {"text": tosa_module(x.shape, idx.shape[:2], dtype), "arrays": (x, idx[..., 0]), "axes": axes,
            "reference": (x, idx)}


def materialise(case, mode=None) -> dict:
    input_shape, logical, axes, dtype, index_dtype, dyn_input, dyn_indices, hostile, seed = case
    rng = np.random.default_rng(seed)
    x = random_bits(rng, input_shape, dtype)
    idx = index_values(rng, input_shape, logical, axes, index_dtype, hostile)
    if mode == "fill" and np.dtype(dtype).kind == "c":
        mode = "wrap"  # fill needs an integer or float element type
    fill = random_bits(rng, (), dtype)[()] if mode == "fill" else None
    text = gather_module(input_shape, idx.shape, axes, dtype, index_dtype, dyn_input, dyn_indices, mode, fill)
    return {"text": text, "arrays": (x, idx), "axes": axes, "mode": mode, "fill_value": fill}


def describe(case: dict) -> str:
    x, idx = case["arrays"]
    return f"{case['text']}x = {x!r}\nindices = {idx!r}"


def mismatch(case: dict, result: tuple) -> str | None:
    """Why `result` is not what the reference gives for `case`, or None."""
    x, idx = case.get("reference", case["arrays"])
    try:
        want = gather_multiaxis(x, idx, case["axes"], mode=case.get("mode") or "raise",
                                fill_value=case.get("fill_value"))
    except IndexError:
        return None if result[0] == "IndexError" else f"expected IndexError, got {result[0]}: {result[1]!r}"
    if result[0] != "ok":
        return f"expected a result, got {result[0]}: {result[1]}"
    try:
        assert_identical(result[1], want)
    except AssertionError as error:
        return f"wrong result: {error}"
    return None


# No shrinking: a batch is a subprocess of 30 compiles, and the report
# already names the failing case.
@settings(derandomize=True, max_examples=BATCHES, deadline=None, database=None,
          phases=[Phase.explicit, Phase.generate])
@given(st.lists(st.one_of(fuzz_cases(), tosa_cases()), min_size=BATCH, max_size=BATCH))
def test_random_gathers_with_hostile_indices(tmp_path_factory, batch):
    cases = [materialise(case) if len(case) == 9 else materialise_tosa(case) for case in batch]
    results, done = run_in_worker(cases, tmp_path_factory.mktemp("fuzz"))
    if done.returncode != 0:
        crashed = [line for line in done.stderr.splitlines() if line.startswith("case ")][-1:]
        number = int(crashed[0].split()[1]) if crashed else 0
        name = signal.Signals(-done.returncode).name if done.returncode < 0 else done.returncode
        raise AssertionError(f"the worker died ({name}) on case {number}:\n{describe(cases[number])}\n"
                             f"{done.stderr[-2000:]}")
    problems = [(case, why) for case, result in zip(cases, results) if (why := mismatch(case, result))]
    assert not problems, "\n\n".join(f"{why}\n{describe(case)}" for case, why in problems[:3])


@st.composite
def mode_cases(draw):
    """A fuzz case with an out-of-range mode, and more of its indices hostile."""
    case = list(draw(fuzz_cases()))
    case[7] = draw(st.sampled_from([0.3, 0.5, 1.0]))
    return tuple(case), draw(st.sampled_from(["wrap", "clip", "fill"]))


@settings(derandomize=True, max_examples=max(BATCHES // 2, 1), deadline=None, database=None,
          phases=[Phase.explicit, Phase.generate])
@given(st.lists(mode_cases(), min_size=BATCH, max_size=BATCH))
def test_random_gathers_in_every_mode(tmp_path_factory, batch):
    cases = [materialise(case, mode) for case, mode in batch]
    results, done = run_in_worker(cases, tmp_path_factory.mktemp("fuzz"))
    if done.returncode != 0:
        crashed = [line for line in done.stderr.splitlines() if line.startswith("case ")][-1:]
        number = int(crashed[0].split()[1]) if crashed else 0
        raise AssertionError(f"the worker died ({done.returncode}) on case {number}:\n{describe(cases[number])}")
    problems = [(case, why) for case, result in zip(cases, results) if (why := mismatch(case, result))]
    assert not problems, "\n\n".join(f"{why}\n{describe(case)}" for case, why in problems[:3])


# -- what the runtime must not take from a module's text ----------------------
# A gather program given attributes only the lowering writes (of any value,
# on the module, the entry or the gather) is refused before any work; one
# declaring an external function runs only when the runtime provides it.
# Both in the worker, where a forged signature that slipped through would
# show as a signal.

PIPELINE_ATTRIBUTES = ("gmx.signature", "gmx.destinations")
PROCESS_FUNCTIONS = ["system", "exit", "_exit", "abort", "fork", "execve", "popen", "dlopen", "dlsym", "kill",
                     "mprotect", "mmap", "raise", "setuid", "unlink", "puts", "printf", "getenv"]
PROVIDED_FUNCTIONS = ["erff", "tanh", "powf", "malloc", "free", "memcpy", "__kmpc_fork_call", "omp_get_thread_num"]


@st.composite
def forged_attribute(draw) -> str:
    """`name = value` of a pipeline attribute, its value drawn at random."""
    name = draw(st.sampled_from(PIPELINE_ATTRIBUTES))
    types = st.builds(tensor_type, st.lists(st.integers(0, 1 << 24), max_size=3),
                      st.sampled_from([np.float32, np.int8, np.int64, np.float16]))
    if name == "gmx.signature":
        inputs, results = draw(st.lists(types, max_size=3)), draw(st.lists(types, max_size=2))
        return f"{name} = ({', '.join(inputs)}) -> ({', '.join(results)})"
    return name


def with_attribute(text: str, attribute: str, where: str) -> str:
    """`text` (one gather's module) with `attribute` on the module, the entry or the gather."""
    if where == "module":
        return f"module attributes {{{attribute}}} {{\n{text}}}\n"
    if where == "entry":
        head, _, rest = text.partition(") -> ")
        signature, _, body = rest.partition(" {\n")
        return f"{head}) -> {signature} attributes {{{attribute}}} {{\n{body}"
    return text.replace("{axes = ", f"{{{attribute}, axes = ", 1)


@settings(derandomize=True, max_examples=1, deadline=None, database=None, phases=[Phase.explicit, Phase.generate])
@given(st.lists(st.tuples(fuzz_cases(), forged_attribute(), st.sampled_from(["module", "entry", "gather"])),
                min_size=BATCH, max_size=BATCH))
def test_forged_pipeline_attributes(tmp_path_factory, batch):
    cases = []
    for case, attribute, where in batch:
        program = materialise(case)
        program["text"] = with_attribute(program["text"], attribute, where)
        cases.append(program)
    results, done = run_in_worker(cases, tmp_path_factory.mktemp("forged"))
    assert done.returncode == 0, f"the worker died ({done.returncode}):\n{done.stderr[-2000:]}"
    for case, (kind, message) in zip(cases, results):
        assert kind == "CompileError" and "carries 'gmx." in message, f"{kind}: {message!r}\n{case['text']}"


@settings(derandomize=True, max_examples=1, deadline=None, database=None, phases=[Phase.explicit, Phase.generate])
@given(st.lists(st.tuples(fuzz_cases(), st.one_of(
    st.sampled_from(PROCESS_FUNCTIONS + PROVIDED_FUNCTIONS),
    st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True).filter(lambda n: n != "main" and not n.startswith("gmx")),
)), min_size=BATCH, max_size=BATCH))
def test_declared_external_functions(tmp_path_factory, batch):
    from gmx.runtime.external_symbols import provided

    cases = []
    for case, name in batch:
        program = materialise(case)
        program["text"] = f"func.func private @{name}(i64) -> i64\n" + program["text"]
        program["name"] = name
        cases.append(program)
    results, done = run_in_worker(cases, tmp_path_factory.mktemp("external"))
    assert done.returncode == 0, f"the worker died ({done.returncode}):\n{done.stderr[-2000:]}"
    for case, result in zip(cases, results):
        if provided(case["name"]):
            assert (why := mismatch(case, result)) is None, f"@{case['name']}: {why}"
        else:
            assert result[0] == "CompileError" and f"'@{case['name']}'" in result[1], (case["name"], result)


# Every op that makes an LLVM symbol, with every linkage its verifier
# takes: the symbol is the module's own only when defined with a linkage
# LLVM keeps (external, internal, private); with any other (one LLVM may
# drop, or replace by another definition) or none, it is the process's, and
# runs only when the runtime provides it.
KEPT = ("external", "internal", "private")
SYMBOL_FORMS = {  # form: (template of `N` and `L`, whether it defines N, the linkages it takes)
    "func.func body": ("func.func @N(%a: i64) -> i64 attributes {llvm.linkage = #llvm.linkage<L>} {\n"
                       "  return %a : i64\n}\n", True,
                       KEPT + ("available_externally", "linkonce", "linkonce_odr", "weak", "weak_odr",
                               "appending", "extern_weak")),
    "func.func declaration": ("func.func private @N(i64) -> i64 attributes {llvm.linkage = #llvm.linkage<L>}\n",
                              False, ("external", "extern_weak")),
    "llvm.func body": ("llvm.func L @N(%a: i64) -> i64 {\n  llvm.return %a : i64\n}\n", True,
                       KEPT + ("available_externally", "linkonce", "linkonce_odr", "weak", "weak_odr",
                               "appending", "extern_weak")),
    "llvm.func declaration": ("llvm.func L @N(i64) -> i64\n", False, ("external", "extern_weak")),
    "global value": ("llvm.mlir.global L @N(0 : i64) {addr_space = 0 : i32} : i64\n", True,
                     KEPT + ("available_externally", "linkonce", "linkonce_odr", "weak", "weak_odr", "common",
                             "extern_weak")),
    "global declaration": ("llvm.mlir.global L @N() {addr_space = 0 : i32} : i64\n", False,
                           KEPT + ("available_externally", "linkonce", "linkonce_odr", "weak", "weak_odr",
                                   "common", "extern_weak")),
    "alias": ("llvm.mlir.global internal @N_target(0 : i64) {addr_space = 0 : i32} : i64\n"
              "llvm.mlir.alias L @N : i64 {\n  %0 = llvm.mlir.addressof @N_target : !llvm.ptr\n"
              "  llvm.return %0 : !llvm.ptr\n}\n", True,
              KEPT + ("available_externally", "linkonce", "linkonce_odr", "weak", "weak_odr")),
    "ifunc": ("llvm.func internal @N_resolver() -> !llvm.ptr {\n  %0 = llvm.mlir.zero : !llvm.ptr\n"
              "  llvm.return %0 : !llvm.ptr\n}\nllvm.mlir.ifunc L @N : !llvm.func<i64 (i64)>, !llvm.ptr @N_resolver\n",
              True, KEPT + ("linkonce", "linkonce_odr", "weak", "weak_odr")),
}
SYMBOL_CASES = [(form, linkage) for form, (_, _, linkages) in SYMBOL_FORMS.items() for linkage in linkages]
# A process function and global the runtime does not provide, an omp_*
# function libomp has but the runtime does not register, a name nothing
# has, and one the runtime provides.
SYMBOL_NAMES = ["system", "environ", "omp_get_wtime", "gmx_fuzz_nowhere", "erff"]


@settings(derandomize=True, max_examples=1, deadline=None, database=None, phases=[Phase.explicit, Phase.generate])
@given(st.lists(st.tuples(fuzz_cases(), st.sampled_from(SYMBOL_NAMES)),
                min_size=len(SYMBOL_CASES), max_size=len(SYMBOL_CASES)))
def test_symbols_of_every_op_and_linkage(tmp_path_factory, batch):
    """Before, the allow-list looked only at bodies: an available_externally
    function or global (LLVM drops its body or value) linked the process's."""
    cases = []
    for (form, linkage), (case, name) in zip(SYMBOL_CASES, batch):
        template, defines, _ = SYMBOL_FORMS[form]
        program = materialise(case)
        program["text"] = template.replace("@N", f"@{name}").replace(" L ", f" {linkage} ").replace(
            "<L>", f"<{linkage}>") + program["text"]
        program["own"] = (defines and linkage in KEPT) or name == "erff"
        program["what"] = f"{form} {linkage} @{name}"
        cases.append(program)
    results, done = run_in_worker(cases, tmp_path_factory.mktemp("symbols"))
    assert done.returncode == 0, f"the worker died ({done.returncode}):\n{done.stderr[-2000:]}"
    for case, result in zip(cases, results):
        if case["own"]:
            assert (why := mismatch(case, result)) is None, f"{case['what']}: {why}"
        else:
            name = case["what"].rsplit("@", 1)[1]
            assert result[0] == "CompileError" and f"'@{name}'" in result[1], (case["what"], result)


# Bytecode nested deeper than text may be (which the bytecode reader and
# the printer recursed through until they overflowed their stack), of every
# kind that nests: read in a child, refused beyond MAX_NESTING_DEPTH. An
# array or a location 20,000 deep crashes the child; the other kinds are
# taken past the bound only (a tuple type 20,000 deep takes the child 50 s
# to crash, and the writer takes regions to ~6,000 only): printed, then
# refused. Shallow (every kind reads the same way): read and run.
DEEP = {"array": 20_000, "dictionary": 2_000, "type": 2_000, "location": 20_000, "region": 1_500}


def test_nested_bytecode(tmp_path):
    x = np.arange(2, dtype=np.float32)
    depths = [("array", 50), *((kind, DEEP[kind]) for kind in NESTING_KINDS)]
    cases = [{"text": nested_bytecode(kind, depth), "arrays": (x,)} for kind, depth in depths]
    results, done = run_in_worker(cases, tmp_path)
    assert done.returncode == 0, f"the worker died ({done.returncode}):\n{done.stderr[-2000:]}"
    for (kind, depth), (name, value) in zip(depths, results):
        if depth == 50:
            assert name == "ok" and np.array_equal(value, x), (kind, name, value)
        else:
            assert name == "CompileError" and value.startswith("-:0:0: error: ") and "nest" in value, (kind, value)


# .npy headers as a hostile file would write them: whatever the header
# claims, gmx-run's reader answers InputError (one line), never another
# exception.
HEADER_VALUES = st.one_of(
    st.integers(-(10**30), 10**30), st.booleans(), st.floats(allow_nan=True), st.text(max_size=3), st.none(),
)


@settings(derandomize=True, max_examples=60, deadline=None, database=None)
@given(shape=st.one_of(st.lists(HEADER_VALUES, max_size=4).map(tuple), HEADER_VALUES),
       descr=st.sampled_from(["<f4", "|b1", "<i8", "|V2", "|O", "<U3", "xx", "<f4\x00"]),
       fortran=st.one_of(st.booleans(), st.integers(0, 2)), data=st.integers(0, 64))
def test_hostile_npy_headers_are_input_errors(tmp_path_factory, shape, descr, fortran, data):
    from gmx.tools.npy_input import InputError, load_npy

    header = repr({"descr": descr, "fortran_order": fortran, "shape": shape}).encode()
    header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
    path = tmp_path_factory.mktemp("npy") / "x.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + bytes(data))
    try:
        load_npy(str(path))
    except InputError as error:
        assert "\n" not in str(error)


# A rank-0 argument given as any Python number or numpy scalar: a 0-d
# result of the argument's dtype, or a TypeError/ValueError naming it.
SCALAR_DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.float64, np.int8, np.int32, np.int64, np.bool_,
                 np.complex64]
SCALARS = st.one_of(
    st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.booleans(), st.complex_numbers(max_magnitude=1e6),
    st.builds(lambda v, t: t(v), st.integers(-100, 100), st.sampled_from([np.int8, np.int64, np.float32, np.float64])),
)


@settings(derandomize=True, max_examples=60, deadline=None, database=None)
@given(dtype=st.sampled_from(SCALAR_DTYPES), value=SCALARS)
def test_scalars_for_rank_0_arguments(dtype, value):
    from gather_programs import ELEMENT_TYPES
    from gmx.runtime import compile

    t = f"tensor<{ELEMENT_TYPES[np.dtype(dtype)]}>"
    program = compile(f"func.func @main(%x: {t}) -> {t} {{\n  return %x : {t}\n}}\n")
    with np.errstate(over="ignore"):  # 1e300 as f32 is inf, as numpy makes it
        try:
            out = program(value)
        except (TypeError, ValueError) as error:
            assert "argument #0 of @main" in str(error)
            return
        assert out.shape == () and out.dtype == np.dtype(dtype)
        assert_identical(out, np.asarray(value, dtype=dtype))


# -- tm_tensor ops whose attributes may not fit their operands ----------------
# A scan's dimension anywhere around its input's rank; scatters of every
# updates rank and dimension_map the wheel's verifier lets through (and some
# it refuses). Each must run as its reference or be a located CompileError
# naming the op (`gmx-verify-tm-tensor`): never a crash of the lowering
# (scan dimension(7): SIGSEGV) or a write past the rows (longer updates).
# In the worker, where a crash shows as a signal.

TM_BATCH = 16


def tm_tensor_case(rng) -> dict:
    """A random scan or scatter (seeded: every run tries the same ones)."""
    rank = int(rng.integers(1, 4))
    shape = tuple(int(n) for n in rng.integers(1, 5, rank))
    if rng.random() < 0.4:
        dimension = rng.integers(0, rank) if rng.random() < 0.5 else rng.choice([-2, -1, rank, rank + 1, 7])
        return scan_case(shape, int(dimension), rng)
    depth = int(rng.integers(1, rank + 1))
    dims = [int(d) for d in rng.permutation(rank)[:depth]]
    updates_rank = int(rng.integers(max(1, rank - depth + 1), rank + 2))
    first = rank - (updates_rank - 1)  # the original dim the updates' dim 1 is written along
    rows = tuple(max(1, min(shape[first + j] + int(rng.integers(-1, 2)), 4)) for j in range(updates_rank - 1))
    return scatter_case(shape, dims, (int(rng.integers(1, 4)), *rows), rng)


def scan_case(shape: tuple, dimension: int, rng) -> dict:
    """An inclusive sum scan along `dimension`; its accumulator of the shape
    the wheel's verifier accepts (the first rank - 1 dims where `dimension`
    names none)."""
    rank = len(shape)
    valid = 0 <= dimension < rank
    acc = [n for d, n in enumerate(shape) if d != dimension] if valid else list(shape[:-1])
    tx, ta = tensor_type(shape, np.float32), tensor_type(acc, np.float32)
    text = (f"func.func @main(%x: {tx}) -> {tx} {{\n"
            f"  %e = tensor.empty() : {tx}\n  %z = arith.constant 0.0 : f32\n  %a = tensor.empty() : {ta}\n"
            f"  %acc = linalg.fill ins(%z : f32) outs(%a : {ta}) -> {ta}\n"
            f"  %r:2 = tm_tensor.scan dimension({dimension}) inclusive(true) ins(%x : {tx}) outs(%e, %acc : {tx}, {ta}) {{\n"
            f"  ^bb0(%p: f32, %q: f32):\n    %s = arith.addf %p, %q : f32\n    tm_tensor.yield %s : f32\n"
            f"  }} -> {tx}, {ta}\n  return %r#0 : {tx}\n}}\n")
    x = rng.integers(-9, 9, shape).astype(np.float32)
    return {"text": text, "arrays": (x,), "op": "tm_tensor.scan", "want": np.cumsum(x, dimension) if valid else None}


def scatter_case(shape: tuple, dims: list[int], updates_shape: tuple, rng) -> dict:
    """A scatter writing `updates_shape` updates into `shape` at indices in
    range of the dims `dims` names; its reference where the shapes follow
    the scatter rule (updates of rank 1 + rank - depth, `dims` the leading
    ones, rows that fit)."""
    depth = len(dims)
    tx, tu = tensor_type(shape, np.float32), tensor_type(updates_shape, np.float32)
    ti = tensor_type((updates_shape[0], depth), np.int64)
    text = (f"func.func @main(%x: {tx}, %u: {tu}, %i: {ti}) -> {tx} {{\n"
            f"  %r = tm_tensor.scatter {{dimension_map = array<i64: {', '.join(map(str, dims))}>}} unique_indices(false) "
            f"ins(%u, %i : {tu}, {ti}) outs(%x : {tx}) {{\n"
            f"  ^bb0(%a: f32, %b: f32):\n    tm_tensor.yield %a : f32\n  }} -> {tx}\n  return %r : {tx}\n}}\n")
    x = rng.integers(-9, 9, shape).astype(np.float32)
    u = rng.integers(10, 99, updates_shape).astype(np.float32)
    i = np.stack([rng.integers(0, shape[d], updates_shape[0]) for d in dims], axis=-1)
    rows = updates_shape[1:]
    valid = (len(updates_shape) == 1 + len(shape) - depth and sorted(dims) == list(range(depth))
             and all(n <= m for n, m in zip(rows, shape[depth:])))
    want = None
    if valid:
        want = x.copy()
        for n in range(updates_shape[0]):
            lead = [0] * depth
            for j, d in enumerate(dims):
                lead[d] = i[n, j]
            want[tuple(lead) + tuple(slice(0, r) for r in rows)] = u[n]
    return {"text": text, "arrays": (x, u, i), "op": "tm_tensor.scatter", "want": want}


def test_tm_tensor_attribute_ranges(tmp_path_factory):
    rng = np.random.default_rng(30)
    # The issue's two: dimension(7) on a rank-2 scan, 3-element rows into a 3x5 tensor indexed on both dims.
    batch = [scan_case((2, 3), 7, rng), scatter_case((3, 5), [0, 1], (2, 3), rng)]
    batch += [tm_tensor_case(rng) for _ in range(TM_BATCH - len(batch))]
    results, done = run_in_worker(batch, tmp_path_factory.mktemp("tm_tensor"))
    assert done.returncode == 0, f"the worker died ({done.returncode}):\n{done.stderr[-2000:]}"
    for case, (kind, value) in zip(batch, results):
        if case["want"] is None:
            assert kind == "CompileError" and f"error: '{case['op']}' op" in value, (case["text"], kind, value)
        else:
            assert kind == "ok", (case["text"], kind, value)
            np.testing.assert_array_equal(value, case["want"], err_msg=case["text"])


# -- IREE on static shapes with a 0 dim ----------------------------------------
# Gathers over static shapes with empty dims, on the iree backend: the
# reference's result or IndexError (IREE's compiler crashed on an empty
# index report: `iree_empty_ops`).

IREE_EMPTY_BATCH = 4


@settings(derandomize=True, max_examples=1, deadline=None, database=None, phases=[Phase.explicit, Phase.generate])
@given(st.lists(fuzz_cases().map(lambda c: (*c[:5], (), (), *c[7:]))
                .filter(lambda c: 0 in c[0] or 0 in c[1]), min_size=IREE_EMPTY_BATCH, max_size=IREE_EMPTY_BATCH))
def test_static_empty_shapes_on_iree(tmp_path_factory, batch):
    pytest.importorskip("iree.runtime")
    cases = [dict(materialise(case), options={"backend": "iree"}) for case in batch]
    results, done = run_in_worker(cases, tmp_path_factory.mktemp("iree_empty"))
    assert done.returncode == 0, f"the worker died ({done.returncode}):\n{done.stderr[-2000:]}"
    problems = [(case, why) for case, result in zip(cases, results) if (why := mismatch(case, result))]
    assert not problems, "\n\n".join(f"{why}\n{describe(case)}" for case, why in problems[:3])
