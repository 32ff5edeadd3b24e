"""Lexical ranking of the examples: BM25 (rank-bm25) over CJK bigrams and latin words."""

from __future__ import annotations

import math

import numpy as np
from rank_bm25 import BM25Okapi

from react_agent.memory.examples import MemoryItem
from react_agent.memory.tokens import tokenize


class _LuceneIdfBM25(BM25Okapi):
    """BM25Okapi with Lucene's idf, which stays positive in a corpus of one or two items.

    Okapi's own idf is zero or negative for a word in half the items or more, so with a
    handful of examples the best match would score nothing.
    """

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


def document_text(item: MemoryItem) -> str:
    """Return the text an item is found by: its question and SQL, or its note."""
    return f"{item.question or ''}\n{item.content}"


class LexicalIndex:
    """A BM25 index over a fixed list of items."""

    def __init__(self, items: list[MemoryItem]) -> None:
        self.items = items
        # An item with no tokens still needs a document, or the positions would shift.
        corpus = [tokenize(document_text(item)) or ["\x00"] for item in items]
        self._bm25 = _LuceneIdfBM25(corpus) if corpus else None

    def search(self, query: str, limit: int) -> list[tuple[MemoryItem, float]]:
        """Return up to `limit` items sharing words with `query`, best first, with scores."""
        if self._bm25 is None or limit <= 0:
            return []
        # Words no item has add nothing; skipping them saves a pass over the corpus each.
        words = [word for word in dict.fromkeys(tokenize(query)) if word in self._bm25.idf]
        if not words:
            return []
        scores = self._bm25.get_scores(words)
        limit = min(limit, len(scores))
        best = np.argpartition(-scores, limit - 1)[:limit]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(self.items[i], float(scores[i])) for i in best if scores[i] > 0]


RRF_K = 60
"""The usual constant of reciprocal-rank fusion: how much the first ranks outweigh later ones."""


def fuse_rankings(rankings: list[list[MemoryItem]]) -> list[MemoryItem]:
    """Merge best-first rankings by reciprocal-rank fusion (an item in both rises)."""
    scores: dict[str, float] = {}
    items: dict[str, MemoryItem] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            scores[item.id] = scores.get(item.id, 0.0) + 1.0 / (RRF_K + rank + 1)
            items.setdefault(item.id, item)
    return [items[item_id] for item_id in sorted(scores, key=lambda i: -scores[i])]
