"""PyTorch programs with gathers, exported to TOSA by torch-mlir: the corpus
that `--gmx-canonicalize` must raise into `gmx.gather_multiaxis`.

Each `Program` names a module factory, a function making its example inputs
(fixed seed: the CRC-32 of the program's name) and `gathers`, the number of
gathers in the TOSA source (one `tosa.gather` each, on a flattened or
row-reshaped input with linearised index arithmetic, docs/semantics.md#how-frontends-spell-gathers-today),
i.e. the number of `gmx.gather_multiaxis` ops the pass must leave.

    program = BY_NAME["gather_r3_d1"]
    text = exported(program.name)       # TOSA text (gmx.tools.experiments.frontends), cached
    hlo = exported(program.name, "stablehlo")  # or linalg-on-tensors: the run's one import, lowered
    args = numpy_inputs(program)        # bf16 as ml_dtypes.bfloat16
    want = eager(program)               # PyTorch eager results, numpy, a tuple
    assert_bitwise_equal(gmx.runtime.run(text, *args), want)

Element types: f32, f16, bf16, i32, i64, f64 and bool are in the corpus; i8
and i16 export and run too (checked once, left out for time); each runs
unfused as well (f64 too: `--gmx-lower-to-llvm` leaves out upstream's TOSA
profile validation, which rejected f64 `tosa.reshape`). complex64 does not
export (TorchToTosa: "tosa-conformant tensor of number values"). uint8 exports as signless i8, which gmx.runtime rightly
refuses for a uint8 array, so it is left out.

Index values: eager torch.gather, index_select, embedding and
take_along_dim without a dim reject negative indices, so those programs use
[0, size). Advanced indexing (`w[i]`, `x[i, :, j]`, ...) and torch.take use
[-size, size), both ends included; take_along_dim with a dim wraps any value
(see its section), so most of those use [-3 size, 3 size).
"""

from __future__ import annotations

import functools
import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from gmx.tools.experiments.dtypes import from_torch
import run_cache
from gmx.tools.experiments.frontends import torch_import, torch_lower, torch_module

F32, F16, BF16, F64 = torch.float32, torch.float16, torch.bfloat16, torch.float64
I32, I64, BOOL = torch.int32, torch.int64, torch.bool

@dataclass(frozen=True)
class Program:
    name: str
    model: Callable[[], torch.nn.Module]  # a fresh module (weights seeded)
    make_inputs: Callable[[], tuple]  # example inputs, torch tensors, seeded
    gathers: int  # gathers in the source = gmx ops after the pass
    # ops the tests otherwise forbid after the pass that belong to the program
    # itself, not to a gather's linearisation: ((op name, at most this many), ...)
    kept: tuple = ()
    specs: tuple = ()  # the inputs' Data / Index specs, in order

    def __repr__(self) -> str:
        return f"Program({self.name})"


# --- inputs ---------------------------------------------------------------


@dataclass(frozen=True)
class Data:
    shape: tuple
    dtype: torch.dtype = F32

    def make(self, g: torch.Generator) -> torch.Tensor:
        if self.dtype.is_floating_point:
            return torch.randn(self.shape, generator=g).to(self.dtype)
        if self.dtype == BOOL:
            return torch.randint(0, 2, self.shape, generator=g).to(BOOL)
        return torch.randint(-100, 100, self.shape, generator=g).to(self.dtype)


@dataclass(frozen=True)
class Index:
    shape: tuple
    size: int  # size of the indexed axis
    negative: bool = False  # values in [-span, span) rather than [0, span)
    dtype: torch.dtype = I64
    wraps: int = 1  # span = wraps * size (> 1 only where PyTorch wraps any value)

    def make(self, g: torch.Generator) -> torch.Tensor:
        span = self.wraps * self.size
        low = -span if self.negative else 0
        values = torch.randint(low, span, self.shape, generator=g)
        if values.numel() > 1:
            # make sure both ends of the range really occur
            flat = values.view(-1)
            flat[0] = low
            flat[1] = span - 1
        return values.to(self.dtype)


