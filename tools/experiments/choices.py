"""`Choice`: the base of the tools' user-facing choices (a frontend, a
benchmark kind, a stage), each an Enum whose values are their command-line
spellings, with one parser from that spelling.

A `Choice` is a `str` (`enum.StrEnum`): it compares equal to its spelling,
prints as it, and is written as it into JSON reports.
"""

from __future__ import annotations

import enum
import re

from gmx.dialect.errors import GmxError


class ChoiceError(GmxError, ValueError):
    """A spelling that names no member; the message lists those that do."""


class Choice(enum.StrEnum):
    """A user-facing choice; `parse` reads it from its spelling."""

    @classmethod
    def spellings(cls) -> list[str]:
        return [member.value for member in cls]

    @classmethod
    def parse(cls, text: str):
        """The member spelled `text`; ChoiceError names the known spellings."""
        try:
            return cls(text)
        except ValueError:
            what = re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__).lower()  # BenchmarkKind: benchmark kind
            raise ChoiceError(f"unknown {what} '{text}' (known: {', '.join(cls.spellings())})") from None
