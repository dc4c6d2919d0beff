"""The second real-program corpus of gathers (`models.MODELS` holds it
beside the first): more families, each in every form it exports.

Each program is registered once per form as `NAME@FORM`
(`corpus_base.entries_per_form`): its torch-mlir TOSA, linalg-on-tensors
and StableHLO exports, or an ONNX model's import. The forms of one program
share one build (the same inputs and eager reference); each form's
expectations are a `corpus_base.Form`, and `suite` marks the one form of
each the test suite checks (GMX_FULL_CORPUS=1: all).
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
    Form,
    RealProgram,
    data,
    embedding_part,
    entries_per_form,
    hf_hidden,
    hf_logits,
    hf_program,
    index,
    inputs,
    linear_part,
    onnx_program,
    random_floats,
    random_ids,
    seeded_rng,
    torch_program,
    weights_part,
)

# --- Hugging Face models: config, inputs, outputs -----------------------------------

SMALL = dict(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=1, num_attention_heads=HEADS,
             intermediate_size=32)


def _pixels(name: str) -> tuple:
    return (random_floats(name, 1, 3, 8, 8),)


def _ids_and_boxes(name: str) -> tuple:
    corners = np.sort(random_ids(f"{name}/box", BATCH, SEQ, 2, 2, high=32), axis=-2)  # x0 <= x1, y0 <= y1
    return random_ids(name, BATCH, SEQ), corners.reshape(BATCH, SEQ, 4)  # (x0, y0, x1, y1)


def _long_ids(name: str) -> tuple:
    return (random_ids(name, 1, 16),)


def _codepoints(name: str) -> tuple:
    return (random_ids(name, BATCH, SEQ, high=1000),)


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
    mask = seeded_rng(name).random(BATCH * SEQ) < 0.6
    return np.flatnonzero(mask).astype(np.int64)


def _onnx_gather_negative(name: str) -> Built:
    """Gather on axis -1 with negative indices, then Mul."""
    from onnx import helper

    model = onnx_program(
        [helper.make_node("Gather", ["x", "ids"], ["picked"], name="picked", axis=-1),
         helper.make_node("Mul", ["picked", "picked"], ["out"], name="out")],
        [("x", (np.float32, (3, 4, 6))), ("ids", (np.int64, (2, 3)))], [("out", (np.float32, (3, 4, 2, 3)))],
    )
    return Built(model, (random_floats(f"{name}/x", 3, 4, 6), random_ids(f"{name}/ids", 2, 3, high=12) - 6))


def _onnx_gather_nd_batch(name: str) -> Built:
    """GatherND with batch_dims=1 (one (row, column) pair per batch element and slot), then Relu."""
    from onnx import helper

    model = onnx_program(
        [helper.make_node("GatherND", ["x", "pairs"], ["picked"], name="picked", batch_dims=1),
         helper.make_node("Relu", ["picked"], ["out"], name="out")],
        [("x", (np.float32, (2, 5, 6, 3))), ("pairs", (np.int64, (2, 4, 2)))], [("out", (np.float32, (2, 4, 3)))],
    )
    pairs = np.stack([random_ids(f"{name}/r", 2, 4, high=5), random_ids(f"{name}/c", 2, 4, high=6)], -1)
    return Built(model, (random_floats(f"{name}/x", 2, 5, 6, 3), pairs))


def _onnx_gather_elements_negative(name: str) -> Built:
    """GatherElements on axis -2 with negative indices, then Add of the input's first rows."""
    from onnx import helper

    model = onnx_program(
        [helper.make_node("GatherElements", ["x", "ids"], ["picked"], name="picked", axis=-2),
         helper.make_node("Abs", ["picked"], ["out"], name="out")],
        [("x", (np.float32, (2, 7, 3))), ("ids", (np.int64, (2, 4, 3)))], [("out", (np.float32, (2, 4, 3)))],
    )
    return Built(model, (random_floats(f"{name}/x", 2, 7, 3), random_ids(f"{name}/ids", 2, 4, 3, high=14) - 7))


def _int8_table():
    import torch

    return torch.randint(-128, 128, (20, 6), dtype=torch.int8)


def _positive(*shape):
    def make():
        import torch

        return torch.rand(*shape) + 0.01

    return make


# --- the registry ---------------------------------------------------------------------

ENTRIES: list[RealProgram] = []


def _add_forms(*args, **forms):
    """One program, `name@form` for each form (`corpus_base.entries_per_form`'s arguments)."""
    ENTRIES.extend(entries_per_form(*args, **forms))


T = MODEL_TOLERANCE
F = Form
# Why a check fails today (a `blocked` reason, defined beside the entries it
# blocks): what the lowering does not do yet, or what torch-mlir itself
# cannot export.
NO_STABLEHLO = "torch-mlir cannot lower it to StableHLO (Torch Backend IR -> StableHLO Backend IR fails)"
OUT_OF_MEMORY = "torch-mlir's Torch Backend IR -> StableHLO Backend IR runs out of memory (std::bad_alloc after 16 GB)"