def data(*shape, dtype=F32) -> Data:
    return Data(tuple(shape), dtype)


def index(*shape, size, negative=False, dtype=I64, wraps=1) -> Index:
    return Index(tuple(shape), size, negative, dtype, wraps)


def seed_of(name: str) -> int:
    return zlib.crc32(name.encode())


def _inputs_maker(name: str, specs: tuple) -> Callable[[], tuple]:
    def make() -> tuple:
        g = torch.Generator().manual_seed(seed_of(name))
        return tuple(spec.make(g) for spec in specs)

    return make


CORPUS: list = []


def add(name, fn, *specs, gathers=1, model=None, kept=None):
    """Register a program: `fn` is its forward (or `model` its module factory)."""
    assert all(p.name != name for p in CORPUS), name
    factory = model if model is not None else functools.partial(torch_module, fn)
    kept = tuple(sorted((kept or {}).items()))
    CORPUS.append(Program(name, factory, _inputs_maker(name, specs), gathers, kept, specs))


# --- torch.gather: every dim of ranks 1-4, negative dims, small indices ------

add("gather_r1_d0", lambda x, i: torch.gather(x, 0, i), data(10), index(7, size=10))
add("gather_r2_d0", lambda x, i: torch.gather(x, 0, i), data(4, 5), index(3, 5, size=4))
add("gather_r2_d1", lambda x, i: torch.gather(x, 1, i), data(4, 5), index(4, 7, size=5))
add("gather_r3_d0", lambda x, i: torch.gather(x, 0, i), data(4, 5, 6), index(3, 5, 6, size=4))
add("gather_r3_d1", lambda x, i: torch.gather(x, 1, i), data(4, 5, 6), index(4, 3, 6, size=5))
add("gather_r3_d2", lambda x, i: torch.gather(x, 2, i), data(4, 5, 6), index(4, 5, 2, size=6))
add("gather_r4_d0", lambda x, i: torch.gather(x, 0, i), data(3, 4, 2, 5), index(2, 4, 2, 5, size=3))
add("gather_r4_d1", lambda x, i: torch.gather(x, 1, i), data(3, 4, 2, 5), index(3, 6, 2, 5, size=4))
add("gather_r4_d2", lambda x, i: torch.gather(x, 2, i), data(3, 4, 2, 5), index(3, 4, 3, 5, size=2))
add("gather_r4_d3", lambda x, i: torch.gather(x, 3, i), data(3, 4, 2, 5), index(3, 4, 2, 1, size=5))
add("gather_r3_dm2", lambda x, i: torch.gather(x, -2, i), data(4, 5, 6), index(4, 8, 6, size=5))
# index smaller than the input in the non-gather dims
add("gather_r3_d1_small", lambda x, i: torch.gather(x, 1, i), data(4, 5, 6), index(2, 7, 3, size=5))
add("gather_r4_d2_small", lambda x, i: torch.gather(x, 2, i), data(3, 4, 5, 6), index(2, 1, 8, 4, size=5))
# index and data element types
add("gather_r2_d1_idx_i32", lambda x, i: torch.gather(x, 1, i), data(4, 5), index(4, 3, size=5, dtype=I32))
add("gather_r3_d2_f16", lambda x, i: torch.gather(x, 2, i), data(4, 5, 6, dtype=F16), index(4, 5, 3, size=6))
add("gather_r3_d0_bf16", lambda x, i: torch.gather(x, 0, i), data(4, 5, 6, dtype=BF16), index(2, 5, 6, size=4))
add("gather_r2_d0_i32", lambda x, i: torch.gather(x, 0, i), data(4, 5, dtype=I32), index(6, 5, size=4))
add("gather_r3_d1_i64", lambda x, i: torch.gather(x, 1, i), data(4, 5, 6, dtype=I64), index(4, 3, 6, size=5))
add("gather_r2_d1_f64", lambda x, i: torch.gather(x, 1, i), data(4, 5, dtype=F64), index(4, 3, size=5))
add("gather_r2_d0_bool", lambda x, i: torch.gather(x, 0, i), data(4, 5, dtype=BOOL), index(3, 5, size=4))

