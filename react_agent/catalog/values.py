"""Value linking: the words of a question that are stored values, with their table.column."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from react_agent.catalog.semantic.model import Semantics
from react_agent.catalog.view import ViewTable

MIN_VALUE_CHARS = 2
"""Shorter values (男, A) would match inside too many unrelated words."""
_LATIN = re.compile(r"[a-z0-9]")


@dataclass(frozen=True)
class ValueLink:
    """A stored `value` of `table.column` that the question says (`said`, maybe a synonym)."""

    said: str
    value: str
    table: str
    column: str

    def describe(self) -> str:
        """Return the line the model reads: `华东 -> regions.region_name = '华东'`."""
        quoted = "'" + self.value.replace("'", "''") + "'"
        via = f" (said as {self.said!r})" if self.said.lower() != self.value.lower() else ""
        return f"- {self.table}.{self.column} = {quoted}{via}"


class ValueIndex:
    """Every kept value and value synonym of the visible tables, for substring matching."""

    def __init__(self, tables: Sequence[ViewTable], semantics: Semantics) -> None:
        self.needles: list[tuple[str, str, str, str]] = []
        """(needle lower-case, value, table, column)."""
        meant = {name.lower(): m for name, m in semantics.tables.items()}
        for table in tables:
            columns = meant.get(table.name.lower())
            for column in table.columns:
                for value in column.values or ():
                    self._add(value, value, table.name, column.name)
                said = columns.columns.get(column.name) if columns else None
                for value, words in (said.value_synonyms if said else {}).items():
                    for word in words:
                        self._add(word, value, table.name, column.name)

    def _add(self, needle: str, value: str, table: str, column: str) -> None:
        if len(needle.strip()) >= MIN_VALUE_CHARS:
            self.needles.append((needle.strip().lower(), value, table, column))

    def link(self, question: str, tables: Collection[str] | None = None) -> list[ValueLink]:
        """Return the values `question` says, longest first; one inside a longer one is dropped.

        Args:
            question: The question.
            tables: Lower-case names of the tables the caller may read (None: all).

        """
        text = question.lower()
        spans: list[tuple[int, int, ValueLink]] = []
        for needle, value, table, column in self.needles:
            if needle not in text or (tables is not None and table.lower() not in tables):
                continue
            for start in _occurrences(text, needle):
                spans.append((start, start + len(needle), ValueLink(needle, value, table, column)))
        spans.sort(key=lambda span: (-(span[1] - span[0]), span[0]))
        kept: list[tuple[int, int, ValueLink]] = []
        for start, end, link in spans:
            if any(s <= start and end <= e and (e - s) > (end - start) for s, e, _ in kept):
                continue
            kept.append((start, end, link))
        kept.sort(key=lambda span: span[0])
        found = [ValueLink(question[s:e], k.value, k.table, k.column) for s, e, k in kept]
        return list(dict.fromkeys(found))


def _occurrences(text: str, needle: str) -> list[int]:
    """Return where `needle` starts in `text`; a latin needle only at word boundaries."""
    found = []
    start = text.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        # "east" must not match inside "northeast"; 华东 may match inside 华东区.
        glued_before = _LATIN.match(needle[0]) and _LATIN.match(before)
        glued_after = _LATIN.match(needle[-1]) and _LATIN.match(after)
        if not glued_before and not glued_after:
            found.append(start)
        start = text.find(needle, start + 1)
    return found