# Hugging Face models of families the first corpus does not have; `suite`
# marks the one form of each the test suite checks (GMX_FULL_CORPUS=1: all)
SLICE = "the position_ids buffer[:, :T] is arange(T): a slice"
IDENTITY = "an index_select at arange(n) is the identity: the input"
_add_forms("deberta_v2", "DeBERTa-v2", "DebertaV2Model hidden states (relative positions, c2p and p2c attention)",
           hf_program("DebertaV2Model", "DebertaV2Config", hf_hidden, relative_attention=True, position_buckets=4,
               max_relative_positions=8, pos_att_type=["p2c", "c2p"], max_position_embeddings=32, **SMALL), T,
           tosa=F(4, 3, SLICE, suite=False), linalg=F(4, 3, SLICE),
           stablehlo=F(4, 3, SLICE, suite=False))
_add_forms("mpnet", "MPNet", "MPNetModel hidden states (relative position buckets)",
           hf_program("MPNetModel", "MPNetConfig", hf_hidden, max_position_embeddings=40, **SMALL), T,
           tosa=F(3, 3, kept={"tosa.mul": 2}, suite=False),  # cumsum(mask) * mask
           linalg=F(3, 3, suite=False), stablehlo=F(3, 3, suite=False))
_add_forms("xlnet", "XLNet", "XLNetModel hidden states (relative positional encodings, rel_shift)",
           hf_program("XLNetModel", "XLNetConfig", hf_hidden, vocab_size=VOCAB, d_model=HIDDEN, n_layer=1, n_head=HEADS,
               d_inner=32), T,
           tosa=F(2, 1, IDENTITY, suite=False), linalg=F(2, 1, IDENTITY), stablehlo=F(2, 1, IDENTITY, suite=False))
_add_forms("funnel", "Funnel", "FunnelModel hidden states (relative shift attention, pooling)",
           hf_program("FunnelModel", "FunnelConfig", hf_hidden, vocab_size=VOCAB, block_sizes=[1, 1], d_model=HIDDEN,
               n_head=HEADS, d_head=8, d_inner=32, num_decoder_layers=1), T,
           tosa=F(5, 5, suite=False), linalg=F(4, 4),
           stablehlo=F(4, 4, blocked={"export": NO_STABLEHLO}, suite=False))
_add_forms("opt_lm", "OPT", "OPTForCausalLM logits (positions from the mask's cumsum)",
           hf_program("OPTForCausalLM", "OPTConfig", hf_logits, vocab_size=VOCAB, hidden_size=HIDDEN,
               num_hidden_layers=1, ffn_dim=32, num_attention_heads=HEADS, max_position_embeddings=32,
               word_embed_proj_dim=HIDDEN, attn_implementation="eager"), T,
           tosa=F(2, 2, suite=False), linalg=F(2, 2, suite=False), stablehlo=F(2, 2))
_add_forms("gptj_lm", "GPT-J", "GPTJForCausalLM logits (sin/cos rows gathered at the position ids)",
           hf_program("GPTJForCausalLM", "GPTJConfig", hf_logits, vocab_size=VOCAB, n_positions=32, n_embd=HIDDEN,
               n_layer=1, n_head=HEADS, rotary_dim=4, attn_implementation="eager"), T,
           tosa=F(10, 5, f"{MASK}; the positions arange(T) read the sin/cos table as a slice", suite=False),
           linalg=F(6, 2, "4 of the 6 become copies or "
                     "slices at arange positions, not inspected one by one",
                     suite=False),
           stablehlo=F(6, 5, "the positions arange(T) read the sin/cos table as a slice", suite=False))
_add_forms("m2m100", "M2M100", "M2M100Model decoder hidden states (sinusoidal positions from the padding mask)",
           hf_program("M2M100Model", "M2M100Config", _encoder_decoder, vocab_size=VOCAB, d_model=HIDDEN,
               encoder_layers=1, decoder_layers=1, encoder_attention_heads=HEADS, decoder_attention_heads=HEADS,
               encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=32, attn_implementation="eager"), T,
           tosa=F(4, 4, kept={"tosa.mul": 2}, suite=False,  # cumsum(mask) * mask
                  data_view="the sinusoidal table gathered is weights[:T + offset] of a computed buffer, viewed"),
           linalg=F(4, 4, suite=False), stablehlo=F(4, 4, suite=False))
_add_forms("layoutlm", "LayoutLM", "LayoutLMModel hidden states (x, y, height and width embeddings of the boxes)",
           hf_program("LayoutLMModel", "LayoutLMConfig", _hidden_with_boxes, _ids_and_boxes, max_position_embeddings=32,
               max_2d_position_embeddings=64, **SMALL), T,
           tosa=F(9, 8, SLICE), linalg=F(9, 8, SLICE, suite=False), stablehlo=F(9, 8, SLICE, suite=False))