# --- torch.take_along_dim: broadcasting both ways ---------------------------
# With a dim, PyTorch eager wraps *any* index value modulo the size (torch
# 2.13: take_along_dim(arange(5.), tensor([7, -6]), 0) == [2., 4.]), and
# torch-mlir emits exactly that floor remainder, idx - size * floor(idx / size)
# (tosa.intdiv, 3 x tosa.mul, tosa.sub, tosa.equal, tosa.logical_*, tosa.select),
# on the broadcast (tosa.tile'd) index before linearising it. gmx wraps
# negative values only once, so the remainder must survive the pass; the
# index values below span several multiples of the size (wraps=3) to prove it.
# The 3 tosa.mul belong to that remainder, not to the linearisation.
TAD_KEPT = {"tosa.mul": 3}

# index dim of size 1 where the input is larger
add("tad_r3_d1_bcast_index", lambda x, i: torch.take_along_dim(x, i, 1), data(4, 5, 6),
    index(1, 3, 6, size=5, negative=True, wraps=3), kept=TAD_KEPT)
# input dim of size 1 where the index is larger
add("tad_r3_d1_bcast_input", lambda x, i: torch.take_along_dim(x, i, 1), data(1, 5, 6),
    index(4, 3, 6, size=5, negative=True, wraps=3), kept=TAD_KEPT)
# both ways at once (torch-mlir tiles the data and the index)
add("tad_r3_d1_bcast_both", lambda x, i: torch.take_along_dim(x, i, 1), data(4, 5, 1),
    index(1, 3, 6, size=5, negative=True, wraps=3), kept=TAD_KEPT)
add("tad_r4_d2_bcast_both", lambda x, i: torch.take_along_dim(x, i, 2), data(2, 1, 4, 5),
    index(1, 3, 6, 1, size=4, negative=True), kept=TAD_KEPT)
# index values in [0, size) only: the common case
add("tad_r2_d0_f16", lambda x, i: torch.take_along_dim(x, i, 0), data(4, 5, dtype=F16),
    index(3, 1, size=4), kept=TAD_KEPT)
# no dim: the input is flattened first (like torch.take); no remainder then,
# and eager rejects negative indices
add("tad_flat", lambda x, i: torch.take_along_dim(x, i), data(4, 5), index(6, size=20))

# --- torch.index_select: every dim ------------------------------------------

add("isel_r1_d0", lambda x, i: torch.index_select(x, 0, i), data(10), index(4, size=10))
add("isel_r3_d0", lambda x, i: torch.index_select(x, 0, i), data(4, 5, 6), index(2, size=4))
add("isel_r3_d1", lambda x, i: torch.index_select(x, 1, i), data(4, 5, 6), index(7, size=5))
add("isel_r3_d2", lambda x, i: torch.index_select(x, 2, i), data(4, 5, 6), index(3, size=6))
add("isel_r4_d3", lambda x, i: torch.index_select(x, 3, i), data(2, 3, 4, 5), index(4, size=5))
add("isel_r3_dm2", lambda x, i: torch.index_select(x, -2, i), data(4, 5, 6), index(3, size=5))
add("isel_r2_d1_idx_i32", lambda x, i: torch.index_select(x, 1, i), data(4, 5), index(3, size=5, dtype=I32))
add("isel_r3_d1_bf16", lambda x, i: torch.index_select(x, 1, i), data(4, 5, 6, dtype=BF16), index(4, size=5))

# --- embedding: w[idx], F.embedding, nn.Embedding ---------------------------


def _embedding_module(num: int, dim: int, name: str) -> Callable[[], torch.nn.Module]:
    def make() -> torch.nn.Module:
        torch.manual_seed(seed_of(name))
        return torch.nn.Embedding(num, dim)

    return make


