"""The real-program corpus: whole models and programs as users write them,
each exported the one way (`frontends`), with what `--gmx-canonicalize`
must make of its gathers.

    program = MODELS["gpt2_lm"]
    built = program.build()            # the torch module or ONNX model, example inputs
    text = export(built, form=program.form)   # frontends.torch_export / onnx_to_tosa
    want = reference(built)            # eager PyTorch / onnx.reference, a tuple of arrays

Hugging Face models are built from small configs with random weights
(`torch.manual_seed(0)`, vocab 64, hidden 16, one layer, two heads, eager
attention), never downloaded. ONNX models are built with `onnx.helper`.

The first corpus is TOSA. The second is registered once per form as
`NAME@FORM` (`_add_forms`): torch-mlir's TOSA, linalg-on-tensors and
StableHLO exports of each torch program, an ONNX model through torch-mlir's
importer; the forms of a program share its build. `in_suite` marks what
the test suite checks on every run (GMX_FULL_CORPUS=1: everything).

Each entry states:
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


# --- building blocks -------------------------------------------------------------


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def _ids(name: str, *shape, high: int = VOCAB) -> np.ndarray:
    return _rng(name).integers(0, high, shape, dtype=np.int64)


def _floats(name: str, *shape) -> np.ndarray:
    return _rng(name).standard_normal(shape).astype(np.float32)


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


def _hf(model_class: str, config_class: str, output: Callable, make_inputs: Callable[[str], tuple] | None = None,
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
        inputs = make_inputs(name) if make_inputs else (_ids(name, BATCH, SEQ),)
        return Built(torch_module(lambda *args: output(model, *args)), inputs)

    return build


def _logits(model, ids):
    return model(input_ids=ids, use_cache=False).logits


def _logits_no_cache_arg(model, ids):
    return model(input_ids=ids).logits


def _hidden(model, ids):
    return model(input_ids=ids).last_hidden_state


def _hidden_no_cache(model, ids):
    return model(input_ids=ids, use_cache=False).last_hidden_state


def _pooled(model, ids):
    return model(input_ids=ids).pooler_output


DECODER = dict(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=1, num_attention_heads=HEADS,
               num_key_value_heads=1, intermediate_size=32, max_position_embeddings=32,
               attn_implementation="eager")
ENCODER = dict(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=1, num_attention_heads=HEADS,
               intermediate_size=32, max_position_embeddings=32, attn_implementation="eager")
GPT2 = dict(vocab_size=VOCAB, n_positions=32, n_embd=HIDDEN, n_layer=1, n_head=HEADS, attn_implementation="eager")
BART = dict(vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=1, decoder_layers=1, encoder_attention_heads=HEADS,
            decoder_attention_heads=HEADS, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=32,
            attn_implementation="eager", forced_eos_token_id=None, decoder_start_token_id=1)


# --- torch programs users write ---------------------------------------------------


def _torch_program(forward: Callable, make_inputs: Callable[[str], tuple], **parts) -> Callable[[], Built]:
    def build(name: str) -> Built:
        import torch

        torch.manual_seed(0)
        made = {k: (v() if callable(v) else v) for k, v in parts.items()}
        return Built(_module(forward, **made), make_inputs(name))

    return build


def _linear(n_in: int, n_out: int):
    def make():
        import torch

        return torch.nn.Linear(n_in, n_out)

    return make


def _embedding(n: int, d: int):
    def make():
        import torch

        return torch.nn.Embedding(n, d)

    return make


def _cross_entropy(self, logits, target):
    import torch.nn.functional as F

    return F.cross_entropy(logits, target)


def _nll(self, logits, target):
    import torch.nn.functional as F

    return F.nll_loss(F.log_softmax(logits, -1), target, reduction="none")


def _label_smoothing(self, logits, target):
    import torch.nn.functional as F

    return F.cross_entropy(logits, target, label_smoothing=0.1)


def _moe_routing(self, x):
    """softmax over experts, top-2, the chosen experts' weights gathered,
    each token's rows gathered back by index_select."""
    import torch

    probs = torch.softmax(self.router(x), -1)  # (T, E)
    weights, experts = torch.topk(probs, 2, -1)  # (T, 2)
    chosen = self.experts[experts]  # (T, 2, D, D)
    tokens = torch.index_select(x, 0, torch.arange(x.shape[0]).repeat_interleave(2)).view(-1, 2, x.shape[1])
    out = torch.einsum("tkd,tkde->tke", tokens, chosen)
    return (out * weights.unsqueeze(-1)).sum(1)


def _beam_step(self, cache, beam):
    """Reorder a (batch * beams, D) cache by each batch's chosen beams."""
    import torch

    beams = beam.shape[1]
    rows = (torch.arange(beam.shape[0]).unsqueeze(1) * beams + beam).reshape(-1)
    return cache.index_select(0, rows)


def _kv_cache_read(self, cache, positions):
    """Keys at the given positions of a (batch, heads, seq, dim) cache."""
    return cache.index_select(2, positions)


def _gnn_messages(self, x, src, dst):
    """Per-edge messages: the source and destination node features."""
    import torch

    return torch.cat([x.index_select(0, src), x[dst]], -1) @ self.w


