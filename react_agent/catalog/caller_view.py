"""What one caller sees of a catalogue snapshot: its readable tables, their values, their ranking.

Each caller's filter (its scope) gets its own views of a snapshot, built once and kept on
the snapshot; the search and value indexes cover every table and are shared by all.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from react_agent.catalog.search import SchemaIndex
from react_agent.catalog.service import CatalogService, Snapshot
from react_agent.catalog.values import ValueIndex, ValueLink
from react_agent.catalog.view import Readable, ViewTable, visible_tables

VALUE_BOOST = 5.0
"""Score added to a table one of whose values the question says."""
SEARCH_RESULTS = 5
"""Tables one search_schema call shows."""
MAX_CACHED_FILTERS = 64
"""Callers' filters whose views of one snapshot are kept (each scope is one)."""


@dataclass(frozen=True)
class _Derived:
    """Per snapshot: the search index, the value index and the full rendering's length."""

    index: SchemaIndex
    values: ValueIndex


class CallerView:
    """One caller's readable part of the catalogue: tables, value links, the best tables.

    Args:
        catalog: The process's catalogue.
        budget_chars: SCHEMA_PROMPT_BUDGET: the whole schema goes in the prompt when it
            fits this many characters.
        readable: The caller's filter (None: every table).
        current: Returns the running question's filter, read at each call (its scope).

    """

    def __init__(
        self,
        catalog: CatalogService,
        budget_chars: int,
        readable: Readable | None = None,
        *,
        current: Callable[[], Readable | None] | None = None,
        as_of: date | None = None,
    ) -> None:
        self.catalog = catalog
        self.budget_chars = budget_chars
        self.as_of = as_of
        """The date whose instructions apply (INSTRUCTIONS_AS_OF; None: today)."""
        self._readable = readable
        self._current = current

    @property
    def readable(self) -> Readable | None:
        """The caller's filter: the running question's (`current`), else the fixed one."""
        return self._current() if self._current is not None else self._readable

    def _cached(self, snapshot: Snapshot, kind: str, make: Callable[[], Any]) -> Any:
        """Return what `make` built for this snapshot and this caller's filter, building once."""
        key = (kind, _filter_key(self.readable))
        if key not in snapshot.derived:
            if len(snapshot.derived) >= MAX_CACHED_FILTERS * 3:
                # Many callers' filters (one per scope): start again rather than grow forever,
                # keeping the indexes, which every caller shares.
                indexes = snapshot.derived.get("indexes")
                snapshot.derived.clear()
                if indexes is not None:
                    snapshot.derived["indexes"] = indexes
            snapshot.derived[key] = make()
        return snapshot.derived[key]

    def _tables(self, snapshot: Snapshot) -> list[ViewTable]:
        return self._cached(
            snapshot,
            "tables",
            lambda: visible_tables(snapshot.catalog, snapshot.semantics, self.readable),
        )

    def _lookup(self, snapshot: Snapshot) -> dict[str, tuple[ViewTable, frozenset[str]]]:
        """Return the readable tables by lower-case name, each with its readable columns."""
        return self._cached(
            snapshot,
            "lookup",
            lambda: {
                t.name.lower(): (t, frozenset(c.name for c in t.columns))
                for t in self._tables(snapshot)
            },
        )

    def _derived(self, snapshot: Snapshot) -> _Derived:
        # The indexes cover every table not hidden; each caller's filter applies to results.
        if "indexes" not in snapshot.derived:
            snapshot.derived["indexes"] = _Derived(
                SchemaIndex(snapshot.tables), ValueIndex(snapshot.tables, snapshot.semantics)
            )
        return snapshot.derived["indexes"]  # type: ignore[return-value]

    def value_links(self, snapshot: Snapshot, question: str) -> list[ValueLink]:
        """Return the stored values `question` says, in tables and columns the caller reads.

        A word stored in several columns (上海 as a store's city and a customer's) keeps
        the columns whose tables the rest of the question matches best.
        """
        readable = self._lookup(snapshot)
        links = [
            link
            for link in self._derived(snapshot).values.link(question, readable.keys())
            if link.table.lower() in readable and link.column in readable[link.table.lower()][1]
        ]
        said: dict[str, list[ValueLink]] = {}
        for link in links:
            said.setdefault(link.said.lower(), []).append(link)
        if all(len(group) == 1 for group in said.values()):
            return links
        index = self._derived(snapshot).index
        scores = {index.tables[p].name: score for p, score in index.scores(question).items()}
        kept = []
        for group in said.values():
            best = max(scores.get(link.table, 0.0) for link in group)
            kept += [link for link in group if best <= 0 or scores.get(link.table, 0.0) == best]
        return [link for link in links if link in kept]

    def _ranked(
        self, snapshot: Snapshot, question: str, links: list[ValueLink], limit: int
    ) -> list[ViewTable]:
        """Return the readable tables best for `question`, those its values name boosted."""
        by_name = self._lookup(snapshot)
        boost = {link.table.lower(): VALUE_BOOST for link in links}
        # With a filter, everything is ranked first: a short list could hold only hidden ones.
        wanted = limit if len(by_name) == len(snapshot.tables) else len(snapshot.tables)
        ranked = self._derived(snapshot).index.rank(question, wanted, boost)
        return [by_name[t.name.lower()][0] for t, _ in ranked if t.name.lower() in by_name][:limit]

    async def search(self, query: str, limit: int = SEARCH_RESULTS) -> list[ViewTable]:
        """Return the readable tables that match `query` best."""
        snapshot = await self.catalog.current()
        if snapshot is None:
            return []
        return self._ranked(snapshot, query, self.value_links(snapshot, query), limit)

    async def table_names(self) -> Sequence[str] | None:
        """Return the readable table names, or None before the first build."""
        snapshot = await self.catalog.current()
        return None if snapshot is None else [t.name for t in self._tables(snapshot)]


def _filter_key(readable: Readable | None) -> object:
    """Return a cache key for a filter: itself when hashable, else its content, else identity.

    The access Scope is frozen but holds mappings, so it is not hashable; two requests
    with equal scopes share a view through its `to_dict()`.
    """
    try:
        hash(readable)
    except TypeError:
        as_dict = getattr(readable, "to_dict", None)
        if callable(as_dict):
            return json.dumps(as_dict(), sort_keys=True, default=str)
        return id(readable)
    return readable