add("embed_idx2d_i64", lambda w, i: w[i], data(10, 4), index(2, 3, size=10))
add("embed_idx1d_negative", lambda w, i: w[i], data(10, 4), index(6, size=10, negative=True))
add("embed_idx2d_i32_f16", lambda w, i: w[i], data(8, 3, dtype=F16), index(2, 4, size=8, dtype=I32))
add("F_embedding_idx2d_i32", lambda i, w: F.embedding(i, w), index(2, 3, size=10, dtype=I32), data(10, 4))
add("nn_embedding_idx2d", None, index(3, 4, size=12), model=_embedding_module(12, 5, "nn_embedding_idx2d"))

# --- advanced indexing (negative index values included) --------------------

add("adv1_lead_idx2d", lambda x, i: x[i], data(4, 5, 6), index(2, 3, size=4, negative=True))
add("adv1_mid", lambda x, i: x[:, i], data(4, 5, 6), index(3, size=5, negative=True))
add("adv1_last", lambda x, i: x[..., i], data(3, 4, 5), index(2, 2, size=5, negative=True))
add("adv2_contig_lead", lambda x, i, j: x[i, j], data(4, 5, 6),
    index(3, size=4, negative=True), index(3, size=5, negative=True))
add("adv2_contig_mid_r4", lambda x, i, j: x[:, i, j], data(3, 4, 5, 6),
    index(2, size=4, negative=True), index(2, size=5, negative=True))
add("adv2_noncontig", lambda x, i, j: x[i, :, j], data(4, 5, 6),
    index(3, size=4, negative=True), index(3, size=6, negative=True))
add("adv2_noncontig_r4", lambda x, i, j: x[:, i, :, j], data(3, 4, 5, 6),
    index(4, size=4, negative=True), index(4, size=6, negative=True))
add("adv3_full_r3", lambda x, i, j, k: x[i, j, k], data(4, 5, 6),
    index(5, size=4, negative=True), index(5, size=5, negative=True), index(5, size=6, negative=True))
add("adv3_contig_mid_r4", lambda x, i, j, k: x[:, i, j, k], data(2, 3, 4, 5),
    index(3, size=3, negative=True), index(3, size=4, negative=True), index(3, size=5, negative=True))
add("adv3_noncontig_r4", lambda x, i, j, k: x[i, :, j, k], data(3, 4, 5, 6),
    index(2, size=3, negative=True), index(2, size=5, negative=True), index(2, size=6, negative=True))
# broadcast / outer product of the index tensors
add("adv2_outer", lambda x, i, j: x[i[:, None], j], data(4, 5, 6),
    index(3, size=4, negative=True), index(2, size=5, negative=True))
add("adv2_outer_noncontig", lambda x, i, j: x[i[:, None], :, j[None, :]], data(4, 5, 6),
    index(3, size=4, negative=True), index(2, size=6, negative=True))
add("adv3_outer_r4", lambda x, i, j, k: x[:, i[:, None, None], j[None, :, None], k], data(2, 4, 5, 6),
    index(2, size=4, negative=True), index(3, size=5, negative=True), index(4, size=6, negative=True))
add("adv2_idx2d", lambda x, i, j: x[i, j], data(4, 5, 6),
    index(2, 3, size=4, negative=True), index(2, 3, size=5, negative=True))
add("adv2_bcast_size1", lambda x, i, j: x[i, :, j], data(4, 5, 6),
    index(3, size=4, negative=True), index(1, size=6, negative=True))
# element types
add("adv2_noncontig_idx_i32", lambda x, i, j: x[i, :, j], data(4, 5, 6),
    index(3, size=4, negative=True, dtype=I32), index(3, size=6, negative=True, dtype=I32))
add("adv2_noncontig_bf16", lambda x, i, j: x[i, :, j], data(4, 5, 6, dtype=BF16),
    index(3, size=4, negative=True), index(3, size=6, negative=True))
