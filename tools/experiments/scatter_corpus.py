"""PyTorch programs that scatter, exported by torch-mlir to TOSA,
linalg-on-tensors and StableHLO: the corpus that `--gmx-canonicalize` must
raise into `gmx.scatter_multiaxis` (tests/test_scatter_corpus.py), and that
`gmx-study --model NAME@FORM` studies (`MODELS`).

Real code, not toy calls: a GNN message-passing layer (PyG's
`scatter(..., reduce="sum"/"mean")`), a MoE layer's combine (`index_add_`
of weighted expert outputs), a decode step's KV-cache update (`index_copy_`
at a position tensor, as Hugging Face's `StaticCache`), top-k sampling masks
(`scatter` of -inf), one-hot labels and label smoothing by `scatter`,
histograms (`bincount` written as a scatter-add of ones), segment sums and
maxima, and the backward graphs of an embedding lookup and of `torch.gather`
(their gradients are scatter-adds; a function calling `torch.autograd.grad`,
exported), and a whole training step (`torch.func.grad_and_value` of a
classifier's loss and an SGD update, traced by `make_fx`: `Program.traced`).

Each `Program` gives, per form (`FORMS`), the scatters torch-mlir emits
(`SOURCE_SCATTERS`: `tosa.scatter`, `tm_tensor.scatter`, `stablehlo.scatter`) and the `gmx.scatter_multiaxis`
ops `--gmx-canonicalize` must leave, or why the form does not export
(`blocked`). Index values are in range (the corpus checks raising, not
errors) and seeded by the program's name (`corpus_base.seed`; results are
compared by `corpus_base.matches`).

    text = exported("gnn_sum", "linalg")     # cached per session; locations=True for gmx-study
    args = numpy_inputs(BY_NAME["gnn_sum"])
    want = eager(BY_NAME["gnn_sum"])
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from .corpus_base import Built, reference, seed, seeded_rng
from .dtypes import from_torch
from .frontends import OUTPUT_TYPES, torch_export


class _Deferred:
    """A module imported on first use: listing the corpus (gmx-study --help)
    imports no torch, as everywhere in this package."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute: str):
        return getattr(importlib.import_module(self._name), attribute)


torch, F = _Deferred("torch"), _Deferred("torch.nn.functional")

# torch-mlir's output types, by the corpus's form names
FORMS = {form: OUTPUT_TYPES[form] for form in ("tosa", "linalg", "stablehlo")}
SOURCE_SCATTERS = {"tosa": "tosa.scatter", "linalg": "tm_tensor.scatter", "stablehlo": "stablehlo.scatter"}

# Why a form does not export (torch-mlir 20261001's TorchToTosa has no lowering of these)
NO_TOSA_ACCUMULATE = "TorchToTosa has no lowering of an accumulating scatter (scatter_add, index_add, index_put with accumulate)"
NO_TOSA_REDUCE = "TorchToTosa has no lowering of scatter_reduce"
NO_TOSA_INDEX_COPY = ("TorchToTosa cannot legalize the index_put.hacked_twin of index_copy along a later dim "
                      "(an index list with leading None entries)")
# torch-mlir 20261001's TorchToStablehlo
NO_STABLEHLO_LITERAL = ("TorchToStablehlo cannot legalize the torch.vtensor.literal of scatter_reduce's "
                        "initial tensor (failed to legalize operation 'torch.vtensor.literal')")


@dataclass(frozen=True)
class Form:
    scatters: int  # tosa.scatter / tm_tensor.scatter ops in the export
    gmx_ops: int  # gmx.scatter_multiaxis ops after --gmx-canonicalize
    blocked: str = ""  # why torch-mlir cannot export the program in this form
    not_yet: dict = field(default_factory=dict)  # check -> why it fails today (a strict xfail)


@dataclass(frozen=True)
class Program:
    name: str
    what: str
    forward: Callable
    make_inputs: Callable[[], tuple]
    forms: dict = field(default_factory=dict)  # form -> Form
    tolerance: float = 0.0  # 0: bit for bit (no float reduction meets duplicates)
    fast: bool = False  # in the suite's fast subset (the rest: GMX_FULL_CORPUS=1)
    # a torch.func program (grad_and_value): traced to aten ops by make_fx
    # first, since torch.export cannot export torch.func's transforms
    traced: bool = False


