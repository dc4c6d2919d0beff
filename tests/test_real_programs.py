"""The real-program corpus (`gmx.tools.experiments.models.MODELS`): tiny
Hugging Face models with random weights, programs users write around them
(losses, MoE routing, beam search, KV caches, GNNs, pruning, sampling) and
ONNX models, each exported once per session.

Per program, three checks (`CHECKS`):
- export: the frontend makes the program's form (TOSA, or for the second
  corpus `NAME@FORM` torch-mlir's TOSA, linalg-on-tensors or StableHLO, or
  an ONNX model's TOSA) with `program.gathers` gathers as that form spells
  them (`corpus_base.source_gathers`);
- fused: after --gmx-canonicalize (strict, as conftest sets it), exactly
  `program.gmx_ops` gmx ops, no gather of the source form, no linearisation in front of
  a gmx op (`sites.LINEARISATION_OPS` in its index computation,
  beyond the program's own `kept` arithmetic), no view of a gmx op's data,
  and nothing written to stderr (no warning);
- runs: the fused module through gmx.runtime equals eager PyTorch / ONNX's
  reference evaluator, bit for bit or within the program's tolerance.

The suite checks the programs `in_suite` (the second corpus's whole models
in one form each: a whole model's JIT compile takes seconds), and runs all
but the slowest whole models (`RUN_IN_FULL_ONLY`); with GMX_FULL_CORPUS=1 it
checks every program in every form and runs each.

A check that fails today is a strict xfail with the reason the registry
gives (`program.blocked`: what blocks it), so the suite flips when the fix
lands.
"""

from __future__ import annotations

import functools
import os
from collections import Counter

import pytest

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnx")

import gmx.runtime  # noqa: E402
from gmx.dialect import make_context  # noqa: E402
from gmx.dialect.mlir import ir  # noqa: E402
from gmx.tools.experiments import corpus_base  # noqa: E402
from gmx.tools.experiments.sites import Site, linearisation_left, source_line  # noqa: E402
from gmx.tools.experiments.corpus_base import CHECKS  # noqa: E402
from gmx.tools.experiments.models import MODELS  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402
from scatter_lowering import skip_unless_scatters_lower  # noqa: E402


@functools.cache
def exported(name: str):
    """(built program, its export in the program's form), once per session;
    the forms of one program share its build."""
    program = MODELS[name]
    built = program.build()
    return built, corpus_base.export(built, form=program.form)


@functools.cache
def fused(name: str) -> str:
    return run_pipeline(exported(name)[1], ["gmx-canonicalize"]).text


def blocked_reason(program, check: str) -> str | None:
    """Why `check` fails today: its own reason, or that of an earlier check
    it depends on (nothing is fused or run that was not exported)."""
    if check != "export" and "export" in program.blocked:
        return program.blocked["export"]
    return program.blocked.get(check)


# Every program of the registry, not only those `in_suite` (the suite's time budget).
FULL = os.environ.get("GMX_FULL_CORPUS", "") not in ("", "0")


# Whole models whose run (a JIT compile of 8 to 22 s on the 2 CI cores) is
# checked with GMX_FULL_CORPUS=1 only; their export and fusion are checked on
# every run, and the gmx ops they run are the smaller models' (gpt2_lm,
# t5_encoder, llama_lm, mistral_lm, mixtral_lm, xlnet, opt_lm, big_bird),
# which run on every run.
RUN_IN_FULL_ONLY = frozenset({"funnel@linalg", "bert_mlm", "gpt2_pooled", "distilbert_mlm", "bart",
                              "canine@linalg", "roberta_mlm", "deberta_v2@linalg"})


def programs(check: str) -> list:
    """Every program in the suite (every one with GMX_FULL_CORPUS=1), a
    strict xfail where `check` is blocked today."""
    params = []
    for program in MODELS.values():
        if not (program.in_suite or FULL) or (check == "runs" and program.name in RUN_IN_FULL_ONLY and not FULL):
            continue
        reason = blocked_reason(program, check)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(program, marks=marks, id=program.name))
    return params


@pytest.mark.parametrize("program", programs("export"))
def test_export(program):
    _, text = exported(program.name)
    with make_context():
        gathers = corpus_base.source_gathers(ir.Module.parse(text), program.form)
    assert gathers == program.gathers, (
        f"{program.name}: {gathers} gathers ({', '.join(corpus_base.SOURCE_GATHERS[program.form])}) in the export, "
        f"registry says {program.gathers}")


