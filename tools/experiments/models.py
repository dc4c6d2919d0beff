"""The real-program corpus of gathers: whole models and programs as users
write them, each exported the one way (`frontends`), with what
`--gmx-canonicalize` must make of its gathers. The contract of an entry
(`RealProgram`), its checks (`export`, `reference`, `matches`,
`fusion_problems`) and the building blocks of its program are
`corpus_base`'s; the entries are here and in `models_per_form`.

    program = MODELS["gpt2_lm"]
    built = program.build()            # the torch module or ONNX model, example inputs
    text = corpus_base.export(built, form=program.form)   # frontends.torch_export / onnx_to_tosa
    want = corpus_base.reference(built)   # eager PyTorch / onnx.reference, a tuple of arrays

Hugging Face models are built from small configs with random weights
(`torch.manual_seed(0)`, vocab 64, hidden 16, one layer, two heads, eager
attention), never downloaded. ONNX models are built with `onnx.helper`.

The first corpus (here) is TOSA. The second (`models_per_form`) is
registered once per form as `NAME@FORM`: torch-mlir's TOSA,
linalg-on-tensors and StableHLO exports of each torch program, an ONNX
model through torch-mlir's importer; the forms of a program share its
build. `in_suite` marks what the test suite checks on every run
(GMX_FULL_CORPUS=1: everything). `MODELS` holds both, by name.
"""

from __future__ import annotations

import numpy as np

from .corpus_base import (
    BATCH,
    HEADS,
    HIDDEN,
    MASK,
    MODEL_TOLERANCE,
    SEQ,
    TOPK,
    VOCAB,
    Built,
    RealProgram,
    data,
    embedding_part,
    entry,
    hf_hidden,
    hf_hidden_no_cache,
    hf_logits,
    hf_logits_no_cache_arg,
    hf_pooled,
    hf_program,
    index,
    inputs,
    linear_part,
    onnx_program,
    random_floats,
    random_ids,
    torch_program,
    uniform,
    weights_part,
)
from .models_per_form import ENTRIES as PER_FORM

# --- Hugging Face models' configs ---------------------------------------------------

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


# --- ONNX models --------------------------------------------------------------------


def _onnx_embedding(name: str) -> Built:
    """Gather on an initializer (an embedding table), then a MatMul."""
    from onnx import helper

    table, proj = random_floats(f"{name}/table", VOCAB, HIDDEN), random_floats(f"{name}/proj", HIDDEN, 4)
    model = onnx_program(
        [helper.make_node("Gather", ["table", "ids"], ["rows"], name="rows", axis=0),
         helper.make_node("MatMul", ["rows", "proj"], ["out"], name="out")],
        [("ids", (np.int64, (BATCH, SEQ)))], [("out", (np.float32, (BATCH, SEQ, 4)))],
        [("table", table), ("proj", proj)],
    )
    return Built(model, (random_ids(name, BATCH, SEQ),))


def _onnx_shape_subgraph(name: str) -> Built:
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape: flatten all but the
    first dim, as exporters write `x.reshape(x.shape[0], -1)`."""
    from onnx import helper

    minus_one = np.array([-1], dtype=np.int64)
    model = onnx_program(
        [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
         helper.make_node("Gather", ["shape", "zero"], ["batch"], name="batch", axis=0),
         helper.make_node("Unsqueeze", ["batch", "axes"], ["batch1"], name="batch1"),
         helper.make_node("Concat", ["batch1", "minus_one"], ["target"], name="target", axis=0),
         helper.make_node("Reshape", ["x", "target"], ["out"], name="out")],
        [("x", (np.float32, (BATCH, 3, 4)))], [("out", (np.float32, (BATCH, 12)))],
        [("zero", np.array(0, dtype=np.int64)), ("axes", np.array([0], dtype=np.int64)),
         ("minus_one", minus_one)],
    )
    return Built(model, (random_floats(name, BATCH, 3, 4),))


def _onnx_gather_elements(name: str) -> Built:
    """Softmax, then GatherElements of each row's target probability, Log."""
    from onnx import helper

    model = onnx_program(
        [helper.make_node("Softmax", ["logits"], ["probs"], name="probs", axis=1),
         helper.make_node("GatherElements", ["probs", "target"], ["picked"], name="picked", axis=1),
         helper.make_node("Log", ["picked"], ["out"], name="out")],
        [("logits", (np.float32, (6, 10))), ("target", (np.int64, (6, 1)))],
        [("out", (np.float32, (6, 1)))],
    )
    return Built(model, (random_floats(f"{name}/logits", 6, 10), random_ids(f"{name}/target", 6, 1, high=10)))