def _gnn_aggregate(self, x, src, dst):
    """Message passing with a scatter-add of the messages onto the nodes."""
    import torch

    messages = x.index_select(0, src) @ self.w
    return torch.zeros_like(x).index_add(0, dst, messages)


def _token_pruning(self, tokens, scores):
    """Keep the 4 best-scored tokens of each sequence, in score order."""
    import torch

    keep = torch.topk(scores, 4, -1).indices  # (B, 4)
    return torch.gather(tokens, 1, keep.unsqueeze(-1).expand(-1, -1, tokens.shape[-1]))


def _embedding_bag(self, ids, weights):
    """A weighted sum of each bag's embeddings (embedding_bag(mode='sum') as users write it)."""
    return (self.table(ids) * weights.unsqueeze(-1)).sum(1)


def _top_k_sampling(self, logits, noise):
    """Top-k sampling with the Gumbel trick on given uniform noise: the
    sampled token id of each row."""
    import torch

    values, ids = torch.topk(logits, 5, -1)
    choice = torch.argmax(values - torch.log(-torch.log(noise)), -1, keepdim=True)
    return torch.gather(ids, 1, choice)


def _span_extraction(self, hidden, start, end):
    """Question answering: the hidden states at each sequence's span ends."""
    import torch

    batch = torch.arange(hidden.shape[0])
    return torch.cat([hidden[batch, start], hidden[batch, end]], -1)


def _last_token(self, hidden, lengths):
    """The pooled last real token of each padded sequence."""
    import torch

    return hidden[torch.arange(hidden.shape[0]), lengths - 1]


def _inputs(*makers):
    return lambda name: tuple(make(f"{name}/{n}") for n, make in enumerate(makers))


def _index(*shape, high):
    return lambda name: _ids(name, *shape, high=high)


def _data(*shape):
    return lambda name: _floats(name, *shape)


def _uniform(*shape):
    return lambda name: _rng(name).uniform(0.05, 0.95, shape).astype(np.float32)


def _weights(*shape):
    def make():
        import torch

        return torch.randn(*shape)

    return make


# --- ONNX models --------------------------------------------------------------------


def _onnx(nodes, inputs, outputs, initializers=()) -> object:
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


def _onnx_embedding(name: str) -> Built:
    """Gather on an initializer (an embedding table), then a MatMul."""
    from onnx import helper

    table, proj = _floats(f"{name}/table", VOCAB, HIDDEN), _floats(f"{name}/proj", HIDDEN, 4)
    model = _onnx(
        [helper.make_node("Gather", ["table", "ids"], ["rows"], name="rows", axis=0),
         helper.make_node("MatMul", ["rows", "proj"], ["out"], name="out")],
        [("ids", (np.int64, (BATCH, SEQ)))], [("out", (np.float32, (BATCH, SEQ, 4)))],
        [("table", table), ("proj", proj)],
    )
    return Built(model, (_ids(name, BATCH, SEQ),))


def _onnx_shape_subgraph(name: str) -> Built:
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape: flatten all but the
    first dim, as exporters write `x.reshape(x.shape[0], -1)`."""
    from onnx import helper

    minus_one = np.array([-1], dtype=np.int64)
    model = _onnx(
        [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
         helper.make_node("Gather", ["shape", "zero"], ["batch"], name="batch", axis=0),
         helper.make_node("Unsqueeze", ["batch", "axes"], ["batch1"], name="batch1"),
         helper.make_node("Concat", ["batch1", "minus_one"], ["target"], name="target", axis=0),
         helper.make_node("Reshape", ["x", "target"], ["out"], name="out")],
        [("x", (np.float32, (BATCH, 3, 4)))], [("out", (np.float32, (BATCH, 12)))],
        [("zero", np.array(0, dtype=np.int64)), ("axes", np.array([0], dtype=np.int64)),
         ("minus_one", minus_one)],
    )
    return Built(model, (_floats(name, BATCH, 3, 4),))


def _onnx_gather_elements(name: str) -> Built:
    """Softmax, then GatherElements of each row's target probability, Log."""
    from onnx import helper

    model = _onnx(
        [helper.make_node("Softmax", ["logits"], ["probs"], name="probs", axis=1),
         helper.make_node("GatherElements", ["probs", "target"], ["picked"], name="picked", axis=1),
         helper.make_node("Log", ["picked"], ["out"], name="out")],
        [("logits", (np.float32, (6, 10))), ("target", (np.int64, (6, 1)))],
        [("out", (np.float32, (6, 1)))],
    )
    return Built(model, (_floats(f"{name}/logits", 6, 10), _ids(f"{name}/target", 6, 1, high=10)))


def _onnx_gather_nd(name: str) -> Built:
    """GatherND of (row, column) pairs from a Relu'd matrix, then Add."""
    from onnx import helper

    model = _onnx(
        [helper.make_node("Relu", ["x"], ["r"], name="r"),
         helper.make_node("GatherND", ["r", "pairs"], ["picked"], name="picked"),
         helper.make_node("Add", ["picked", "bias"], ["out"], name="out")],
        [("x", (np.float32, (5, 7))), ("pairs", (np.int64, (4, 2))), ("bias", (np.float32, (4,)))],
        [("out", (np.float32, (4,)))],
    )
    pairs = np.stack([_ids(f"{name}/r", 4, high=5), _ids(f"{name}/c", 4, high=7)], -1)
    return Built(model, (_floats(f"{name}/x", 5, 7), pairs, _floats(f"{name}/bias", 4)))


