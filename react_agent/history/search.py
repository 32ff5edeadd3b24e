"""Ranking a thread's blocks against a query: BM25 over CJK bigrams and latin words."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

_TERMS = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[a-z0-9_.]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
K1, B = 1.2, 0.75
RESULT_ID_BONUS = 10.0
"""Added to a block's score when the query names one of its result ids exactly."""
QUESTION_WEIGHT = 2
"""How many times the question counts in a block's text: it says best what the turn was for."""


def terms(text: str) -> list[str]:
    """Return the search terms of `text`: CJK bigrams (single characters alone) and words.

    A latin word keeps its whole form (`order_items`, `call_ab12`) and adds its parts
    split at `_` and `.`, so `orders.status` also matches `status`.
    """
    found: list[str] = []
    for run in _TERMS.findall(text.lower()):
        if _CJK.match(run):
            found += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
            continue
        word = run.strip("._")
        if not word:
            continue
        found.append(word)
        parts = [part for part in re.split(r"[_.]", word) if part]
        if len(parts) > 1:
            found += parts
    return found


def block_text(block: dict[str, Any], answer: str = "") -> str:
    """Return the text a block is searched by: question, summary, answer, SQL, names, ids."""
    queries = block.get("queries", [])
    return "\n".join(
        [
            *[block.get("question", "")] * QUESTION_WEIGHT,
            block.get("summary", ""),
            answer,
            *(query["sql"] for query in queries),
            *(query["result_id"] for query in queries),
            " ".join(block.get("tables", [])),
            " ".join(block.get("columns", [])),
            block.get("block_id", ""),
        ]
    )


def rank_blocks(
    query: str, blocks: Sequence[dict[str, Any]], answers: dict[str, str], limit: int
) -> list[tuple[float, dict[str, Any]]]:
    """Return the `limit` blocks that match `query` best, with their scores, best first.

    Args:
        query: Words, Chinese text, table or column names, or result ids.
        blocks: The thread's blocks.
        answers: The full answer of each block, by block id (searched with the block).
        limit: Most blocks to return; blocks matching nothing are never returned.

    """
    wanted = list(dict.fromkeys(terms(query)))
    documents = [Counter(terms(block_text(b, answers.get(b["block_id"], "")))) for b in blocks]
    if not wanted or not documents:
        return []
    average = sum(sum(doc.values()) for doc in documents) / len(documents) or 1.0
    frequency = {term: sum(term in doc for doc in documents) for term in wanted}
    named_ids = set(query.split())
    scored = []
    for block, doc in zip(blocks, documents, strict=True):
        length = sum(doc.values())
        score = 0.0
        for term in wanted:
            count = doc.get(term, 0)
            if not count:
                continue
            idf = math.log(1 + (len(documents) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * count * (K1 + 1) / (count + K1 * (1 - B + B * length / average))
        if named_ids & {query_["result_id"] for query_ in block.get("queries", [])}:
            score += RESULT_ID_BONUS
        if score > 0:
            scored.append((score, block))
    scored.sort(key=lambda pair: (-pair[0], -pair[1]["turn"]))
    return scored[: max(1, limit)]