add("adv2_noncontig_i64", lambda x, i, j: x[i, :, j], data(4, 5, 6, dtype=I64),
    index(3, size=4, negative=True), index(3, size=6, negative=True))
add("adv1_lead_f64", lambda x, i: x[i], data(4, 5, dtype=F64), index(3, size=4, negative=True))
add("adv2_contig_bool", lambda x, i, j: x[i, j], data(4, 5, 6, dtype=BOOL),
    index(3, size=4, negative=True), index(3, size=5, negative=True))

# --- several gathers with other ops between them ----------------------------

add("multi_gather_add_isel",
    lambda x, i, y, j: torch.index_select(torch.gather(x, 1, i) + y, 0, j),
    data(4, 5), index(4, 3, size=5), data(4, 3), index(6, size=4), gathers=2)
add("multi_shared_input",  # two results
    lambda x, i, j: (torch.gather(x, 0, i), torch.gather(x, 1, j)),
    data(4, 5), index(3, 5, size=4), index(4, 2, size=5), gathers=2)
add("multi_shared_index",
    lambda w1, w2, i: w1[i] + w2[i], data(8, 3), data(8, 3), index(2, 4, size=8, negative=True), gathers=2)
add("multi_embed_then_gather",
    lambda w, i, j: torch.gather(w[i], 1, j), data(10, 4), index(5, size=10), index(5, 2, size=4), gathers=2)
add("multi_adv_chain",
    lambda x, i, j: x[i][:, :, j], data(4, 5, 6), index(3, size=4, negative=True),
    index(2, size=6, negative=True), gathers=2)
add("multi_gather_relu_tad",
    lambda x, i, j: torch.take_along_dim(torch.relu(torch.gather(x, 2, i)), j, 0),
    data(3, 4, 5), index(3, 4, 2, size=5), index(1, 4, 2, size=3, negative=True, wraps=3), gathers=2, kept=TAD_KEPT)
# the program multiplies itself: that one tosa.mul stays
add("multi_isel_mul_embed",
    lambda x, s, i, j: torch.index_select(x, 1, i) * s[j],
    data(4, 5), data(6, 1), index(3, size=5), index(4, size=6), gathers=2, kept={"tosa.mul": 1})

# --- other ops around the gather, constant indices --------------------------

# torch.take: flattened input, negative indices allowed
add("take_r3_negative", lambda x, i: torch.take(x, i), data(3, 4, 5), index(2, 3, size=60, negative=True))
# index tensors that are constants of the program
add("adv1_mid_const_index", lambda x: x[:, torch.tensor([2, 0, -1])], data(4, 5, 6))
# an integer index first: tosa.slice, then a row gather (values C = 6)
add("int_then_adv", lambda x, i: x[1, i], data(4, 5, 6), index(3, size=5, negative=True))
add("transpose_then_embed", lambda x, i: x.transpose(0, 2)[i], data(4, 5, 6), index(4, size=6, negative=True))
# index broadcast by expand (a tosa.tile of the index)
add("gather_expanded_index", lambda x, j: torch.gather(x, 1, j.view(4, 1, 1).expand(4, 2, 6)),
    data(4, 5, 6), index(4, size=5))
# the strided slice x[::2] is itself emitted as a tosa.gather (constant index
# [[0, 2]] into x reshaped to [1, 4, 30]): two gathers in the TOSA source
add("slice_step2_then_adv", lambda x, i: x[::2, i], data(4, 5, 6), index(3, size=5, negative=True), gathers=2)

# --- 0-d index tensors and size-1 dims -------------------------------------

# a 0-d index: torch-mlir reshapes it to [1] (a rank-0 tensor under the views)
add("isel_0d_r2_d0", lambda x, i: torch.index_select(x, 0, i), data(4, 3), index(size=4))
add("isel_0d_r3_d1", lambda x, i: torch.index_select(x, 1, i), data(4, 5, 6), index(size=5))
add("isel_0d_r1", lambda x, i: torch.index_select(x, 0, i), data(5), index(size=5))
add("isel_0d_const", lambda x: torch.index_select(x, 1, torch.tensor(2)), data(4, 5))
add("F_embedding_0d", lambda i, w: F.embedding(i, w), index(size=10), data(10, 4))  # a rank-1 result
add("tad_0d_flat", lambda x, i: torch.take_along_dim(x, i), data(3, 4), index(size=12))
# a one-element input read by every index
add("gather_one_element", lambda x, i: torch.gather(x, 0, i), data(1), index(3, size=1))


