"""Finding tables for a question: BM25 over names, comments, synonyms and values (CJK-aware)."""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Sequence

from react_agent.catalog.view import ViewTable
from react_agent.history.search import terms

K1, B = 1.2, 0.75
NAME_WEIGHT = 3
"""How many times a table's name and synonyms count: they say best what it holds."""
COLUMN_NAME_WEIGHT = 2
NEIGHBOUR_SHARE = 0.5
"""A table joined to one of the best few gets this share of that table's score, if it matches.

"按库存名称汇总司机映射的结束日期" names 库存 as a join: of the twenty inventory tables, the
one driver_mapping's foreign key points to is the one meant.
"""
NEIGHBOUR_SOURCES = 3
_STOP_WORDS = frozenset(
    "a an the of in on at to for by is are was were be what which who how many much me my our "
    "show list give tell please and or with from per each do does did all total number".split()
)


def table_text(table: ViewTable) -> list[str]:
    """Return the search terms of a table: name, synonyms, description, columns, values."""
    found: list[str] = []
    for text in (table.name, *table.synonyms):
        found += terms(text) * NAME_WEIGHT
    found += terms(table.description or "")
    for column in table.columns:
        found += terms(column.name) * COLUMN_NAME_WEIGHT
        for text in (column.description or "", *column.synonyms, *(column.values or ())):
            found += terms(text)
    return found


def query_terms(text: str) -> list[str]:
    """Return the distinct search terms of a question, without common question words."""
    return list(dict.fromkeys(t for t in terms(text) if t not in _STOP_WORDS))


class SchemaIndex:
    """An inverted BM25 index over tables: a query costs only the postings of its terms."""

    def __init__(self, tables: Sequence[ViewTable]) -> None:
        self.tables = list(tables)
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._lengths: list[int] = []
        for position, table in enumerate(self.tables):
            counts = Counter(table_text(table))
            self._lengths.append(sum(counts.values()))
            for term, count in counts.items():
                self._postings.setdefault(term, []).append((position, count))
        self._average = (sum(self._lengths) / len(self._lengths)) if self._lengths else 1.0
        self._positions = {table.name.lower(): p for p, table in enumerate(self.tables)}

    def scores(self, query: str) -> dict[int, float]:
        """Return the BM25 score of every table that shares a term with `query`, by position."""
        total = len(self.tables)
        scores: dict[int, float] = {}
        for term in query_terms(query):
            postings = self._postings.get(term)
            if not postings:
                continue
            # Lucene's idf: positive even for a term most tables have.
            idf = math.log(1 + (total - len(postings) + 0.5) / (len(postings) + 0.5))
            for position, count in postings:
                norm = K1 * (1 - B + B * self._lengths[position] / self._average)
                scores[position] = scores.get(position, 0.0) + idf * count * (K1 + 1) / (
                    count + norm
                )
        return scores

    def rank(
        self, query: str, limit: int, boost: dict[str, float] | None = None
    ) -> list[tuple[ViewTable, float]]:
        """Return up to `limit` tables matching `query`, best first, with their scores.

        Args:
            query: The question or search words.
            limit: Most tables returned.
            boost: Lower-case table name → score added (tables a question's values name).

        """
        scores = self.scores(query)
        for name, extra in (boost or {}).items():
            if (position := self._positions.get(name)) is not None:
                scores[position] = scores.get(position, 0.0) + extra
        best = heapq.nlargest(NEIGHBOUR_SOURCES, scores.items(), key=lambda pair: pair[1])
        for position, score in best:
            for name in self.tables[position].neighbours:
                neighbour = self._positions.get(name.lower())
                if neighbour is not None and neighbour in scores:
                    scores[neighbour] += NEIGHBOUR_SHARE * score
        order = heapq.nsmallest(
            max(0, limit), scores.items(), key=lambda p: (-p[1], self.tables[p[0]].name)
        )
        return [(self.tables[position], score) for position, score in order]