def _generator(name: str) -> torch.Generator:
    return torch.Generator().manual_seed(seed(name))


CORPUS: list[Program] = []


def add(name, what, forward, make_inputs, *, tosa: Form, linalg: Form, stablehlo: Form, tolerance=0.0, fast=False,
        traced=False):
    assert all(p.name != name for p in CORPUS), name
    CORPUS.append(Program(name, what, forward, lambda: make_inputs(_generator(name)),
                          {"tosa": tosa, "linalg": linalg, "stablehlo": stablehlo}, tolerance, fast, traced))


def _floats(g, *shape):
    return torch.randn(*shape, generator=g)


def _ints(g, high, *shape):
    return torch.randint(0, high, shape, generator=g)


# --- GNN message passing (PyG's MessagePassing with aggr="add" / "mean") ---------------------------------


def _pyg_scatter(src, index, dim_size, reduce):
    """torch_geometric.utils.scatter along dim 0: the index broadcast over the
    feature dim, then scatter_add_ (sum) or scatter_reduce_ (mean)."""
    index = index.view(-1, 1).expand_as(src)
    out = torch.zeros(dim_size, src.size(1), dtype=src.dtype)
    if reduce == "sum":
        return out.scatter_add_(0, index, src)
    return out.scatter_reduce_(0, index, src, "mean", include_self=False)


def _gnn_layer(reduce):
    def forward(x, edge_index, weight):
        source, destination = edge_index[0], edge_index[1]
        messages = (x @ weight)[source]  # gather by edge source
        return torch.relu(_pyg_scatter(messages, destination, x.size(0), reduce))

    return forward


def _graph(g):
    return _floats(g, 6, 4), _ints(g, 6, 2, 10), _floats(g, 4, 4)


add("gnn_sum", "PyG-style message passing, messages scatter-added into their destinations",
    _gnn_layer("sum"), _graph, tolerance=1e-6, fast=True,
    tosa=Form(0, 0, NO_TOSA_ACCUMULATE), linalg=Form(1, 1), stablehlo=Form(1, 1))
add("gnn_mean", "PyG-style message passing, mean aggregation (scatter_reduce mean, include_self=False)",
    _gnn_layer("mean"), _graph, tolerance=1e-6,
    tosa=Form(0, 0, NO_TOSA_REDUCE), linalg=Form(4, 2),  # the sum's and the counts' resets folded
    stablehlo=Form(0, 0, NO_STABLEHLO_LITERAL))


# --- MoE combine -------------------------------------------------------------------------------------------


def _moe_combine(hidden, expert_out, token_index, gate):
    """Mixtral-style combine: each expert's outputs, weighted by the router's
    gate, index_add_-ed back onto the tokens they came from."""
    weighted = expert_out * gate[:, None]
    return torch.zeros_like(hidden).index_add_(0, token_index, weighted)


add("moe_combine", "a MoE layer's combine: weighted expert outputs index_add_-ed onto their tokens",
    _moe_combine, lambda g: (_floats(g, 5, 4), _floats(g, 8, 4), _ints(g, 5, 8), torch.rand(8, generator=g)),
    tolerance=1e-6, tosa=Form(0, 0, NO_TOSA_ACCUMULATE), linalg=Form(1, 1), stablehlo=Form(1, 1))


# --- KV cache update ---------------------------------------------------------------------------------------


def _kv_cache_update(key_cache, value_cache, key, value, cache_position):
    """Hugging Face StaticCache.update: the new keys and values copied into
    the caches at `cache_position` along the sequence dim."""
    key_cache = key_cache.index_copy(2, cache_position, key)
    value_cache = value_cache.index_copy(2, cache_position, value)
    return key_cache, value_cache