def _onnx_gather_nd(name: str) -> Built:
    """GatherND of (row, column) pairs from a Relu'd matrix, then Add."""
    from onnx import helper

    model = onnx_program(
        [helper.make_node("Relu", ["x"], ["r"], name="r"),
         helper.make_node("GatherND", ["r", "pairs"], ["picked"], name="picked"),
         helper.make_node("Add", ["picked", "bias"], ["out"], name="out")],
        [("x", (np.float32, (5, 7))), ("pairs", (np.int64, (4, 2))), ("bias", (np.float32, (4,)))],
        [("out", (np.float32, (4,)))],
    )
    pairs = np.stack([random_ids(f"{name}/r", 4, high=5), random_ids(f"{name}/c", 4, high=7)], -1)
    return Built(model, (random_floats(f"{name}/x", 5, 7), pairs, random_floats(f"{name}/bias", 4)))


# --- the registry ---------------------------------------------------------------------


# --- the registry ---------------------------------------------------------------------

_ENTRIES: list[RealProgram] = []


def _add(*args, **kwargs):
    """One program in TOSA (`corpus_base.entry`'s arguments)."""
    _ENTRIES.append(entry(*args, **kwargs))


T = MODEL_TOLERANCE
POSITIONS = "positions at arange(T) are a slice of their table"


# Hugging Face models
_add("gpt2_lm", "GPT-2", "GPT2LMHeadModel logits", hf_program("GPT2LMHeadModel", "GPT2Config", hf_logits, **GPT2),
     6, 1, f"{POSITIONS}; {MASK}", T)
_add("gpt2_pooled", "GPT-2", "GPT2ForSequenceClassification: logits pooled at the last non-pad token",
     hf_program("GPT2ForSequenceClassification", "GPT2Config", hf_logits, num_labels=3, **GPT2),
     7, 2, f"{POSITIONS}; {MASK}", T,
     data_view="logits.view(B, T, C) of the (1, B*T, C) matmul result is the pooled gather's input "
               "(a collapse and an expand; the index is the argmax alone)")
_add("bert_mlm", "BERT", "BertForMaskedLM logits",
     hf_program("BertForMaskedLM", "BertConfig", hf_logits_no_cache_arg, **ENCODER),
     4, 2, "the position_ids buffer[:, :T] is arange(T): a slice; the token_type_ids buffer (zeros) gathered at "
           "those constant positions folds to a constant, so the token type gather reads row 0 of its table, "
           "broadcast (a gmx op with a folded iota index)", T)
_add("distilbert_mlm", "DistilBERT", "DistilBertForMaskedLM logits",
     hf_program("DistilBertForMaskedLM", "DistilBertConfig", hf_logits_no_cache_arg, vocab_size=VOCAB, dim=HIDDEN,
         n_layers=1, n_heads=HEADS, hidden_dim=32, max_position_embeddings=32, attn_implementation="eager"),
     2, 1, "the position_ids buffer[:, :T] is arange(T): a slice", T)
_add("roberta_mlm", "RoBERTa", "RobertaForMaskedLM logits (position ids from the padding mask's cumsum)",
     hf_program("RobertaForMaskedLM", "RobertaConfig", hf_logits_no_cache_arg,
                **{**ENCODER, "max_position_embeddings": 40}),
     4, 4, "", T, kept={"tosa.mul": 2})  # cumsum(mask) * mask, in front of the position and token type gathers
_add("t5_encoder", "T5", "T5EncoderModel hidden states (relative position buckets)",
     hf_program("T5EncoderModel", "T5Config", hf_hidden, vocab_size=VOCAB, d_model=HIDDEN, d_kv=8, d_ff=32,
         num_layers=1, num_heads=HEADS, relative_attention_num_buckets=8),
     2, 2, "", T, kept={"tosa.mul": 1},  # (relative_position > 0) * num_buckets
     )
_add("llama_lm", "Llama", "LlamaForCausalLM logits (rotary position ids)",
     hf_program("LlamaForCausalLM", "LlamaConfig", hf_logits, **DECODER), 5, 1, MASK, T)
_add("qwen2_lm", "Qwen2", "Qwen2ForCausalLM logits",
     hf_program("Qwen2ForCausalLM", "Qwen2Config", hf_logits, **DECODER), 5, 1, MASK, T)
_add("mistral_lm", "Mistral", "MistralForCausalLM logits",
     hf_program("MistralForCausalLM", "MistralConfig", hf_logits, **DECODER), 5, 1, MASK, T)
_add("mixtral_lm", "Mixtral",
     "MixtralForCausalLM logits, experts_implementation='batched_mm' (the default is data-dependent; "
     "grouped_mm calls torch.histc, which torch-mlir cannot lower): expert weights gathered by routed expert",
     hf_program("MixtralForCausalLM", "MixtralConfig", hf_logits, num_local_experts=4, num_experts_per_tok=2,
         experts_implementation="batched_mm", **DECODER),
     13, 9, f"{MASK}; {TOPK.format(6)}", T, kept={"tosa.concat": 2},  # topk's index pieces
     )
_add("clip_text_pooled", "CLIP", "CLIPTextModel pooled output at each sequence's argmax (eos) token",
     hf_program("CLIPTextModel", "CLIPTextConfig", hf_pooled, **ENCODER),
     3, 2, "the position_ids buffer[:, :T] is arange(T): a slice", T)