# --- the registry ---------------------------------------------------------------------

_ENTRIES: list[RealProgram] = []


def _add(name, family, what, builder, gathers, gmx_ops, views="", tolerance=0.0, kept=None, blocked=None,
         data_view=""):
    assert all(p.name != name for p in _ENTRIES), name
    _ENTRIES.append(RealProgram(name, family, what, functools.partial(builder, name), gathers, gmx_ops, views,
                                tolerance, tuple(sorted((kept or {}).items())), dict(blocked or {}), data_view))


T = MODEL_TOLERANCE
POSITIONS = "positions at arange(T) are a slice of their table"
MASK = "the causal mask's 4 gathers (create_causal_mask) are on constants and fold away"
TOPK = "torch.topk's lowering gathers {} times (a sorting network), each a gmx op"

# Hugging Face models
_add("gpt2_lm", "GPT-2", "GPT2LMHeadModel logits", _hf("GPT2LMHeadModel", "GPT2Config", _logits, **GPT2),
     6, 1, f"{POSITIONS}; {MASK}", T)
_add("gpt2_pooled", "GPT-2", "GPT2ForSequenceClassification: logits pooled at the last non-pad token",
     _hf("GPT2ForSequenceClassification", "GPT2Config", _logits, num_labels=3, **GPT2),
     7, 2, f"{POSITIONS}; {MASK}", T,
     data_view="logits.view(B, T, C) of the (1, B*T, C) matmul result is the pooled gather's input "
               "(a collapse and an expand; the index is the argmax alone)")
_add("bert_mlm", "BERT", "BertForMaskedLM logits", _hf("BertForMaskedLM", "BertConfig", _logits_no_cache_arg, **ENCODER),
     4, 2, "the position_ids buffer[:, :T] is arange(T): a slice; the token_type_ids buffer (zeros) gathered at "
           "those constant positions folds to a constant, so the token type gather reads row 0 of its table, "
           "broadcast (a gmx op with a folded iota index)", T)
_add("distilbert_mlm", "DistilBERT", "DistilBertForMaskedLM logits",
     _hf("DistilBertForMaskedLM", "DistilBertConfig", _logits_no_cache_arg, vocab_size=VOCAB, dim=HIDDEN, n_layers=1,
         n_heads=HEADS, hidden_dim=32, max_position_embeddings=32, attn_implementation="eager"),
     2, 1, "the position_ids buffer[:, :T] is arange(T): a slice", T)
_add("roberta_mlm", "RoBERTa", "RobertaForMaskedLM logits (position ids from the padding mask's cumsum)",
     _hf("RobertaForMaskedLM", "RobertaConfig", _logits_no_cache_arg, **{**ENCODER, "max_position_embeddings": 40}),
     4, 4, "", T, kept={"tosa.mul": 2})  # cumsum(mask) * mask, in front of the position and token type gathers
_add("t5_encoder", "T5", "T5EncoderModel hidden states (relative position buckets)",
     _hf("T5EncoderModel", "T5Config", _hidden, vocab_size=VOCAB, d_model=HIDDEN, d_kv=8, d_ff=32, num_layers=1,
         num_heads=HEADS, relative_attention_num_buckets=8),
     2, 2, "", T, kept={"tosa.mul": 1},  # (relative_position > 0) * num_buckets
     )
_add("llama_lm", "Llama", "LlamaForCausalLM logits (rotary position ids)",
     _hf("LlamaForCausalLM", "LlamaConfig", _logits, **DECODER), 5, 1, MASK, T)
_add("qwen2_lm", "Qwen2", "Qwen2ForCausalLM logits", _hf("Qwen2ForCausalLM", "Qwen2Config", _logits, **DECODER),
     5, 1, MASK, T)
_add("mistral_lm", "Mistral", "MistralForCausalLM logits",
     _hf("MistralForCausalLM", "MistralConfig", _logits, **DECODER), 5, 1, MASK, T)
_add("mixtral_lm", "Mixtral",
     "MixtralForCausalLM logits, experts_implementation='batched_mm' (the default is data-dependent; "
     "grouped_mm calls torch.histc, which torch-mlir cannot lower): expert weights gathered by routed expert",
     _hf("MixtralForCausalLM", "MixtralConfig", _logits, num_local_experts=4, num_experts_per_tok=2,
         experts_implementation="batched_mm", **DECODER),
     13, 9, f"{MASK}; {TOPK.format(6)}", T, kept={"tosa.concat": 2},  # topk's index pieces
     )
_add("clip_text_pooled", "CLIP", "CLIPTextModel pooled output at each sequence's argmax (eos) token",
     _hf("CLIPTextModel", "CLIPTextConfig", _pooled, **ENCODER),
     3, 2, "the position_ids buffer[:, :T] is arange(T): a slice", T)
