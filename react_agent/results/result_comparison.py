"""Comparing two query results, as the Spider test-suite evaluation compares result sets.

The rule: the two results must have the same number of columns; column names and column
order are ignored (some permutation of the predicted columns must match); rows are
compared as a multiset (duplicates count), and in order only when asked (the evaluation:
when the gold SQL's outermost query has ORDER BY). Values are normalised first: numbers
(int, float, Decimal or a numeric string from a Decimal) agree when they are equal to 6
significant digits (3 == 3.0, 0.1 + 0.2 == 0.3); NULL equals NULL and nothing else; dates
and other values compare as their text.

One comparison for both of its users: the evaluation's execution scoring
(react_agent/eval/scoring) and the answer candidates that must agree
(react_agent/results/candidate_groups). It lives here, below both: nothing imports eval.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import sqlglot
from sqlglot import exp

SIGNIFICANT_DIGITS = 6
MAX_PERMUTATIONS = 720  # 6 columns in full; wider results try the value-matched orders first

PASSED = "PASSED"
MISSING_ROWS = "MISSING_ROWS"
EXTRA_ROWS = "EXTRA_ROWS"
WRONG_VALUES = "WRONG_VALUES"

Row = tuple[Any, ...]


@dataclass(frozen=True)
class Verdict:
    """The outcome of one comparison: `reason` is PASSED or a failure reason, with a detail."""

    reason: str
    detail: str = ""

    @property
    def passed(self) -> bool:
        """Whether the prediction matched."""
        return self.reason == PASSED


def normalise_value(value: Any) -> Any:
    """Return the value's comparison key: numbers rounded to 6 significant digits."""
    if value is None or isinstance(value, bool):
        return value
    number: float | None = None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, Decimal):
        number = float(value)
    elif isinstance(value, str):
        number = _numeric_text(value)
        if number is None:
            return value
    else:
        return str(value)
    if not math.isfinite(number):
        return str(number)
    if number == 0:
        return 0.0
    return float(f"{number:.{SIGNIFICANT_DIGITS}g}")


def _numeric_text(text: str) -> float | None:
    # Only the text a Decimal becomes (records.to_json_value), not any string with digits:
    # '2024-01' or '007' stay text.
    if not text or text != text.strip() or (text.lstrip("-")[:1] == "0" and text[1:2].isdigit()):
        return None
    try:
        return float(Decimal(text))
    except (InvalidOperation, ValueError):
        return None


def outer_query_orders(sql: str, dialect: str = "sqlite") -> bool:
    """Whether the outermost SELECT of `sql` has ORDER BY (then row order is compared)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError:
        return "order by" in sql.lower()
    return tree.args.get("order") is not None if isinstance(tree, exp.Query) else False


def compare_results(gold: Sequence[Row], predicted: Sequence[Row], *, ordered: bool) -> Verdict:
    """Compare two results (rows as tuples) by the rule of this module's docstring.

    `gold` is the reference (the gold SQL's rows, or one candidate's); the verdict's reason
    says how `predicted` differs from it.
    """
    gold_rows = [tuple(normalise_value(v) for v in row) for row in gold]
    predicted_rows = [tuple(normalise_value(v) for v in row) for row in predicted]
    gold_width = len(gold_rows[0]) if gold_rows else None
    predicted_width = len(predicted_rows[0]) if predicted_rows else None
    if gold_width is not None and predicted_width is not None and gold_width != predicted_width:
        return Verdict(
            WRONG_VALUES, f"{predicted_width} column(s) where the gold result has {gold_width}"
        )
    if not predicted_rows or not gold_rows:
        if gold_rows == predicted_rows:
            return Verdict(PASSED)
        if not predicted_rows:
            return Verdict(MISSING_ROWS, f"no rows; the gold result has {len(gold_rows)}")
        return Verdict(EXTRA_ROWS, f"{len(predicted_rows)} row(s); the gold result has none")
    best: tuple[int, list[Row]] | None = None
    for order in _column_orders(gold_rows, predicted_rows):
        permuted = [tuple(row[i] for i in order) for row in predicted_rows]
        verdict = _compare_rows(gold_rows, permuted, ordered)
        if verdict.passed:
            return verdict
        overlap = sum((Counter(gold_rows) & Counter(permuted)).values())
        if best is None or overlap > best[0]:
            best = (overlap, permuted)
    assert best is not None
    return _compare_rows(gold_rows, best[1], ordered)


def _compare_rows(gold: list[Row], predicted: list[Row], ordered: bool) -> Verdict:
    missing = Counter(gold) - Counter(predicted)
    extra = Counter(predicted) - Counter(gold)
    if not missing and not extra:
        if ordered and gold != predicted:
            return Verdict(WRONG_VALUES, "the right rows in the wrong order")
        return Verdict(PASSED)
    if missing and not extra:
        return Verdict(MISSING_ROWS, f"{sum(missing.values())} gold row(s) missing")
    if extra and not missing:
        return Verdict(EXTRA_ROWS, f"{sum(extra.values())} row(s) not in the gold result")
    return Verdict(
        WRONG_VALUES,
        f"{sum(missing.values())} gold row(s) missing, {sum(extra.values())} unexpected",
    )


def _column_orders(gold: list[Row], predicted: list[Row]) -> list[tuple[int, ...]]:
    """Return the predicted column orders worth trying, the likeliest first.

    A predicted column is a candidate for a gold column when it holds the same multiset of
    values; when that leaves no complete assignment, every permutation (up to a bound) is
    tried, so a near miss is still classified with its best alignment.
    """
    width = len(gold[0])
    gold_columns = [Counter(row[i] for row in gold) for i in range(width)]
    predicted_columns = [Counter(row[i] for row in predicted) for i in range(width)]
    candidates = [
        [j for j in range(width) if predicted_columns[j] == gold_columns[i]] for i in range(width)
    ]
    matched = [
        order
        for order in itertools.islice(itertools.product(*candidates), MAX_PERMUTATIONS)
        if len(set(order)) == width
    ]
    identity = tuple(range(width))
    rest = itertools.islice(itertools.permutations(range(width)), MAX_PERMUTATIONS)
    return list(dict.fromkeys([*matched, identity, *rest]))