add("kv_cache_update", "a decode step's StaticCache update: index_copy at the cache positions",
    _kv_cache_update,
    lambda g: (_floats(g, 1, 2, 8, 4), _floats(g, 1, 2, 8, 4), _floats(g, 1, 2, 1, 4), _floats(g, 1, 2, 1, 4),
               torch.tensor([5])),
    fast=True, tosa=Form(0, 0, NO_TOSA_INDEX_COPY), linalg=Form(2, 2), stablehlo=Form(2, 2))


# --- sampling masks, labels --------------------------------------------------------------------------------


def _top_k_mask(logits, removed):
    """HF TopKLogitsWarper's effect: the tokens outside the top k (their
    indices given) set to -inf by a scatter."""
    return logits.scatter(1, removed, float("-inf"))


add("top_k_mask", "top-k sampling: the tokens outside the top k scattered to -inf",
    _top_k_mask, lambda g: (_floats(g, 2, 10), torch.stack([torch.randperm(10, generator=g)[:6] for _ in range(2)])),
    fast=True, tosa=Form(1, 1), linalg=Form(1, 1), stablehlo=Form(1, 1))


def _one_hot(labels):
    return torch.zeros(labels.size(0), 7).scatter_(1, labels[:, None], 1.0)


def _label_smoothing(logits, labels):
    """Smoothed targets (eps spread over the other classes) and the loss."""
    eps, classes = 0.1, logits.size(1)
    target = torch.full_like(logits, eps / (classes - 1)).scatter_(1, labels[:, None], 1.0 - eps)
    return -(target * F.log_softmax(logits, dim=1)).sum(dim=1).mean()


add("one_hot", "one-hot labels by scatter_", _one_hot, lambda g: (_ints(g, 7, 6),),
    tosa=Form(1, 1), linalg=Form(1, 1), stablehlo=Form(1, 1))
add("label_smoothing", "label smoothing: targets by scatter_, cross-entropy against them",
    _label_smoothing, lambda g: (_floats(g, 6, 7), _ints(g, 7, 6)), tolerance=1e-6,
    tosa=Form(1, 1), linalg=Form(1, 1), stablehlo=Form(1, 1))


# --- histograms, segments ----------------------------------------------------------------------------------


def _histogram(values):
    """bincount over 8 bins, written as torch code that exports: a scatter-add of ones."""
    bins = torch.clamp((values * 4 + 4).long(), 0, 7)
    return torch.zeros(8).scatter_add_(0, bins, torch.ones_like(values))


def _segment_sum(data, segment_ids):
    return torch.zeros(4, data.size(1)).index_add_(0, segment_ids, data)


def _segment_min_exclusive(data, segment_ids):
    """PyG's scatter(..., reduce="min"): the minimum of each segment's rows
    alone (include_self=False), an empty segment keeping its 0."""
    index = segment_ids[:, None].expand_as(data)
    return torch.zeros(4, data.size(1)).scatter_reduce(0, index, data, "amin", include_self=False)


def _segment_max(data, segment_ids):
    index = segment_ids[:, None].expand_as(data)
    return torch.full((4, data.size(1)), float("-inf")).scatter_reduce(0, index, data, "amax")


add("histogram", "a histogram of 8 bins: a scatter-add of ones at each value's bin", _histogram,
    lambda g: (torch.rand(20, generator=g) * 2 - 1,), tosa=Form(0, 0, NO_TOSA_ACCUMULATE), linalg=Form(1, 1),
    stablehlo=Form(1, 1))
add("segment_sum", "segment sums (index_add_ of rows by segment id)", _segment_sum,
    lambda g: (_floats(g, 9, 3), _ints(g, 4, 9)), tolerance=1e-6,
    tosa=Form(0, 0, NO_TOSA_ACCUMULATE), linalg=Form(1, 1), stablehlo=Form(1, 1))
add("segment_max", "segment maxima (scatter_reduce amax)", _segment_max,
    lambda g: (_floats(g, 9, 3), _ints(g, 4, 9)),
    tosa=Form(0, 0, NO_TOSA_REDUCE), linalg=Form(1, 1),
    stablehlo=Form(0, 0, NO_STABLEHLO_LITERAL))