_add("bart", "BART", "BartModel decoder hidden states (decoder ids by shift_tokens_right)",
     _hf("BartModel", "BartConfig", _hidden_no_cache, **BART),
     4, 3, "the decoder's positions arange(T) + 2 are a slice of its table; the encoder's, expanded over the batch, "
     "stay a gmx op with a folded 2..T+1 index (a gmx op broadcasts along its indices only)", T,
     kept={"tensor.insert_slice": 1})  # shift_tokens_right's slice assignment (a raised slice_scatter)

# programs users write around models
_add("cross_entropy", "losses", "F.cross_entropy(logits, target): gather of the target logit",
     _torch_program(_cross_entropy, _inputs(_data(6, 10), _index(6, high=10))), 1, 1, tolerance=1e-5)
_add("nll_loss", "losses", "F.nll_loss(log_softmax(logits), target, reduction='none')",
     _torch_program(_nll, _inputs(_data(6, 10), _index(6, high=10))), 1, 1, tolerance=1e-5)
_add("label_smoothing", "losses", "F.cross_entropy(..., label_smoothing=0.1)",
     _torch_program(_label_smoothing, _inputs(_data(6, 10), _index(6, high=10))), 1, 1, tolerance=1e-5)
_add("moe_routing", "MoE", "softmax, top-2 experts, expert weights gathered, tokens index_select'ed",
     _torch_program(_moe_routing, _inputs(_data(6, 4)), router=_linear(4, 3), experts=_weights(3, 4, 4)),
     8, 8, TOPK.format(6), tolerance=1e-5, kept={"tosa.concat": 1},  # topk's index pieces
     )
_add("beam_search_step", "decoding", "cache.index_select(0, arange(B) * beams + beam)",
     _torch_program(_beam_step, _inputs(_data(6, 5), _index(2, 3, high=3))), 1, 1, kept={"tosa.mul": 1})
_add("kv_cache_read", "decoding", "cache.index_select(2, positions) on a (B, H, S, D) cache",
     _torch_program(_kv_cache_read, _inputs(_data(2, 2, 8, 4), _index(3, high=8))), 1, 1)
_add("top_k_sampling", "decoding", "topk, Gumbel argmax on given noise, gather of the chosen id",
     _torch_program(_top_k_sampling, _inputs(_data(3, 12), _uniform(3, 5))), 16, 16, TOPK.format(15))
_add("gnn_messages", "GNN", "edge messages from node features by src/dst index_select, then a matmul",
     _torch_program(_gnn_messages, _inputs(_data(5, 4), _index(7, high=5), _index(7, high=5)), w=_weights(8, 3)),
     2, 2, tolerance=1e-5)
_add("gnn_aggregate", "GNN", "messages scatter-added onto their destination nodes (index_add)",
     _torch_program(_gnn_aggregate, _inputs(_data(5, 4), _index(7, high=5), _index(7, high=5)), w=_weights(4, 4)),
     1, 1, tolerance=1e-5,
     blocked={"export": "torch-mlir has no TOSA lowering of index_add (aten.index_put with accumulate)"})
_add("token_pruning", "pruning", "topk of token scores, torch.gather of the kept tokens",
     _torch_program(_token_pruning, _inputs(_data(2, 8, 4), _data(2, 8))), 17, 17, TOPK.format(16),
     kept={"tosa.concat": 1},  # topk's index pieces
     )
_add("embedding_bag", "embedding", "weighted sum of each bag's nn.Embedding rows",
     _torch_program(_embedding_bag, _inputs(_index(3, 4, high=20), _data(3, 4)), table=_embedding(20, 6)),
     1, 1, tolerance=1e-5)
_add("span_extraction", "QA", "hidden[arange(B), start] and hidden[arange(B), end], concatenated",
     _torch_program(_span_extraction, _inputs(_data(3, 8, 4), _index(3, high=8), _index(3, high=8))), 2, 2)
_add("last_token_pool", "pooling", "hidden[arange(B), lengths - 1]",
     _torch_program(_last_token, _inputs(_data(3, 8, 4), lambda n: _ids(n, 3, high=8) + 1)), 1, 1)

# ONNX models
_add("onnx_embedding", "ONNX", "Gather on an initializer (embedding table), MatMul", _onnx_embedding, 1, 1,
     tolerance=1e-5)
_add("onnx_shape_subgraph", "ONNX", "Shape -> Gather -> Unsqueeze -> Concat -> Reshape", _onnx_shape_subgraph,
     0, 0, "the Gather of the shape folds to a constant at import")
_add("onnx_gather_elements", "ONNX", "Softmax, GatherElements of the target, Log", _onnx_gather_elements, 1, 1,
     tolerance=1e-5)
_add("onnx_gather_nd", "ONNX", "Relu, GatherND of (row, column) pairs, Add", _onnx_gather_nd, 1, 1)


# --- the second corpus: more families, each in every form it exports -------------------
#
# Each program is registered once per form as `NAME@FORM` (`_add_forms`): its
# torch-mlir TOSA, linalg-on-tensors and StableHLO exports, or an ONNX model's
# import. The forms of one program share one build (the same inputs and
# eager reference).


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


