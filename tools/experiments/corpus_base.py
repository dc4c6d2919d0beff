"""The machinery of the real-program corpora: the contract of an entry,
what checks it, and the building blocks its program is made of. The
entries are per op: `models` (the gathers), `scatter_corpus` (the
scatters, which share the seeds, the reference and the comparison).

A gather entry is a `RealProgram`: a `build` giving the program at its
example inputs (`Built`: a torch.nn.Module or an onnx.ModelProto, numpy
arrays), exported the one way (`export`, through `frontends`), run against
its reference (`reference`: eager PyTorch or ONNX's reference evaluator,
compared by `matches`), with what `--gmx-canonicalize` must make of its
gathers (`fusion_problems`). Each entry states:
- `gathers`: the gathers in the source as its form spells them
  (`source_gathers`: `tosa.gather`, `stablehlo.gather`, an element read
  in a `linalg.generic`);
- `gmx_ops`: the `gmx.gather_multiaxis` ops `--gmx-canonicalize` must
  leave; the difference are gathers that rightly become slices or views
  (`views` says which: a gather at `arange(T)` positions is a slice);
- `tolerance`: 0 for programs that only move data (bit-exact), else the
  float tolerance `|got - want| <= tolerance * (1 + |want|)` of the
  float math around the gathers (LLVM's and PyTorch's kernels differ in
  rounding);
- `kept`: index arithmetic the user wrote, which stays in front of a gmx op
  (`linearisation_left` allows it);
- `blocked`: checks that fail today, each with what blocks it (`CHECKS`).

An entry is registered in one form (`entry`, TOSA) or once per form as
`NAME@FORM` (`entries_per_form`, each form's expectations a `Form`), the
forms sharing one build. A program's inputs are seeded by its name
(`seed`), so each entry's inputs are its own and the same on every run.
Hugging Face models are built from small configs with random weights
(`hf_program`: `torch.manual_seed(0)`, vocab VOCAB, hidden HIDDEN),
never downloaded; torch programs (`torch_program`) are a forward and
its parts (weights, layers); ONNX models (`onnx_program`) are built with
`onnx.helper`.
"""

from __future__ import annotations

import functools
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .dtypes import from_torch, to_torch
from .frontends import OUTPUT_TYPES, named_forward, onnx_to_tosa, torch_export, torch_module

# What must hold of a program, in order: `export` (the frontend makes its
# TOSA), `fused` (gmx_ops gmx ops, no tosa.gather, no linearisation in front
# of a gmx op and no view of its data left, no warning) and `runs` (the
# whole module through gmx.runtime equals the reference).
CHECKS = ("export", "fused", "runs")
# How a program is exported (`RealProgram.form`): torch-mlir's three output
# forms of a torch program; an ONNX model is TOSA from torch-mlir's importer.
FORMS = ("tosa", "linalg", "stablehlo", "onnx")
# What a gather of the source is, per form (`source_gathers`).
SOURCE_GATHERS = {
    "tosa": ("tosa.gather",),
    "onnx": ("tosa.gather",),
    "stablehlo": ("stablehlo.gather", "stablehlo.dynamic_gather", "stablehlo.torch_index_select"),
    "linalg": ("tensor.extract", "tensor.gather"),
}
VOCAB, HIDDEN, HEADS, SEQ, BATCH = 64, 16, 2, 8, 2
MODEL_TOLERANCE = 1e-4  # float math of a whole model: attention, norms, GELU
# `views` reasons the entries share: source gathers that fold away, or a sorting network's many
MASK = "the causal mask's 4 gathers (create_causal_mask) are on constants and fold away"
TOPK = "torch.topk's lowering gathers {} times (a sorting network), each a gmx op"


@dataclass(frozen=True)
class Built:
    """A program at its example inputs: a torch.nn.Module or an
    onnx.ModelProto (graph `main`), and numpy arrays."""

    program: object
    inputs: tuple[np.ndarray, ...]

    @property
    def is_onnx(self) -> bool:
        return not _is_torch_module(self.program)


@dataclass(frozen=True)
class RealProgram:
    name: str
    family: str
    what: str  # the program, in one line
    build: Callable[[], Built]
    gathers: int  # tosa.gather ops in the export
    gmx_ops: int  # gmx.gather_multiaxis ops after --gmx-canonicalize
    views: str = ""  # which source gathers rightly become slices or views
    tolerance: float = 0.0  # 0: bit-exact
    kept: tuple = ()  # ((op name, count), ...) of user index arithmetic in front of gmx ops
    blocked: dict = field(default_factory=dict)  # check -> what blocks it
    # The program's own reshape of a computed tensor that a gmx op reads (why,
    # or ""): a view of data that is not a weight, not the frontend's flattening
    data_view: str = ""
    form: str = "tosa"  # how it is exported: a key of FORMS
    # checked by the test suite on every run; the others (whole models in a
    # second and third form, each a JIT compile of seconds) with GMX_FULL_CORPUS=1
    in_suite: bool = True

    def __repr__(self) -> str:
        return f"RealProgram({self.name})"


