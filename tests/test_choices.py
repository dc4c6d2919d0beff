"""The tools' user-facing choices are Enums spelled as on the command line,
each read back by one parser that names the known spellings."""

from __future__ import annotations

import pytest

from gmx.dialect.errors import GmxError
from gmx.tools.experiments.choices import Choice, ChoiceError
from gmx.tools.experiments.frontends import FRONTENDS, Frontend
from gmx.tools.experiments.variants import VARIANTS, BenchmarkKind, make_study
from gmx.tools.study.stages import STAGE_KEYS, StageKey

CHOICES = (Frontend, BenchmarkKind, StageKey)


@pytest.mark.parametrize("choice", CHOICES, ids=lambda c: c.__name__)
def test_every_spelling_parses_to_its_member(choice):
    assert issubclass(choice, Choice)
    for member in choice:
        assert choice.parse(str(member)) is member and member == member.value


def test_unknown_spellings_name_the_known_ones():
    with pytest.raises(ChoiceError, match=r"unknown benchmark kind 'strided' \(known: elementwise, block, broadcast\)"):
        BenchmarkKind.parse("strided")
    with pytest.raises(GmxError, match="unknown stage key 'llvm'"):
        StageKey.parse("llvm")
    with pytest.raises(ValueError, match="unknown frontend 'jax'"):
        Frontend.parse("jax")


def test_the_members_are_what_the_tools_use():
    assert set(FRONTENDS) == set(Frontend)
    assert STAGE_KEYS == tuple(StageKey) and STAGE_KEYS[0] is StageKey.FRONTEND
    for name, variant in VARIANTS.items():
        assert all(isinstance(f, Frontend) for f in variant.frontends())
        assert all(isinstance(b.kind, BenchmarkKind) for b in variant.benchmarks)
        assert make_study(name).frontend is variant.frontends()[0]
