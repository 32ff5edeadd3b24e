"""Checking an answer against its rows: every number and date in the text must be in a cell.

Rules, no model call. A figure is supported when some cell of the results the run read
rounds to it at the precision it is written with (2,808,192.95 ≈ "2,808,193" ≈ "280.8万"
≈ "0.03亿"), as a percentage of a ratio cell or of a percent cell (0.1415 ≈ "14.15%"), as
the total of a column, as one cell's share of its column's total, or as the sum,
difference, ratio or growth of two cells (among the first PAIR_CELLS numeric cells). A
date is supported when a cell holds it. Numbers the question or the SQL states (a year,
"top 5"), list markers, digits inside a cell's text (a product name) and the tokens that
stand for masked values (access/sensitive/masking) are not claims.
Named values found in cells count as supported; a name that is in no cell cannot be told
from ordinary words without the column's domain, so names are not reported unsupported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np

PAIR_CELLS = 20
"""Numeric cells whose pairwise sums, differences, ratios and growth are tried."""
MIN_NAME_CHARS = 2

_NUMBER = re.compile(
    r"(?<![A-Za-z0-9.,_])(?P<sign>[-−])?(?P<digits>\d{1,3}(?:[,，]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"\s*(?P<unit>%|％|万亿|万|亿|千|k\b|K\b|thousand\b|million\b|billion\b)?"
)
_DECIMAL_TEXT = re.compile(r"-?\d+(?:\.\d+)?")
"""A PostgreSQL numeric that no float holds exactly arrives as text (records.to_json_value)."""
_MASK_TOKEN = re.compile(r"‹[^‹›\n]{1,120}›")
"""A sensitive value's token the model saw and may repeat (access/sensitive/masking): no figure."""
_LIST_MARKER = re.compile(r"(?m)^\s*\d+[.)、]\s")
_DATE = re.compile(
    r"(?P<y>(?:19|20)\d{2})(?:-|/|年)(?P<m>\d{1,2})(?:(?:-|/|月)(?P<d>\d{1,2})日?|月)?"
)
_SCALES = {
    None: 1.0,
    "千": 1e3,
    "k": 1e3,
    "K": 1e3,
    "thousand": 1e3,
    "万": 1e4,
    "million": 1e6,
    "亿": 1e8,
    "billion": 1e9,
    "万亿": 1e12,
}


@dataclass(frozen=True)
class _Claim:
    text: str
    value: float
    decimals: int
    unit: str | None