def _add_forms(name, family, what, builder, tolerance=0.0, **forms: Form):
    """`name@form` for each form: one build shared by all of them."""
    build = functools.cache(functools.partial(builder, name))
    for form, expected in forms.items():
        assert form in FORMS, form
        _ENTRIES.append(RealProgram(
            f"{name}@{form}", family, what, build, expected.gathers, expected.gmx_ops, expected.views, tolerance,
            tuple(sorted(expected.kept.items())), dict(expected.blocked), expected.data_view, form, expected.suite))


# Why a check fails today (a `blocked` reason, defined beside the entries it
# blocks): what the lowering does not do yet, or what torch-mlir itself
# cannot export.

SMALL = dict(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=1, num_attention_heads=HEADS,
             intermediate_size=32)


def _pixels(name: str) -> tuple:
    return (_floats(name, 1, 3, 8, 8),)


def _ids_and_boxes(name: str) -> tuple:
    corners = np.sort(_ids(f"{name}/box", BATCH, SEQ, 2, 2, high=32), axis=-2)  # x0 <= x1, y0 <= y1
    return _ids(name, BATCH, SEQ), corners.reshape(BATCH, SEQ, 4)  # (x0, y0, x1, y1)


def _long_ids(name: str) -> tuple:
    return (_ids(name, 1, 16),)


def _codepoints(name: str) -> tuple:
    return (_ids(name, BATCH, SEQ, high=1000),)


def _hidden_with_boxes(model, ids, bbox):
    return model(input_ids=ids, bbox=bbox).last_hidden_state


def _encoder_decoder(model, ids):
    return model(input_ids=ids, decoder_input_ids=ids, use_cache=False).last_hidden_state


def _pixel_hidden(model, pixels):
    return model(pixel_values=pixels).last_hidden_state


# programs users write


def _crf_viterbi(self, emissions):
    """CRF Viterbi decoding (as pytorch-crf writes it): the best previous tag
    per step, then the backtrace gathering each step's back-pointer."""
    import torch

    score = self.start + emissions[:, 0]
    history = []
    for t in range(1, emissions.shape[1]):
        score, best = (score[:, :, None] + self.transitions + emissions[:, t, None, :]).max(1)
        history.append(best)
    last = score.argmax(-1, keepdim=True)
    path = [last]
    for best in reversed(history):
        last = best.gather(1, last)
        path.append(last)
    return torch.cat(path[::-1], 1)


def _ctc_loss(self, log_probs, labels):
    """CTC's forward (alpha) recursion over the blank-extended labels: the
    label log-probabilities gathered once, the final two states gathered."""
    import torch

    batch, steps, _ = log_probs.shape
    extended = torch.zeros(batch, 2 * labels.shape[1] + 1, dtype=labels.dtype)
    extended[:, 1::2] = labels
    emitted = log_probs.gather(2, extended[:, None, :].expand(-1, steps, -1))  # (B, T, S)
    skip = torch.cat([torch.zeros(batch, 2, dtype=torch.bool), (extended[:, 2:] != 0)
                      & (extended[:, 2:] != extended[:, :-2])], 1)
    never = torch.full_like(emitted[:, 0], -1e4)
    alpha = torch.where(torch.arange(extended.shape[1]) < 2, emitted[:, 0], never)
    for t in range(1, steps):
        one = torch.cat([never[:, :1], alpha[:, :-1]], 1)
        two = torch.where(skip, torch.cat([never[:, :2], alpha[:, :-2]], 1), never)
        alpha = torch.logsumexp(torch.stack([alpha, one, two]), 0) + emitted[:, t]
    ends = torch.tensor([extended.shape[1] - 1, extended.shape[1] - 2]).expand(batch, -1)
    return -torch.logsumexp(alpha.gather(1, ends), 1)


def _dlrm_interaction(self, dense, sparse_ids):
    """DLRM's dot interaction: the embeddings' pairwise dots, the strictly
    lower triangle gathered by constant index lists."""
    import torch

    features = torch.stack([dense] + [table(sparse_ids[:, n]) for n, table in enumerate(self.tables)], 1)
    products = torch.bmm(features, features.transpose(1, 2))  # (B, F, F)
    rows = torch.tensor([i for i in range(features.shape[1]) for j in range(i)])
    cols = torch.tensor([j for i in range(features.shape[1]) for j in range(i)])
    return torch.cat([dense, products[:, rows, cols]], 1)


def _knn_graph_feature(self, x):
    """DGCNN's get_graph_feature: each point's k nearest neighbours by topk,
    their features gathered from the flattened batch, minus the centre."""
    import torch

    batch, channels, points = x.shape
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    square = torch.sum(x**2, dim=1, keepdim=True)
    neighbours = (-square - inner - square.transpose(2, 1)).topk(k=3, dim=-1)[1]  # (B, N, k)
    flat = (neighbours + torch.arange(batch).view(-1, 1, 1) * points).view(-1)
    rows = x.transpose(2, 1).contiguous().view(batch * points, -1)
    feature = rows[flat, :].view(batch, points, 3, channels)
    centre = x.transpose(2, 1).view(batch, points, 1, channels).expand(-1, -1, 3, -1)
    return torch.cat((feature - centre, centre), dim=3).permute(0, 3, 1, 2)