# --- a reshape of the result merging the gathered dim --------------------------
# The result reshape folds into the gmx output first, and raising the linear
# index then refines that merged space back; one gmx op, one view after it.

add("merge_after_reshape", lambda x, i: x[:, i].reshape(2, 48), data(2, 5, 8), index(6, size=5, negative=True))
add("merge_tokens_flatten", lambda t, keep: t[:, keep].flatten(1), data(2, 10, 8), index(3, size=10))
add("merge_before_reshape", lambda x, i: x[:, i].reshape(12, 8), data(2, 5, 8), index(6, size=5, negative=True))
add("merge_all_flat", lambda x, i: x[:, i].reshape(-1), data(2, 5, 8), index(6, size=5, negative=True))
# the gathered dim split across the merge (6 = 2 x 3: 4 = 2 x 2, 24 = 3 x 8)
add("merge_split_gathered", lambda x, i: x[:, i].reshape(4, 24), data(2, 5, 8), index(6, size=5, negative=True))
# a unit dim in the result between the batch and the merged dims
add("merge_unit_result_dim", lambda x, i: x[:, i].reshape(2, 1, 48), data(2, 5, 8), index(6, size=5, negative=True))
add("merge_mid_r4", lambda x, i: x[:, :, i].flatten(1), data(2, 3, 5, 4), index(6, size=5, negative=True))
add("merge_last", lambda x, i: x[..., i].flatten(1), data(2, 3, 5), index(4, size=5, negative=True))
add("merge_isel_flatten", lambda x, i: torch.index_select(x, 1, i).flatten(1), data(2, 5, 8), index(6, size=5))
# several gathered dims: a 2-d index, and two index tensors
add("merge_idx2d", lambda x, i: x[:, i].reshape(2, -1), data(2, 5, 8), index(3, 4, size=5, negative=True))
add("merge_two_indices", lambda x, i, j: x[i, :, j].reshape(-1), data(4, 5, 6),
    index(3, size=4, negative=True), index(3, size=6, negative=True))
add("merge_two_indices_contig", lambda x, i, j: x[:, i, j].flatten(), data(2, 4, 5, 6),
    index(3, size=4, negative=True), index(3, size=5, negative=True))
# an iota (batch) dim split by the merge: 4 x (6 x 8) read as 2 x 96
add("merge_split_batch", lambda x, i: x[:, i].reshape(2, -1), data(4, 5, 8), index(6, size=5, negative=True))


# --- data reshaped before indexing, unit dims, constant data -------------------
# torch-mlir composes a reshape of the data with its own flattening (or folds
# it into a constant), so the linearisation's strides address dims the
# flattened input's source lacks; unit dims make two strides equal.

add("view_arange_rows", lambda x, j: x.reshape(3, 8, 4)[torch.arange(3), j], data(24, 4),
    index(3, size=8, negative=True))
add("view_mid", lambda x, j: x.reshape(3, 8, 4)[:, j], data(24, 4), index(5, size=8, negative=True))
add("view_two_indices", lambda x, i, j: x.reshape(3, 8, 4)[i, j], data(24, 4),
    index(5, size=3, negative=True), index(5, size=8, negative=True))
# the index reads a merged dim of the view (16 = 4 x 4): the view stays the gmx input
add("view_merged_dim", lambda x, j: x.reshape(6, 16)[:, j], data(3, 2, 4, 4), index(5, size=16, negative=True))
# GPT-2's pooled logits: (B*T, V) out of a matmul, read at each row's last token
# (integer-valued data, so that the matmul is exact in any order)
add("view_pooled_logits", lambda h, w, last: (h.float() @ w.float()).reshape(2, 5, 7)[torch.arange(2), last],
    data(10, 3, dtype=I32), data(3, 7, dtype=I32), index(2, size=5))