_add("bart", "BART", "BartModel decoder hidden states (decoder ids by shift_tokens_right)",
     hf_program("BartModel", "BartConfig", hf_hidden_no_cache, **BART),
     4, 3, "the decoder's positions arange(T) + 2 are a slice of its table; the encoder's, expanded over the batch, "
     "stay a gmx op with a folded 2..T+1 index (a gmx op broadcasts along its indices only)", T,
     kept={"tensor.insert_slice": 1})  # shift_tokens_right's slice assignment (a raised slice_scatter)

# programs users write around models
_add("cross_entropy", "losses", "F.cross_entropy(logits, target): gather of the target logit",
     torch_program(_cross_entropy, inputs(data(6, 10), index(6, high=10))), 1, 1, tolerance=1e-5)
_add("nll_loss", "losses", "F.nll_loss(log_softmax(logits), target, reduction='none')",
     torch_program(_nll, inputs(data(6, 10), index(6, high=10))), 1, 1, tolerance=1e-5)
_add("label_smoothing", "losses", "F.cross_entropy(..., label_smoothing=0.1)",
     torch_program(_label_smoothing, inputs(data(6, 10), index(6, high=10))), 1, 1, tolerance=1e-5)
_add("moe_routing", "MoE", "softmax, top-2 experts, expert weights gathered, tokens index_select'ed",
     torch_program(_moe_routing, inputs(data(6, 4)), router=linear_part(4, 3), experts=weights_part(3, 4, 4)),
     8, 8, TOPK.format(6), tolerance=1e-5, kept={"tosa.concat": 1},  # topk's index pieces
     )
_add("beam_search_step", "decoding", "cache.index_select(0, arange(B) * beams + beam)",
     torch_program(_beam_step, inputs(data(6, 5), index(2, 3, high=3))), 1, 1, kept={"tosa.mul": 1})
_add("kv_cache_read", "decoding", "cache.index_select(2, positions) on a (B, H, S, D) cache",
     torch_program(_kv_cache_read, inputs(data(2, 2, 8, 4), index(3, high=8))), 1, 1)
_add("top_k_sampling", "decoding", "topk, Gumbel argmax on given noise, gather of the chosen id",
     torch_program(_top_k_sampling, inputs(data(3, 12), uniform(3, 5))), 16, 16, TOPK.format(15))
_add("gnn_messages", "GNN", "edge messages from node features by src/dst index_select, then a matmul",
     torch_program(_gnn_messages, inputs(data(5, 4), index(7, high=5), index(7, high=5)), w=weights_part(8, 3)),
     2, 2, tolerance=1e-5)
_add("gnn_aggregate", "GNN", "messages scatter-added onto their destination nodes (index_add)",
     torch_program(_gnn_aggregate, inputs(data(5, 4), index(7, high=5), index(7, high=5)), w=weights_part(4, 4)),
     1, 1, tolerance=1e-5,
     blocked={"export": "torch-mlir has no TOSA lowering of index_add (aten.index_put with accumulate)"})
_add("token_pruning", "pruning", "topk of token scores, torch.gather of the kept tokens",
     torch_program(_token_pruning, inputs(data(2, 8, 4), data(2, 8))), 17, 17, TOPK.format(16),
     kept={"tosa.concat": 1},  # topk's index pieces
     )
_add("embedding_bag", "embedding", "weighted sum of each bag's nn.Embedding rows",
     torch_program(_embedding_bag, inputs(index(3, 4, high=20), data(3, 4)), table=embedding_part(20, 6)),
     1, 1, tolerance=1e-5)
_add("span_extraction", "QA", "hidden[arange(B), start] and hidden[arange(B), end], concatenated",
     torch_program(_span_extraction, inputs(data(3, 8, 4), index(3, high=8), index(3, high=8))), 2, 2)
_add("last_token_pool", "pooling", "hidden[arange(B), lengths - 1]",
     torch_program(_last_token, inputs(data(3, 8, 4), lambda n: random_ids(n, 3, high=8) + 1)), 1, 1)

# ONNX models
_add("onnx_embedding", "ONNX", "Gather on an initializer (embedding table), MatMul", _onnx_embedding, 1, 1,
     tolerance=1e-5)
_add("onnx_shape_subgraph", "ONNX", "Shape -> Gather -> Unsqueeze -> Concat -> Reshape", _onnx_shape_subgraph,
     0, 0, "the Gather of the shape folds to a constant at import")
_add("onnx_gather_elements", "ONNX", "Softmax, GatherElements of the target, Log", _onnx_gather_elements, 1, 1,
     tolerance=1e-5)
_add("onnx_gather_nd", "ONNX", "Relu, GatherND of (row, column) pairs, Add", _onnx_gather_nd, 1, 1)

MODELS: dict[str, RealProgram] = {p.name: p for p in [*_ENTRIES, *PER_FORM]}
assert len(MODELS) == len(_ENTRIES) + len(PER_FORM), "a name registered twice"