def _segment_means(self, x, segments):
    """Each row minus the mean of its segment: sums and counts scatter-added,
    the means gathered back per row."""
    import torch

    count = 4
    sums = torch.zeros(count, x.shape[1]).index_add(0, segments, x)
    sizes = torch.zeros(count).index_add(0, segments, torch.ones(x.shape[0]))
    return x - (sums / sizes.clamp(min=1)[:, None])[segments]


def _int8_embedding(self, ids):
    """An int8 embedding table dequantised per row (scale, zero point) after the gather."""
    return (self.weight[ids].float() - self.zero[ids, None]) * self.scale[ids, None]


def _unpad_pad(self, hidden, indices):
    """flash-attention's bert_padding: the real tokens gathered from the
    flattened batch (index_first_axis), a projection, scattered back (pad_input)."""
    import torch

    batch, seq, dim = hidden.shape
    flat = hidden.reshape(batch * seq, dim)
    unpadded = torch.gather(flat, 0, indices[:, None].expand(-1, dim))
    projected = self.proj(unpadded)
    padded = torch.zeros(batch * seq, projected.shape[1])
    padded[indices] = projected
    return padded.view(batch, seq, -1)


def _real_tokens(name: str) -> np.ndarray:
    mask = _rng(name).random(BATCH * SEQ) < 0.6
    return np.flatnonzero(mask).astype(np.int64)


def _onnx_gather_negative(name: str) -> Built:
    """Gather on axis -1 with negative indices, then Mul."""
    from onnx import helper

    model = _onnx(
        [helper.make_node("Gather", ["x", "ids"], ["picked"], name="picked", axis=-1),
         helper.make_node("Mul", ["picked", "picked"], ["out"], name="out")],
        [("x", (np.float32, (3, 4, 6))), ("ids", (np.int64, (2, 3)))], [("out", (np.float32, (3, 4, 2, 3)))],
    )
    return Built(model, (_floats(f"{name}/x", 3, 4, 6), _ids(f"{name}/ids", 2, 3, high=12) - 6))


def _onnx_gather_nd_batch(name: str) -> Built:
    """GatherND with batch_dims=1 (one (row, column) pair per batch element and slot), then Relu."""
    from onnx import helper

    model = _onnx(
        [helper.make_node("GatherND", ["x", "pairs"], ["picked"], name="picked", batch_dims=1),
         helper.make_node("Relu", ["picked"], ["out"], name="out")],
        [("x", (np.float32, (2, 5, 6, 3))), ("pairs", (np.int64, (2, 4, 2)))], [("out", (np.float32, (2, 4, 3)))],
    )
    pairs = np.stack([_ids(f"{name}/r", 2, 4, high=5), _ids(f"{name}/c", 2, 4, high=6)], -1)
    return Built(model, (_floats(f"{name}/x", 2, 5, 6, 3), pairs))


def _onnx_gather_elements_negative(name: str) -> Built:
    """GatherElements on axis -2 with negative indices, then Add of the input's first rows."""
    from onnx import helper

    model = _onnx(
        [helper.make_node("GatherElements", ["x", "ids"], ["picked"], name="picked", axis=-2),
         helper.make_node("Abs", ["picked"], ["out"], name="out")],
        [("x", (np.float32, (2, 7, 3))), ("ids", (np.int64, (2, 4, 3)))], [("out", (np.float32, (2, 4, 3)))],
    )
    return Built(model, (_floats(f"{name}/x", 2, 7, 3), _ids(f"{name}/ids", 2, 4, 3, high=14) - 7))


def _int8_table():
    import torch

    return torch.randint(-128, 128, (20, 6), dtype=torch.int8)


def _positive(*shape):
    def make():
        import torch

        return torch.rand(*shape) + 0.01

    return make


F = Form
ALL = ("tosa", "linalg", "stablehlo")

# Hugging Face models of families the first corpus does not have; `suite`
# marks the one form of each the test suite checks (GMX_FULL_CORPUS=1: all)
SLICE = "the position_ids buffer[:, :T] is arange(T): a slice"
IDENTITY = "an index_select at arange(n) is the identity: the input"
NO_STABLEHLO = "torch-mlir cannot lower it to StableHLO (Torch Backend IR -> StableHLO Backend IR fails)"
OUT_OF_MEMORY = "torch-mlir's Torch Backend IR -> StableHLO Backend IR runs out of memory (std::bad_alloc after 16 GB)"
_add_forms("deberta_v2", "DeBERTa-v2", "DebertaV2Model hidden states (relative positions, c2p and p2c attention)",
           _hf("DebertaV2Model", "DebertaV2Config", _hidden, relative_attention=True, position_buckets=4,
               max_relative_positions=8, pos_att_type=["p2c", "c2p"], max_position_embeddings=32, **SMALL), T,
           tosa=F(4, 3, SLICE, suite=False), linalg=F(4, 3, SLICE),
           stablehlo=F(4, 3, SLICE, suite=False))
_add_forms("mpnet", "MPNet", "MPNetModel hidden states (relative position buckets)",
           _hf("MPNetModel", "MPNetConfig", _hidden, max_position_embeddings=40, **SMALL), T,
           tosa=F(3, 3, kept={"tosa.mul": 2}, suite=False),  # cumsum(mask) * mask
           linalg=F(3, 3, suite=False), stablehlo=F(3, 3, suite=False))