add("segment_min_exclusive", "segment minima of the rows alone (scatter_reduce amin, include_self=False)",
    _segment_min_exclusive, lambda g: (_floats(g, 9, 3), _ints(g, 4, 9)), fast=True,
    tosa=Form(0, 0, NO_TOSA_REDUCE), linalg=Form(2, 1),  # the identity's reset folded
    stablehlo=Form(0, 0, NO_STABLEHLO_LITERAL))


# --- training steps: backward graphs -----------------------------------------------------------------------


def _gradient(loss):
    """The training step's backward: the gradient of `loss` with respect to its
    first input, by `torch.autograd.grad` (torch.export traces the joint
    graph; an embedding's or a gather's backward is a scatter-add).
    `torch.func.grad` does not export (torch-mlir: "Cannot access storage of
    TensorWrapper")."""

    def forward(first, *rest):
        with torch.enable_grad():
            first = first.detach().requires_grad_()
            return torch.autograd.grad(loss(first, *rest), first)[0]

    return forward


def _embedding_loss(weight, ids, upstream):
    return (F.embedding(ids, weight) * upstream).sum()


def _gather_loss(x, index, upstream):
    return (torch.gather(x, 1, index) * upstream).sum()


add("embedding_backward", "the gradient of an embedding lookup: a scatter-add of the upstream rows",
    _gradient(_embedding_loss), lambda g: (_floats(g, 10, 4), _ints(g, 10, 2, 3), _floats(g, 2, 3, 4)),
    tolerance=1e-6, fast=True, tosa=Form(0, 0, NO_TOSA_ACCUMULATE), linalg=Form(1, 1), stablehlo=Form(1, 1))
add("gather_backward", "the gradient of torch.gather along dim 1: a scatter-add", _gradient(_gather_loss),
    lambda g: (_floats(g, 3, 5), _ints(g, 5, 3, 4), _floats(g, 3, 4)), tolerance=1e-6,
    tosa=Form(0, 0, NO_TOSA_ACCUMULATE), linalg=Form(1, 1), stablehlo=Form(1, 1))



def _classifier_loss(embedding, weight, bias, ids, target):
    """A bag-of-embeddings classifier's cross-entropy: each bag's mean embedding through a linear layer."""
    logits = F.linear(F.embedding(ids, embedding).mean(1), weight, bias)
    return F.cross_entropy(logits, target)


LEARNING_RATE = 0.1


def _training_step(embedding, weight, bias, ids, target):
    """One SGD step of the classifier: the loss, and each parameter less its
    gradient (torch.func.grad_and_value: the embedding's gradient is a
    scatter-add of its rows' gradients, cross-entropy's a scatter of -1/B at the targets)."""
    grads, loss = torch.func.grad_and_value(_classifier_loss, argnums=(0, 1, 2))(embedding, weight, bias, ids, target)
    return (loss, *(p - LEARNING_RATE * g for p, g in zip((embedding, weight, bias), grads)))


add("training_step", "a whole training step: embedding bags, linear, cross-entropy, gradients, SGD update",
    _training_step,
    lambda g: (_floats(g, 1000, 32), _floats(g, 10, 32), _floats(g, 10), _ints(g, 1000, 64, 16), _ints(g, 10, 64)),
    tolerance=1e-5, traced=True, tosa=Form(0, 0, NO_TOSA_ACCUMULATE), linalg=Form(2, 2), stablehlo=Form(2, 2))

BY_NAME: dict = {p.name: p for p in CORPUS}
# gmx-study --model's names: `NAME@FORM` -> (program, form), every form (a
# blocked one is studied to its export's error)
MODELS: dict = {f"{p.name}@{form}": (p, form) for p in CORPUS for form in p.forms}


# --- export and reference -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def exported(name: str, form: str, locations: bool = False) -> str:
    """The program as torch-mlir exports it in `form` (cached per session),
    with its source locations if `locations` (raises FrontendError)."""
    program = BY_NAME[name]
    inputs, forward = program.make_inputs(), program.forward
    if program.traced:
        from torch.fx.experimental.proxy_tensor import make_fx

        forward = make_fx(forward, record_stack_traces=True)(*inputs)
    return torch_export(forward, inputs, output_type=FORMS[form], locations=locations)


