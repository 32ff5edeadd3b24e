"""Verified answers: a question that matches a verified example runs its SQL, no SQL writing.

A match is the same words once case, spaces, punctuation and full/half width are set
aside; or, at or above VERIFIED_NEAR_MATCH, a question that differs from the example's
only in a stored value of the same column ("华东" for "华北", through the schema
catalogue's value links), whose literal is then substituted in the example's SQL. Only a
`verified` question→SQL example that is not stale and whose SQL reads within the asker's
scope is taken; it then runs as any run_sql does, under the guard and the asker's scope
(graph/nodes/verified makes the call).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from difflib import SequenceMatcher

from react_agent.access.current import current_scope
from react_agent.access.scoping.reach import reads_within
from react_agent.memory.examples import SQL, VERIFIED, MemoryItem
from react_agent.memory.retrieval.retriever import ExampleRetriever

ValueLinks = Callable[[str], Awaitable[list[tuple[str, str, str, str]]]]
"""Returns the stored values a text says: (said, value, table, column) each."""


def normalise(text: str) -> str:
    """Return `text` for matching: NFKC (full to half width), folded, no spaces or punctuation."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(
        ch for ch in folded if not ch.isspace() and not unicodedata.category(ch).startswith("P")
    )


@dataclass(frozen=True)
class VerifiedMatch:
    """The verified example a question matched, and the SQL to run for it."""

    example_id: str
    sql: str
    near: bool = False
    """Whether a value was substituted (a near match)."""


class VerifiedAnswers:
    """Finds the verified example a question matches (graph/hooks.VerifiedSource).

    Args:
        retriever: The memory's retriever, whose served items are searched.
        direct: VERIFIED_ANSWERS=direct (the graph answers without a model call).
        near_match: VERIFIED_NEAR_MATCH: the least similarity of a near match (0: off).
        value_links: The schema catalogue's value links; None: exact matches only.

    """

    def __init__(
        self,
        retriever: ExampleRetriever,
        *,
        direct: bool = False,
        near_match: float = 0.0,
        value_links: ValueLinks | None = None,
    ) -> None:
        self.retriever = retriever
        self.direct = direct
        self.near_match = near_match
        self.value_links = value_links
        self._indexed: tuple[list[MemoryItem], dict[str, list[MemoryItem]]] | None = None

    async def match(self, question: str) -> VerifiedMatch | None:
        """Return the verified example `question` matches within the asker's scope, or None."""
        by_words = self._by_words(await self.retriever.served_items())
        asked = normalise(question)
        if not asked:
            return None
        scope = current_scope()
        for item in by_words.get(asked, []):
            if reads_within(item.content, scope):
                return VerifiedMatch(item.id, item.content)
        if self.near_match <= 0 or self.value_links is None:
            return None
        return await self._near(question, asked, by_words, scope)

    def _by_words(self, items: list[MemoryItem]) -> dict[str, list[MemoryItem]]:
        """Return the verified examples by their normalised question (rebuilt on a change)."""
        if self._indexed is None or self._indexed[0] is not items:
            index: dict[str, list[MemoryItem]] = {}
            for item in items:
                usable = item.training_data_type == SQL and item.status == VERIFIED
                if usable and not item.stale and item.question:
                    index.setdefault(normalise(item.question), []).append(item)
            self._indexed = (items, index)
        return self._indexed[1]

    async def _near(
        self, question: str, asked: str, by_words: dict[str, list[MemoryItem]], scope: object
    ) -> VerifiedMatch | None:
        assert self.value_links is not None
        similar = sorted(
            (
                (SequenceMatcher(None, asked, words).ratio(), items)
                for words, items in by_words.items()
            ),
            key=lambda pair: -pair[0],
        )
        said = await self.value_links(question)
        for ratio, items in similar[:3]:
            if ratio < self.near_match:
                break
            for item in items:
                sql = await self._substituted(item, asked, said)
                if sql is not None and reads_within(sql, scope):  # type: ignore[arg-type]
                    return VerifiedMatch(item.id, sql, near=True)
        return None

    async def _substituted(
        self, item: MemoryItem, asked: str, said: list[tuple[str, str, str, str]]
    ) -> str | None:
        """Return the example's SQL with one value swapped so its question becomes `asked`."""
        assert self.value_links is not None and item.question is not None
        for old_said, old_value, table, column in await self.value_links(item.question):
            for new_said, new_value, new_table, new_column in said:
                if (new_table, new_column) != (table, column) or new_value == old_value:
                    continue
                if normalise(item.question.replace(old_said, new_said)) != asked:
                    continue
                literal = _quoted(old_value)
                if item.content.count(literal) == 1:
                    return item.content.replace(literal, _quoted(new_value))
        return None


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
