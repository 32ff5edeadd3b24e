"""Lexical ranking of the examples: BM25 (rank-bm25) over CJK bigrams and latin words."""

from __future__ import annotations

import math

import numpy as np
from rank_bm25 import BM25Okapi

from react_agent.memory.examples import MemoryItem
from react_agent.memory.retrieval.tokens import tokenize


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


PRESCORED_POSTINGS = 200
"""Words in at least this many items are scored when the index is built, not on first use."""


class LexicalIndex:
    """A BM25 index over a fixed list of items, with an inverted index to score only matches.

    rank-bm25's `get_scores` makes a Python pass over every item per query word (about
    40 ms at 10,000 items, CPU that holds the event loop). Here each query word is scored
    by rank-bm25's own `get_batch_scores` on the items that contain it (the word's posting
    list, built with the index), once per index: a word's scores depend only on the word
    and the items, so they are kept for the next question that has the word. The per-word
    scores are then added up, as `get_scores` adds them (a word an item lacks adds exactly
    zero there), so the scores are the same to the last bit. The kept scores are at most
    one float per posting, the size of the index itself.
    """

    def __init__(self, items: list[MemoryItem]) -> None:
        self.items = items
        # An item with no tokens still needs a document, or the positions would shift.
        corpus = [tokenize(document_text(item)) or ["\x00"] for item in items]
        self._bm25 = _LuceneIdfBM25(corpus) if corpus else None
        self._postings: dict[str, np.ndarray] = {}
        self._word_scores: dict[str, np.ndarray] = {}
        if self._bm25 is not None:
            # get_batch_scores converts doc_len to an array per call: give it one already.
            self._bm25.doc_len = np.asarray(self._bm25.doc_len)
            postings: dict[str, list[int]] = {}
            for position, frequencies in enumerate(self._bm25.doc_freqs):
                for word in frequencies:
                    postings.setdefault(word, []).append(position)
            self._postings = {word: np.array(found) for word, found in postings.items()}
            # Common words cost most to score: do it now, off the event loop (the index is
            # built in a thread), so no question pays for them.
            for word, found in postings.items():
                if len(found) >= PRESCORED_POSTINGS:
                    self._scores_of(word)

    def search(self, query: str, limit: int) -> list[tuple[MemoryItem, float]]:
        """Return up to `limit` items sharing words with `query`, best first, with scores."""
        if self._bm25 is None or limit <= 0:
            return []
        # Words no item has add nothing.
        words = [word for word in dict.fromkeys(tokenize(query)) if word in self._postings]
        if not words:
            return []
        scores = np.zeros(len(self.items))
        for word in words:
            scores[self._postings[word]] += self._scores_of(word)
        limit = min(limit, len(scores))
        best = np.argpartition(-scores, limit - 1)[:limit]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(self.items[i], float(scores[i])) for i in best if scores[i] > 0]

    def _scores_of(self, word: str) -> np.ndarray:
        """Return the word's BM25 score in each item of its posting list (kept once computed)."""
        found = self._word_scores.get(word)
        if found is None:
            assert self._bm25 is not None
            found = np.asarray(self._bm25.get_batch_scores([word], self._postings[word].tolist()))
            self._word_scores[word] = found
        return found


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