_add_forms("xlnet", "XLNet", "XLNetModel hidden states (relative positional encodings, rel_shift)",
           _hf("XLNetModel", "XLNetConfig", _hidden, vocab_size=VOCAB, d_model=HIDDEN, n_layer=1, n_head=HEADS,
               d_inner=32), T,
           tosa=F(2, 1, IDENTITY, suite=False), linalg=F(2, 1, IDENTITY), stablehlo=F(2, 1, IDENTITY, suite=False))
_add_forms("funnel", "Funnel", "FunnelModel hidden states (relative shift attention, pooling)",
           _hf("FunnelModel", "FunnelConfig", _hidden, vocab_size=VOCAB, block_sizes=[1, 1], d_model=HIDDEN,
               n_head=HEADS, d_head=8, d_inner=32, num_decoder_layers=1), T,
           tosa=F(5, 5, suite=False), linalg=F(4, 4),
           stablehlo=F(4, 4, blocked={"export": NO_STABLEHLO}, suite=False))
_add_forms("opt_lm", "OPT", "OPTForCausalLM logits (positions from the mask's cumsum)",
           _hf("OPTForCausalLM", "OPTConfig", _logits, vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=1,
               ffn_dim=32, num_attention_heads=HEADS, max_position_embeddings=32, word_embed_proj_dim=HIDDEN,
               attn_implementation="eager"), T,
           tosa=F(2, 2, suite=False), linalg=F(2, 2, suite=False), stablehlo=F(2, 2))
_add_forms("gptj_lm", "GPT-J", "GPTJForCausalLM logits (sin/cos rows gathered at the position ids)",
           _hf("GPTJForCausalLM", "GPTJConfig", _logits, vocab_size=VOCAB, n_positions=32, n_embd=HIDDEN, n_layer=1,
               n_head=HEADS, rotary_dim=4, attn_implementation="eager"), T,
           tosa=F(10, 5, f"{MASK}; the positions arange(T) read the sin/cos table as a slice", suite=False),
           linalg=F(6, 2, "4 of the 6 become copies or "
                     "slices at arange positions, not inspected one by one",
                     suite=False),
           stablehlo=F(6, 5, "the positions arange(T) read the sin/cos table as a slice", suite=False))
_add_forms("m2m100", "M2M100", "M2M100Model decoder hidden states (sinusoidal positions from the padding mask)",
           _hf("M2M100Model", "M2M100Config", _encoder_decoder, vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=1,
               decoder_layers=1, encoder_attention_heads=HEADS, decoder_attention_heads=HEADS, encoder_ffn_dim=32,
               decoder_ffn_dim=32, max_position_embeddings=32, attn_implementation="eager"), T,
           tosa=F(4, 4, kept={"tosa.mul": 2}, suite=False,  # cumsum(mask) * mask
                  data_view="the sinusoidal table gathered is weights[:T + offset] of a computed buffer, viewed"),
           linalg=F(4, 4, suite=False), stablehlo=F(4, 4, suite=False))
_add_forms("layoutlm", "LayoutLM", "LayoutLMModel hidden states (x, y, height and width embeddings of the boxes)",
           _hf("LayoutLMModel", "LayoutLMConfig", _hidden_with_boxes, _ids_and_boxes, max_position_embeddings=32,
               max_2d_position_embeddings=64, **SMALL), T,
           tosa=F(9, 8, SLICE), linalg=F(9, 8, SLICE, suite=False), stablehlo=F(9, 8, SLICE, suite=False))
_add_forms("beit", "BEiT", "BeitModel hidden states (relative position bias, bicubically interpolated, gathered)",
           _hf("BeitModel", "BeitConfig", _pixel_hidden, _pixels, image_size=8, patch_size=4, num_channels=3,
               hidden_size=HIDDEN, num_hidden_layers=1, num_attention_heads=HEADS, intermediate_size=32,
               use_relative_position_bias=True), T,
           # upsample_bicubic2d's own index grid; the relative-position index the program computes
           # (stack, sum, scale) and writes by two slice_scatters, raised to tensor.insert_slice
           tosa=F(5, 5, kept={"tosa.tile": 9, "tosa.reduce_sum": 1, "tosa.concat": 1, "tosa.mul": 1,
                              "tensor.insert_slice": 2}, suite=False,
                  data_view="the bias table's first rows viewed as its 3x3 grid before the bicubic interpolation"),
           linalg=F(5, 5, kept={"tensor.insert_slice": 2}, suite=False,  # upsample_bicubic2d's own index grid
                    data_view="the bias table's first rows viewed as its 3x3 grid before the bicubic interpolation"),
           stablehlo=F(5, 5, blocked={"export": NO_STABLEHLO}, suite=False))
_add_forms("big_bird", "Big Bird", "BigBirdModel hidden states, block-sparse attention (blocks gathered)",
           _hf("BigBirdModel", "BigBirdConfig", _hidden, _long_ids, attention_type="block_sparse", block_size=2,
               num_random_blocks=1, max_position_embeddings=32, **SMALL), T,
           tosa=F(6, 5, SLICE),
           linalg=F(5, 4, SLICE, suite=False,
                    data_view="the program's blocked view of its keys and values (x.view(b, h, blocks, block, d))"),
           stablehlo=F(6, 5, SLICE, suite=False))