def numpy_inputs(program: Program) -> tuple:
    return tuple(from_torch(t) for t in program.make_inputs())


def eager(program: Program) -> tuple:
    """PyTorch eager results, as a tuple of numpy arrays."""
    out = program.forward(*program.make_inputs())
    outs = out if isinstance(out, tuple) else (out,)
    return tuple(from_torch(t.detach()) for t in outs)


# --- ONNX models (torch-mlir's ONNX importer) -----------------------------------------------------------
#
# One-node models of ONNX's scatters, built with onnx.helper (opset 18, which
# has every reduction), imported by torch-mlir's ONNX importer
# (`frontends.onnx_import`) into each of its output types. The importer
# spells ScatterElements as `aten.scatter` / `scatter_reduce` behind ONNX's
# negative-index `where(i < 0, i + n, i)`; ScatterND as the same on the
# input flattened to its indexed dims (the tuple's coordinates, each
# normalised, linearised). Indices hold negative values (valid in ONNX), so
# the fold of the `where` into the gmx op is checked by running. The
# reference is ONNX's own `onnx.reference.ReferenceEvaluator`.

ONNX_SOURCE_SCATTERS = {**SOURCE_SCATTERS, "stablehlo": "stablehlo.scatter"}
ONNX_OPSET = 18

# Why a form does not import (torch-mlir 20261001)
NO_ONNX_MAX_MIN = ("torch-mlir's ONNX importer has no conversion of ScatterElements with reduction max or min "
                   "(onnx.ScatterElements stays a torch.operator)")
NO_ONNX_TOSA_REDUCE = "TorchToTosa has no lowering of the scatter_reduce the importer makes of a reduction"
NO_ONNX_STABLEHLO_REDUCE = ("TorchToStablehlo leaves the include_self constant (torch.constant.bool) of the "
                            "importer's scatter_reduce unconverted")
# Why a raised form keeps index arithmetic
STABLEHLO_FLAT_SKIP = ("StableHLO's scatter on the flattened input skips a flat index outside it, not a coordinate "
                       "outside its dim (the tuple (0, 7) of a 4x5 input writes (1, 2)): split into two axes in "
                       "mode drop, the raised scatter would skip it; the linearisation stays")


@dataclass(frozen=True)
class OnnxProgram:
    name: str
    what: str
    op_type: str
    attributes: dict
    shapes: tuple  # (input, indices, updates)
    indices: tuple  # the index values (negative ones included), nested lists
    forms: dict  # form -> Form
    tolerance: float = 0.0
    fast: bool = False


ONNX_CORPUS: list[OnnxProgram] = []


def add_onnx(name, what, op_type, attributes, shapes, indices, *, tosa: Form, linalg: Form, stablehlo: Form,
             tolerance=0.0, fast=False):
    assert all(p.name != name for p in ONNX_CORPUS), name
    ONNX_CORPUS.append(OnnxProgram(name, what, op_type, attributes, shapes, indices,
                                   {"tosa": tosa, "linalg": linalg, "stablehlo": stablehlo}, tolerance, fast))


def _reductions_blocked(reduction: str) -> dict:
    """The forms a ScatterElements / ScatterND reduction imports into, as Forms of one scatter."""
    if reduction == "none":
        return {"tosa": Form(1, 1), "linalg": Form(1, 1), "stablehlo": Form(1, 1)}
    return {"tosa": Form(0, 0, NO_ONNX_TOSA_REDUCE), "linalg": Form(1, 1),
            "stablehlo": Form(0, 0, NO_ONNX_STABLEHLO_REDUCE)}