_add_forms("beit", "BEiT", "BeitModel hidden states (relative position bias, bicubically interpolated, gathered)",
           hf_program("BeitModel", "BeitConfig", _pixel_hidden, _pixels, image_size=8, patch_size=4, num_channels=3,
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
           hf_program("BigBirdModel", "BigBirdConfig", hf_hidden, _long_ids, attention_type="block_sparse",
               block_size=2, num_random_blocks=1, max_position_embeddings=32, **SMALL), T,
           tosa=F(6, 5, SLICE),
           linalg=F(5, 4, SLICE, suite=False,
                    data_view="the program's blocked view of its keys and values (x.view(b, h, blocks, block, d))"),
           stablehlo=F(6, 5, SLICE, suite=False))
_add_forms("canine", "CANINE", "CanineModel hidden states (hashed codepoint embeddings, downsampling)",
           hf_program("CanineModel", "CanineConfig", hf_hidden, _codepoints, hidden_size=HIDDEN, num_hidden_layers=1,
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
           torch_program(_crf_viterbi, inputs(data(2, 5, 4)), start=weights_part(4), transitions=weights_part(4, 4)),
           tosa=F(4, 4), linalg=F(4, 4), stablehlo=F(4, 4))
_add_forms("ctc_loss", "CTC", "CTC forward recursion: label log-probs and the final states gathered",
           torch_program(_ctc_loss,
                         inputs(lambda n: np.log(seeded_rng(n).dirichlet(np.ones(5), (2, 6))).astype(np.float32),
                                index(2, 2, high=4))), 1e-5,
           tosa=F(2, 2), linalg=F(2, 2, kept={"tensor.insert_slice": 1}),  # extended[:, 1::2] = labels
           stablehlo=F(2, 2, blocked={"export": OUT_OF_MEMORY}, suite=False))
_add_forms("dlrm_interaction", "DLRM", "DLRM dot interaction: the lower triangle of the dots by constant index lists",
           torch_program(_dlrm_interaction, inputs(data(2, 4), index(2, 3, high=10)),
                         tables=lambda: __import__("torch").nn.ModuleList(embedding_part(10, 4)() for _ in range(3))),
           1e-5, tosa=F(4, 4), linalg=F(4, 4), stablehlo=F(4, 4))
_add_forms("knn_graph_feature", "DGCNN", "DGCNN get_graph_feature: topk neighbours gathered from the flat batch",
           torch_program(_knn_graph_feature, inputs(data(2, 3, 6))), 1e-5,
           tosa=F(13, 13, TOPK.format(12), kept={"tosa.concat": 1, "tosa.mul": 1}, data_view=KNN_VIEW),
           linalg=F(1, 1, data_view=KNN_VIEW),
           stablehlo=F(1, 1, data_view=KNN_VIEW))
_add_forms("segment_means", "segments", "rows minus their segment's mean (index_add, then a gather back)",
           torch_program(_segment_means, inputs(data(7, 3), index(7, high=4))), 1e-5,
           tosa=F(1, 1, blocked={"export": "torch-mlir has no TOSA lowering of index_add (aten.index_put with "
                                           "accumulate)"}),
           linalg=F(1, 1), stablehlo=F(1, 1))
_add_forms("int8_embedding", "embedding", "int8 embedding rows dequantised by their gathered scale and zero point",
           torch_program(_int8_embedding, inputs(index(3, 5, high=20)), weight=_int8_table, scale=_positive(20),
                         zero=weights_part(20)), 1e-6, tosa=F(3, 3), linalg=F(3, 3), stablehlo=F(3, 3))
_add_forms("unpad_pad", "flash-attention", "bert_padding's unpad (gather of real tokens), a projection, pad (scatter)",
           torch_program(_unpad_pad, inputs(data(BATCH, SEQ, 4), _real_tokens), proj=linear_part(4, 4)), 1e-5,
           tosa=F(1, 1, data_view="bert_padding's hidden.reshape(B * S, D) is the gathered input"),
           linalg=F(1, 1, data_view="bert_padding's hidden.reshape(B * S, D) is the gathered input"),
           stablehlo=F(1, 1))

# ONNX models
_add_forms("onnx_gather_negative", "ONNX", "Gather on axis -1 with negative indices, Mul", _onnx_gather_negative,
           onnx=F(1, 1))
_add_forms("onnx_gather_nd_batch", "ONNX", "GatherND with batch_dims=1, Relu", _onnx_gather_nd_batch, onnx=F(1, 1))
_add_forms("onnx_gather_elements_negative", "ONNX", "GatherElements on axis -2 with negative indices, Abs",
           _onnx_gather_elements_negative, onnx=F(1, 1))