# unit dims: strides [.., s, s, ..] (torch.gather along or beside a unit dim)
add("unit_gather_d0", lambda x, i: torch.gather(x, 0, i), data(10, 1), index(7, 1, size=10))
add("unit_gather_ce", lambda x, i: torch.gather(x, 1, i), data(4, 6, 1), index(4, 1, 1, size=6))
add("unit_gather_along_unit", lambda x, i: torch.gather(x, 1, i), data(4, 1, 5), index(4, 3, 5, size=1))
add("unit_gather_mid_d0", lambda x, i: torch.gather(x, 0, i), data(4, 1, 5), index(3, 1, 5, size=4))
add("unit_adv_noncontig", lambda x, i, j: x[i, :, j], data(4, 1, 6),
    index(3, size=4, negative=True), index(3, size=6, negative=True))
add("unit_adv_contig", lambda x, i, j: x[i, j], data(4, 1, 6),
    index(3, size=4, negative=True), index(3, size=1, negative=True))
# constant data: a frozen weight (torch-mlir folds the flattening into the constant)
_WEIGHT = torch.randn(10, 4, generator=torch.Generator().manual_seed(13))
add("const_weight_gather", lambda i: torch.gather(_WEIGHT, 1, i), index(10, 2, size=4))
add("const_weight_view", lambda i: _WEIGHT.reshape(5, 2, 4)[torch.arange(5), i], index(5, size=2, negative=True))

# --- the user's own index arithmetic, broadcast indices ------------------------
# Arithmetic the user wrote on an index is the index, not a linearisation:
# it stays in front of one gmx op on the unflattened data (kept: its mul).

add("user_isel_sum", lambda x, i, j: x.index_select(0, i + j), data(10, 4), index(3, size=5), index(3, size=5))
add("user_isel_scaled", lambda x, i: x.index_select(0, i * 3), data(10, 4), index(3, size=4), kept={"tosa.mul": 1})
add("user_beam_step", lambda x, beam: x.index_select(0, torch.arange(2) * 3 + beam), data(6, 4), index(2, size=3),
    kept={"tosa.mul": 1})
# i * 4 + j on y.reshape(-1) with j up to 7: valid flat indices, no columns of
# y; the gather stays on the flattened y (read as y[i, j] it would fail)
add("user_linear_on_reshape", lambda y, i, j: y.reshape(-1).index_select(0, i * 4 + j), data(3, 4),
    index(2, size=2), index(2, size=4, wraps=2), kept={"tosa.mul": 1})
# i[:, None] * 4 + arange(4) on y.reshape(-1) (a paged KV cache's block rows):
# the arange is a column of y, so the sum is y's row i, a row gather
add("user_block_rows_on_reshape",
    lambda cache, blocks: cache.reshape(-1, 2).index_select(0, (blocks[:, None] * 4 + torch.arange(4)).reshape(-1)),
    data(3, 4, 2), index(2, size=3), kept={"tosa.mul": 1})
add("user_block_rows_subscript", lambda y, i: y.reshape(-1)[(i[:, None] * 4 + torch.arange(4)).reshape(-1)],
    data(3, 4), index(3, size=3, negative=True))
add("user_linear_on_1d", lambda x, i, j: x[i * 4 + j], data(12), index(2, size=2), index(2, size=4, wraps=2),
    kept={"tosa.mul": 1})