@dataclass(frozen=True)
class Form:
    """What one form of a program must give (RealProgram's fields of the same names)."""

    gathers: int
    gmx_ops: int
    views: str = ""
    kept: dict = field(default_factory=dict)
    blocked: dict = field(default_factory=dict)
    data_view: str = ""
    suite: bool = True  # RealProgram.in_suite


def entry(name, family, what, builder, gathers, gmx_ops, views="", tolerance=0.0, kept=None, blocked=None,
          data_view="") -> RealProgram:
    """The entry of a program in TOSA, `builder(name)` its build."""
    return RealProgram(name, family, what, functools.partial(builder, name), gathers, gmx_ops, views,
                       tolerance, tuple(sorted((kept or {}).items())), dict(blocked or {}), data_view)


def entries_per_form(name, family, what, builder, tolerance=0.0, **forms: Form) -> list[RealProgram]:
    """`name@form` for each form: one build shared by all of them."""
    build = functools.cache(functools.partial(builder, name))
    entries = []
    for form, expected in forms.items():
        assert form in FORMS, form
        entries.append(RealProgram(
            f"{name}@{form}", family, what, build, expected.gathers, expected.gmx_ops, expected.views, tolerance,
            tuple(sorted(expected.kept.items())), dict(expected.blocked), expected.data_view, form, expected.suite))
    return entries


# --- export, reference, checks -----------------------------------------------------


def _is_torch_module(program) -> bool:
    torch = sys.modules.get("torch")  # a torch module's program has imported it
    return torch is not None and isinstance(program, torch.nn.Module)


def export(built: Built, *, form: str = "tosa", locations: bool = False) -> str:
    """The program in `form` (FORMS; an ONNX model is always TOSA from its
    importer), through the one export helper, with its source locations if
    `locations` (raises FrontendError)."""
    if built.is_onnx:
        return onnx_to_tosa(built.program, locations=locations)
    return torch_export(built.program, built.inputs, output_type=OUTPUT_TYPES[form], locations=locations)


def source_gathers(module, form: str) -> int:
    """The gathers of `module` (an ir.Module) as `form` spells them (SOURCE_GATHERS);
    in linalg-on-tensors, one element read (`tensor.extract`) in a generic's body each."""
    from gmx.dialect.mlir import ir

    wanted = SOURCE_GATHERS[form]
    found = 0

    def visit(op):
        nonlocal found
        if op.name in wanted and (form != "linalg" or op.parent.name == "linalg.generic"):
            found += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def reference(built: Built) -> tuple[np.ndarray, ...]:
    """The expected results: eager PyTorch, or ONNX's reference evaluator."""
    if built.is_onnx:
        from onnx.reference import ReferenceEvaluator

        names = [i.name for i in built.program.graph.input]
        return tuple(ReferenceEvaluator(built.program).run(None, dict(zip(names, built.inputs))))
    import torch

    with torch.no_grad():
        results = built.program(*[to_torch(a) for a in built.inputs])
    results = results if isinstance(results, tuple) else (results,)
    return tuple(from_torch(r) for r in results)


def matches(got, want: tuple[np.ndarray, ...], tolerance: float) -> str | None:
    """None when `got` (a gmx.runtime result) equals `want` (bit for bit, or
    within `tolerance`), else what differs."""
    got = got if isinstance(got, tuple) else (got,)
    if len(got) != len(want):
        return f"{len(got)} results, expected {len(want)}"
    for n, (g, w) in enumerate(zip(got, want)):
        if g.dtype != w.dtype or g.shape != w.shape:
            return f"result {n}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        if tolerance == 0 and not np.array_equal(g, w):
            return f"result {n}: {int(np.sum(g != w))} of {w.size} elements differ (bit-exact expected)"
        if tolerance and not np.all(np.abs(g - w) <= tolerance * (1 + np.abs(w))):
            return f"result {n}: max |difference| {float(np.max(np.abs(g - w))):.3g} over tolerance {tolerance}"
    return None


def fusion_problems(program: RealProgram, fused_text: str) -> list[str]:
    """What keeps `fused_text` (the export after --gmx-canonicalize) from
    being fully fused: a gmx op count other than `program.gmx_ops`, a
    gather of the source form left (`source_gathers`), linearisation in front of a gmx op beyond
    `program.kept`, a view of a gmx op's data left (gather_sites), a
    `stablehlo.scatter` left (raise-stablehlo-scatter raises every one the corpus has)."""
    from gmx.dialect import OP_NAME, make_context
    from gmx.dialect.mlir import ir

    from .sites import gather_sites, linearisation_left
    from .pipelines import count_ops

    with make_context():
        module = ir.Module.parse(fused_text)
        counts, sites = count_ops(module), gather_sites(module)
        gathers_left = source_gathers(module, program.form)
    problems = []
    if counts[OP_NAME] != program.gmx_ops:
        problems.append(f"{counts[OP_NAME]} {OP_NAME} ops, expected {program.gmx_ops}")
    if gathers_left:
        problems.append(f"{gathers_left} of the {program.form} form's gathers left ({', '.join(SOURCE_GATHERS[program.form])})")
    left = linearisation_left(sites, dict(program.kept))
    if left:
        problems.append(f"linearisation in front of a gmx op: {left}")
    if counts["stablehlo.scatter"]:
        problems.append(f"{counts['stablehlo.scatter']} stablehlo.scatter left")
    views = [s.line for s in sites if s.data_reshapes]
    if views and not program.data_view:
        problems.append(f"views of the data in front of the gmx op at {', '.join(views)}")
    return problems