@pytest.mark.parametrize("program", programs("fused"))
def test_fused(program, capfd):
    _, text = exported(program.name)
    capfd.readouterr()  # the export's own chatter is not the pass's
    problems = corpus_base.fusion_problems(program, fused(program.name))
    assert not problems, f"{program.name}: " + "; ".join(problems)
    assert capfd.readouterr().err == "", "--gmx-canonicalize wrote to stderr"


@pytest.mark.parametrize("program", programs("runs"))
def test_runs(program):
    built, _ = exported(program.name)
    skip_unless_scatters_lower(fused(program.name))  # a raised scatter runs once the engine lowers it
    got = gmx.runtime.run(fused(program.name), *built.inputs)
    difference = corpus_base.matches(got, corpus_base.reference(built), program.tolerance)
    assert difference is None, f"{program.name}: {difference}"


def test_registry_covers_the_brief():
    """At least 25 programs from 6 model families besides ONNX; every reason
    names a known check and says what blocks it."""
    assert len(MODELS) >= 25
    hugging_face = {"GPT-2", "BERT", "DistilBERT", "RoBERTa", "T5", "Llama", "Qwen2", "Mistral", "Mixtral", "CLIP",
                    "BART"}
    assert len(hugging_face & {p.family for p in MODELS.values()}) >= 6
    assert sum(p.family == "ONNX" for p in MODELS.values()) >= 4
    for program in MODELS.values():
        assert set(program.blocked) <= set(CHECKS), program.name
        assert all(reason.strip() for reason in program.blocked.values()), program.name
        assert program.gmx_ops <= program.gathers or not program.gathers, program.name


def test_second_corpus_covers_the_brief():
    """The second corpus: 8 more Hugging Face families and programs as users
    write them, each torch program in torch-mlir's three forms, ONNX models
    through its importer; every form has programs the suite checks."""
    second = [p for p in MODELS.values() if "@" in p.name]
    assert all(p.name.endswith("@" + p.form) for p in second)
    families = {p.family for p in second}
    new_families = {"DeBERTa-v2", "MPNet", "XLNet", "Funnel", "OPT", "GPT-J", "M2M100", "LayoutLM", "BEiT",
                    "Big Bird", "CANINE"}
    assert len(new_families & families) >= 8
    bases: dict[str, set] = {}
    for program in second:
        bases.setdefault(program.name.split("@")[0], set()).add(program.form)
    assert all(forms == {"tosa", "linalg", "stablehlo"} or forms == {"onnx"} for forms in bases.values()), bases
    assert sum(forms == {"onnx"} for forms in bases.values()) >= 3
    assert {p.form for p in second if p.in_suite} == set(corpus_base.FORMS)


def _site(**index_ops) -> Site:
    return Site("gmx.gather_multiaxis", "m.py:1", "tensor<2xf32>", Counter(index_ops), 0)


def test_linearisation_left_sums_sites_and_allows_kept_ops():
    sites = [_site(**{"tosa.mul": 1, "tosa.cast": 2}), _site(**{"tosa.mul": 1, "tosa.reduce_sum": 1})]
    assert linearisation_left(sites) == {"tosa.mul": 2, "tosa.reduce_sum": 1}
    assert linearisation_left(sites, {"tosa.mul": 1}) == {"tosa.mul": 1, "tosa.reduce_sum": 1}
    assert linearisation_left(sites, {"tosa.mul": 2, "tosa.reduce_sum": 1}) == {}
    assert linearisation_left([_site(**{"tosa.add": 3})]) == {}  # add alone is no linearisation


def test_source_line_names_the_model_line_not_torch():
    with make_context():
        location = ir.Location.callsite(
            ir.Location.file("/venv/site-packages/torch/nn/modules/sparse.py", 189, 0),
            [ir.Location.file("/venv/site-packages/transformers/models/gpt2/modeling_gpt2.py", 574, 0)],
        )
        assert source_line(location) == "modeling_gpt2.py:574"
        assert source_line(ir.Location.file("/venv/site-packages/torch/functional.py", 3, 0)) == "functional.py:3"
        assert source_line(ir.Location.name("picked")) == "picked"
        assert source_line(ir.Location.unknown()) == "<unknown>"
