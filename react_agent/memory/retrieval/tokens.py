"""Tokens for lexical ranking: lower-cased latin words and CJK character bigrams."""

from __future__ import annotations

import re

_LATIN_WORD = re.compile(r"[a-z0-9_]+")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_STOP_WORDS = frozenset(
    "a an the of in on at to for by is are was were be what which who how many much "
    "me my our show list give tell please and or with from per each do does did".split()
)


def tokenize(text: str) -> list[str]:
    """Return the ranking tokens of `text`; Chinese needs no word segmentation this way.

    Latin words are lower-cased and common question words dropped; every run of CJK
    characters becomes its overlapping character bigrams (a lone character stays itself).
    """
    lowered = text.lower()
    tokens = [word for word in _LATIN_WORD.findall(lowered) if word not in _STOP_WORDS]
    for run in _CJK_RUN.findall(lowered):
        if len(run) == 1:
            tokens.append(run)
        else:
            tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
    return tokens