# a broadcast (expand / repeat) of a constant index: one folded constant index
add("bcast_arange_expand", lambda w: w[torch.arange(8).expand(2, 8)], data(10, 4))
add("bcast_arange_repeat", lambda w: w[torch.arange(4).repeat(2, 1)], data(10, 4))
add("bcast_arange_expand_mid", lambda x: x[:, torch.arange(3).expand(2, 3)], data(4, 5, 6))
add("bcast_const_expand", lambda w: w[torch.tensor([3, 1, 4]).expand(2, 3)], data(10, 4))
add("bcast_index_expand", lambda w, i: w[i.expand(2, 3)], data(10, 4), index(3, size=10, negative=True))
add("bcast_index_repeat", lambda w, i: w[i.repeat(2, 1)], data(10, 4), index(3, size=10, negative=True))

BY_NAME: dict = {p.name: p for p in CORPUS}


# --- export and reference ---------------------------------------------------


@functools.lru_cache(maxsize=None)
def imported(name: str) -> str:
    """The program's torch-dialect import (`torch_import`: torch.export, the
    costly half of an export, ~0.2-1 s each), made once per test run for
    all its workers and forms (run_cache)."""
    program = BY_NAME[name]
    return run_cache.cached(f"torch_corpus.{name}.mlir", lambda: torch_import(program.model(), program.make_inputs()))


@functools.lru_cache(maxsize=None)
def exported(name: str, output_type: str = "tosa") -> str:
    """The text torch-mlir emits for the program in `output_type` (TOSA,
    StableHLO or linalg-on-tensors; `torch_export`'s, byte for byte): its
    import lowered (cached). Raises FrontendError where the form fails."""
    return torch_lower(imported(name), output_type)


def numpy_inputs(program: Program) -> tuple:
    """The inputs as gmx.runtime takes them (bf16 as ml_dtypes.bfloat16)."""
    return tuple(from_torch(t) for t in program.make_inputs())


def in_range_tensors(program: Program) -> tuple:
    """The inputs with every negative index value v replaced by v mod size
    (floor): the same PyTorch result (eager wraps the negative values the
    corpus gives), and no negative index for StableHLO's clamp to move.
    Values beyond the size are kept: they are either wrapped by the program
    itself (take_along_dim's remainder) or the user's own arithmetic."""
    return tuple(torch.where(t < 0, torch.remainder(t, spec.size), t) if isinstance(spec, Index) else t
                 for spec, t in zip(program.specs, program.make_inputs()))


def in_range_inputs(program: Program) -> tuple:
    """`in_range_tensors` as gmx.runtime takes them."""
    return tuple(from_torch(t) for t in in_range_tensors(program))


def eager(program: Program, inputs: tuple | None = None) -> tuple:
    """PyTorch eager results, as a tuple of numpy arrays."""
    with torch.no_grad():
        out = program.model()(*(program.make_inputs() if inputs is None else inputs))
    outs = out if isinstance(out, tuple) else (out,)
    return tuple(from_torch(t) for t in outs)


def as_tuple(result) -> tuple:
    return result if isinstance(result, tuple) else (result,)


def assert_bitwise_equal(actual, expected, what: str = "") -> None:
    """Same number of results, and each with the same dtype, shape and bytes."""
    actual, expected = as_tuple(actual), as_tuple(expected)
    assert len(actual) == len(expected), f"{what}: {len(actual)} results, expected {len(expected)}"
    for n, (a, e) in enumerate(zip(actual, expected)):
        a = np.asarray(a)
        assert a.dtype == e.dtype, f"{what} result #{n}: dtype {a.dtype}, expected {e.dtype}"
        assert a.shape == e.shape, f"{what} result #{n}: shape {a.shape}, expected {e.shape}"
        ab = np.ascontiguousarray(a).view(np.uint8).reshape(-1, max(a.itemsize, 1))
        eb = np.ascontiguousarray(e).view(np.uint8).reshape(-1, max(e.itemsize, 1))
        differ = np.flatnonzero((ab != eb).any(axis=1))
        assert differ.size == 0, (
            f"{what} result #{n}: {differ.size} of {math.prod(a.shape)} elements differ, first at flat "
            f"position {differ[0]}: got {a.reshape(-1)[differ[0]]!r}, expected {e.reshape(-1)[differ[0]]!r}"
        )