# --- inputs, seeded by the program's name --------------------------------------------


def seed(name: str) -> int:
    """The seed of everything random that `name` (a program, or one of its inputs) is made of."""
    return zlib.crc32(name.encode())


def seeded_rng(name: str) -> np.random.Generator:
    return np.random.default_rng(seed(name))


def random_ids(name: str, *shape, high: int = VOCAB) -> np.ndarray:
    return seeded_rng(name).integers(0, high, shape, dtype=np.int64)


def random_floats(name: str, *shape) -> np.ndarray:
    return seeded_rng(name).standard_normal(shape).astype(np.float32)


def inputs(*makers):
    """The inputs of a program named `name`: input n made by `makers[n]("name/n")`."""
    return lambda name: tuple(make(f"{name}/{n}") for n, make in enumerate(makers))


def index(*shape, high):
    return lambda name: random_ids(name, *shape, high=high)


def data(*shape):
    return lambda name: random_floats(name, *shape)


def uniform(*shape):
    return lambda name: seeded_rng(name).uniform(0.05, 0.95, shape).astype(np.float32)


# --- programs: Hugging Face models, torch programs, ONNX models ------------------------


def _module(forward: Callable, **parts):
    """A torch.nn.Module holding `parts` (modules or tensors, so that
    torch.export sees their weights) whose forward is `forward(self, *args)`."""
    import torch

    class Program(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for key, part in parts.items():
                if isinstance(part, torch.nn.Module):
                    self.add_module(key, part)
                else:
                    self.register_buffer(key, part)

    Program.forward = named_forward(forward)  # its ops' locations name the program's lines
    return Program().eval()


def hf_program(model_class: str, config_class: str, output: Callable, make_inputs: Callable[[str], tuple] | None = None,
               **config) -> Callable[[], Built]:
    """A tiny Hugging Face model with random weights, run on (BATCH, SEQ) ids
    (or on `make_inputs(name)`), `output(model, *inputs)` its result."""

    def build(name: str) -> Built:
        import torch
        import transformers

        torch.manual_seed(0)
        settings = {"bos_token_id": 0, "eos_token_id": 1, "pad_token_id": 2, **config}
        cfg = getattr(transformers, config_class)(**settings)
        model = getattr(transformers, model_class)(cfg).eval()
        # A closure, not a submodule: torch-mlir's importer finds no state
        # for non-persistent buffers (position_ids, rotary inv_freq) of a
        # submodule; captured, the weights are constants of the export.
        example = make_inputs(name) if make_inputs else (random_ids(name, BATCH, SEQ),)
        return Built(torch_module(lambda *args: output(model, *args)), example)

    return build


# Which output of a Hugging Face model is the program's result (`hf_program`'s `output`)


def hf_logits(model, ids):
    return model(input_ids=ids, use_cache=False).logits


def hf_logits_no_cache_arg(model, ids):
    return model(input_ids=ids).logits


def hf_hidden(model, ids):
    return model(input_ids=ids).last_hidden_state


def hf_hidden_no_cache(model, ids):
    return model(input_ids=ids, use_cache=False).last_hidden_state


def hf_pooled(model, ids):
    return model(input_ids=ids).pooler_output


def torch_program(forward: Callable, make_inputs: Callable[[str], tuple], **parts) -> Callable[[], Built]:
    """A torch.nn.Module whose forward is `forward(self, *inputs)`, holding
    `parts` (made at build, after `torch.manual_seed(0)`, where callable)."""

    def build(name: str) -> Built:
        import torch

        torch.manual_seed(0)
        made = {k: (v() if callable(v) else v) for k, v in parts.items()}
        return Built(_module(forward, **made), make_inputs(name))

    return build


def linear_part(n_in: int, n_out: int):
    def make():
        import torch

        return torch.nn.Linear(n_in, n_out)

    return make


def embedding_part(n: int, d: int):
    def make():
        import torch

        return torch.nn.Embedding(n, d)

    return make


def weights_part(*shape):
    def make():
        import torch

        return torch.randn(*shape)

    return make


def onnx_program(nodes, inputs, outputs, initializers=()) -> object:
    """An ONNX model (graph `main`, opset 17) of `nodes` (onnx.helper nodes):
    `inputs` and `outputs` are (name, (numpy dtype, shape)), `initializers`
    (name, array)."""
    from onnx import TensorProto, helper, numpy_helper

    types = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}

    def value(name, array_or_spec):
        dtype, shape = array_or_spec
        return helper.make_tensor_value_info(name, types[np.dtype(dtype)], list(shape))

    graph = helper.make_graph(
        nodes, "main", [value(n, s) for n, s in inputs], [value(n, s) for n, s in outputs],
        [numpy_helper.from_array(a, n) for n, a in initializers],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