for _reduction in ("none", "add", "mul", "max", "min"):
    _float_sum = 1e-6 if _reduction in ("add", "mul") else 0.0
    _forms = _reductions_blocked(_reduction)
    if _reduction in ("max", "min"):
        _forms = {form: Form(0, 0, NO_ONNX_MAX_MIN) for form in _forms}
    # axis 1: two columns per row, each row's once (a set: no duplicates where the last would win)
    add_onnx(f"onnx_scatter_elements_{_reduction}_axis1", f"ScatterElements axis 1, reduction {_reduction}, "
             "negative indices", "ScatterElements", {"axis": 1, "reduction": _reduction}, ((3, 5), (3, 2), (3, 2)),
             ((1, -1), (-5, 2), (4, -3)), tolerance=_float_sum, fast=_reduction in ("none", "add"), **_forms)
    # axis 0: rows met twice (duplicates) where a reduction combines them
    _rows = ((0, -1, 2, 1, -4), (-3, 3, 0, 1, 2)) if _reduction != "none" else ((0, -1, 2, 1, -4), (-3, 2, 0, 2, 1))
    add_onnx(f"onnx_scatter_elements_{_reduction}_axis0", f"ScatterElements axis 0, reduction {_reduction}, "
             "negative indices", "ScatterElements", {"axis": 0, "reduction": _reduction}, ((4, 5), (2, 5), (2, 5)),
             _rows, tolerance=_float_sum, **_forms)
    _forms = _reductions_blocked(_reduction)
    if _reduction in ("max", "min"):
        _forms = {**_forms, "tosa": Form(0, 0, NO_ONNX_TOSA_REDUCE)}
    add_onnx(f"onnx_scatter_nd_{_reduction}_rows", f"ScatterND of rows, reduction {_reduction}, negative indices",
             "ScatterND", {"reduction": _reduction}, ((4, 5), (3, 1), (3, 5)),
             ((-1,), (0,), (2,)) if _reduction == "none" else ((-1,), (0,), (3,)), tolerance=_float_sum,
             fast=_reduction == "max", **_forms)
    if not _forms["stablehlo"].blocked:
        _forms = {**_forms, "stablehlo": Form(1, 1, not_yet={"raised": STABLEHLO_FLAT_SKIP})}
    add_onnx(f"onnx_scatter_nd_{_reduction}_elements", f"ScatterND of elements, reduction {_reduction}, "
             "negative indices", "ScatterND", {"reduction": _reduction}, ((4, 5), (3, 2), (3,)),
             ((-1, 2), (0, -5), (2, 4)) if _reduction == "none" else ((-1, 2), (0, -5), (3, 2)),
             tolerance=_float_sum, fast=_reduction == "none", **_forms)

ONNX_BY_NAME: dict = {p.name: p for p in ONNX_CORPUS}


def onnx_scatter_model(program: OnnxProgram, indices=None):
    """The program's one-node ONNX model (graph `main`: x, indices, updates -> out)."""
    from .frontends import onnx_graph_model

    (x, i, u) = program.shapes
    inputs = [("x", "f32", x), ("indices", "i64", i), ("updates", "f32", u)]
    return onnx_graph_model([(program.op_type, ["x", "indices", "updates"], ["out"], program.attributes)],
                            inputs, ("f32", x), opset=ONNX_OPSET)


def onnx_inputs(program: OnnxProgram) -> tuple:
    """(x, indices, updates) as numpy arrays, the updates and input seeded by the name."""
    import numpy as np

    rng = seeded_rng(program.name)
    x_shape, i_shape, u_shape = program.shapes
    indices = np.array(program.indices, dtype=np.int64).reshape(i_shape)
    return (rng.standard_normal(x_shape).astype(np.float32), indices,
            rng.standard_normal(u_shape).astype(np.float32))


@functools.lru_cache(maxsize=None)
def onnx_exported(name: str, form: str) -> str:
    """The model as torch-mlir's ONNX importer and pipeline make it in `form` (cached per session)."""
    from .frontends import onnx_import

    return onnx_import(onnx_scatter_model(ONNX_BY_NAME[name]), FORMS[form])


def onnx_reference(program: OnnxProgram, *arrays) -> tuple:
    """ONNX's reference evaluator on the model (the program's inputs, or `arrays`)."""
    return reference(Built(onnx_scatter_model(program), tuple(arrays or onnx_inputs(program))))