_add_forms("canine", "CANINE", "CanineModel hidden states (hashed codepoint embeddings, downsampling)",
           _hf("CanineModel", "CanineConfig", _hidden, _codepoints, hidden_size=HIDDEN, num_hidden_layers=1,
               num_attention_heads=HEADS, intermediate_size=32, num_hash_functions=2, num_hash_buckets=16,
               downsampling_rate=2, upsampling_kernel_size=2, local_transformer_stride=4,
               max_position_embeddings=32), T,
           tosa=F(6, 3, f"{SLICE}; {IDENTITY}", kept={"tosa.mul": 8}, suite=False),  # the hashes (id + 1) * prime % n
           linalg=F(5, 3, f"{SLICE}; {IDENTITY}"),
           stablehlo=F(6, 4, f"{SLICE}; {IDENTITY}", suite=False, blocked={
               "fused": "not yet: the identity (mask != 0)[arange(B)[:, None], arange(T)] stays a gmx op in "
                        "StableHLO (its constant coordinate tuples are not peeled into iotas)"}))

# programs users write
KNN_VIEW = "the program's own x.transpose(2, 1).view(B * N, C) is the gathered input"
_add_forms("crf_viterbi", "CRF", "CRF Viterbi decoding: max over previous tags, back-pointers gathered",
           _torch_program(_crf_viterbi, _inputs(_data(2, 5, 4)), start=_weights(4), transitions=_weights(4, 4)),
           tosa=F(4, 4), linalg=F(4, 4), stablehlo=F(4, 4))
_add_forms("ctc_loss", "CTC", "CTC forward recursion: label log-probs and the final states gathered",
           _torch_program(_ctc_loss, _inputs(lambda n: np.log(_rng(n).dirichlet(np.ones(5), (2, 6))).astype(np.float32),
                                             _index(2, 2, high=4))), 1e-5,
           tosa=F(2, 2), linalg=F(2, 2, kept={"tensor.insert_slice": 1}),  # extended[:, 1::2] = labels
           stablehlo=F(2, 2, blocked={"export": OUT_OF_MEMORY}, suite=False))
_add_forms("dlrm_interaction", "DLRM", "DLRM dot interaction: the lower triangle of the dots by constant index lists",
           _torch_program(_dlrm_interaction, _inputs(_data(2, 4), _index(2, 3, high=10)),
                          tables=lambda: __import__("torch").nn.ModuleList(_embedding(10, 4)() for _ in range(3))),
           1e-5, tosa=F(4, 4), linalg=F(4, 4), stablehlo=F(4, 4))
_add_forms("knn_graph_feature", "DGCNN", "DGCNN get_graph_feature: topk neighbours gathered from the flat batch",
           _torch_program(_knn_graph_feature, _inputs(_data(2, 3, 6))), 1e-5,
           tosa=F(13, 13, TOPK.format(12), kept={"tosa.concat": 1, "tosa.mul": 1}, data_view=KNN_VIEW),
           linalg=F(1, 1, data_view=KNN_VIEW),
           stablehlo=F(1, 1, data_view=KNN_VIEW))
_add_forms("segment_means", "segments", "rows minus their segment's mean (index_add, then a gather back)",
           _torch_program(_segment_means, _inputs(_data(7, 3), _index(7, high=4))), 1e-5,
           tosa=F(1, 1, blocked={"export": "torch-mlir has no TOSA lowering of index_add (aten.index_put with "
                                           "accumulate)"}),
           linalg=F(1, 1), stablehlo=F(1, 1))
_add_forms("int8_embedding", "embedding", "int8 embedding rows dequantised by their gathered scale and zero point",
           _torch_program(_int8_embedding, _inputs(_index(3, 5, high=20)), weight=_int8_table, scale=_positive(20),
                          zero=_weights(20)), 1e-6, tosa=F(3, 3), linalg=F(3, 3), stablehlo=F(3, 3))
_add_forms("unpad_pad", "flash-attention", "bert_padding's unpad (gather of real tokens), a projection, pad (scatter)",
           _torch_program(_unpad_pad, _inputs(_data(BATCH, SEQ, 4), _real_tokens), proj=_linear(4, 4)), 1e-5,
           tosa=F(1, 1, data_view="bert_padding's hidden.reshape(B * S, D) is the gathered input"),
           linalg=F(1, 1, data_view="bert_padding's hidden.reshape(B * S, D) is the gathered input"),
           stablehlo=F(1, 1))

# ONNX models
_add_forms("onnx_gather_negative", "ONNX", "Gather on axis -1 with negative indices, Mul", _onnx_gather_negative,
           onnx=F(1, 1))
_add_forms("onnx_gather_nd_batch", "ONNX", "GatherND with batch_dims=1, Relu", _onnx_gather_nd_batch, onnx=F(1, 1))
_add_forms("onnx_gather_elements_negative", "ONNX", "GatherElements on axis -2 with negative indices, Abs",
           _onnx_gather_elements_negative, onnx=F(1, 1))

MODELS: dict[str, RealProgram] = {p.name: p for p in _ENTRIES}