def _column_values(
    records: Iterable[dict[str, Any]],
) -> tuple[list[np.ndarray], list[str], list[float]]:
    """Return the numeric columns, the distinct cell texts, and the row counts.

    Column by column: a result of 1,000 rows is read with a comprehension per column and
    one NumPy conversion, not a Python step per cell.
    """
    numeric: list[np.ndarray] = []
    texts: set[str] = set()
    counts: list[float] = []
    for record in records:
        rows = record.get("rows") or []
        for name in record.get("columns") or []:
            # C-level, and no object per row: a per-row tuple would wake the garbage
            # collector, whose passes over a large result dominate the slowest checks.
            try:
                values = list(map(itemgetter(name), rows))
            except (KeyError, TypeError):  # a row without the column: read it slowly
                values = [row.get(name) if isinstance(row, dict) else None for row in rows]
            first = next((v for v in values if v is not None), None)
            if first is None:
                continue
            if isinstance(first, str) and not _DECIMAL_TEXT.fullmatch(first):
                # A text column: its values are named values and dates (C-level, no loop).
                texts.update(map(str, filter(None, values)))
                continue
            try:
                if isinstance(first, bool):
                    raise TypeError("booleans are not figures")
                column = np.asarray(values, dtype=float)
            except (TypeError, ValueError):  # a mixed column (SQLite allows one), or text
                numeric += [np.asarray([v], float) for v in values if _is_number(v)]
                texts.update(str(v) for v in values if v is not None and not _is_number(v))
                continue
            column = column[np.isfinite(column)]
            if column.size:
                numeric.append(column)
        total = record.get("total_row_count")
        if isinstance(total, int):
            counts.append(float(total))
    return numeric, list(texts), counts


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class _Evidence:
    """The cells, ready for interval tests: a claim costs bisections, not a scan."""

    def __init__(self, columns: Sequence[np.ndarray], counts: Sequence[float]) -> None:
        everything = [*columns, np.asarray(counts, dtype=float)]
        self.cells = np.sort(np.abs(np.concatenate(everything)))
        self.columns = [(float(c.sum()), np.sort(c)) for c in columns]
        self.totals = np.sort(np.abs([total for total, _ in self.columns]))
        per_column = max(PAIR_CELLS // max(len(columns), 1), 2)
        head = np.concatenate([c[:per_column] for c in columns] or [np.zeros(0)])
        self.head = head[head != 0][:PAIR_CELLS]
        self._pairs: np.ndarray | None = None

    def holds(self, low: float, high: float) -> bool:
        """Whether a cell, a column total, a share, or two cells combined fall in [low, high]."""
        if _between(self.cells, low, high) or _between(self.totals, low, high):
            return True
        for total, column in self.columns:
            # A share of the column total: value / total in [low, high].
            if total > 0 and _between(column, low * total, high * total):
                return True
        return self._pairs_hold(low, high)

    def _pairs_hold(self, low: float, high: float) -> bool:
        if self._pairs is None:
            # Built on the first claim no cell holds: most answers never need it.
            a, b = self.head[:, None], self.head[None, :]
            ratio = a / b
            found = [a + b, np.abs(a - b), ratio, np.abs(ratio - 1)]
            self._pairs = np.sort(np.concatenate([m.ravel() for m in found]))
        return _between(self._pairs, low, high)


def _between(values: np.ndarray, low: float, high: float) -> bool:
    index = int(np.searchsorted(values, low))
    return index < len(values) and values[index] <= high


def _claims(text: str, context: str) -> list[_Claim]:
    """Return the numbers the answer states that are not in the question or SQL."""
    context_numbers = {m.group("digits").replace(",", "") for m in _NUMBER.finditer(context)}
    # A list marker ("1. ", "2、") ends where its number does, just before the punctuation.
    markers = {
        m.group(0).rstrip()[:-1].lstrip() and m.start() + len(m.group(0).rstrip()) - 1
        for m in _LIST_MARKER.finditer(text)
    }
    claims = []
    for match in _NUMBER.finditer(text):
        digits = match.group("digits").replace(",", "").replace("，", "")
        unit = match.group("unit")
        if not unit and (digits in context_numbers or match.end() in markers):
            continue
        value = float(digits)
        if match.group("sign"):
            value = -value
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        claims.append(_Claim(match.group(0).strip(), value, decimals, unit))
    return claims


def _supported(claim: _Claim, evidence: _Evidence) -> bool:
    half = 0.5 * 10 ** (-claim.decimals) + 1e-9
    value = abs(claim.value)
    if claim.unit in ("%", "％"):
        scales = [0.01, 1.0]  # a ratio cell (0.1415) or a cell already in percent (14.15)
    else:
        scales = [_SCALES.get(claim.unit, 1.0)]
    return any(evidence.holds((value - half) * s, (value + half) * s) for s in scales)


def _dates(text: str) -> list[tuple[str, str]]:
    """Return each date the text states and its ISO prefix (YYYY-MM or YYYY-MM-DD)."""
    found = []
    for match in _DATE.finditer(text):
        if match.group("m") is None or not 1 <= int(match.group("m")) <= 12:
            continue
        iso = f"{match.group('y')}-{int(match.group('m')):02d}"
        if match.group("d"):
            iso += f"-{int(match.group('d')):02d}"
        found.append((match.group(0), iso))
    return found


def check_answer(
    answer: str, records: Sequence[dict[str, Any]], context: str = ""
) -> dict[str, Any]:
    """Return `{checked, supported, unsupported: [{text, reason}]}` for an answer's text.

    Args:
        answer: The final answer.
        records: The results the run read (the API's `records` objects).
        context: The question and the SQL that ran; numbers and dates they state are given.

    """
    columns, texts, counts = _column_values(records)
    cell_text = "\n".join(texts)
    names = {t for t in texts if len(t) >= MIN_NAME_CHARS and t in answer}
    masked = _MASK_TOKEN.sub(" ", answer)
    for name in sorted(names, key=len, reverse=True):
        masked = masked.replace(name, " ")
    unsupported: list[dict[str, str]] = []
    checked = len(names)
    for shown, iso in _dates(masked):
        checked += 1
        if iso not in cell_text and iso not in context and shown not in context:
            unsupported.append({"text": shown, "reason": "DATE_NOT_IN_RESULTS"})
        masked = masked.replace(shown, " ")
    evidence = _Evidence(columns, counts)
    for claim in _claims(masked, context):
        checked += 1
        if not _supported(claim, evidence):
            unsupported.append({"text": claim.text, "reason": "NUMBER_NOT_IN_RESULTS"})
    return {"checked": checked, "supported": checked - len(unsupported), "unsupported": unsupported}


def unsupported_note(check: dict[str, Any] | None) -> str | None:
    """Return a one-line note naming the figures no row supports, or None when all are."""
    if not check or not check.get("unsupported"):
        return None
    shown = ", ".join(entry["text"] for entry in check["unsupported"][:5])
    return f"⚠️ 未在查询结果中找到 / not found in the query results: {shown}"
