"""Chart rules: an Apache ECharts option chosen from a result's column types, never by the model.

The rules, in order (NULL values are ignored when a column's kind is decided):

- a date column (ISO date `YYYY-MM-DD`, month `YYYY-MM` or datetime) and numeric measures
  → a line chart over the dates, sorted;
- exactly one text column and numeric measures → a bar chart, or, when the question asks
  for a share (`share_hint`, see `asks_for_share`) and there is one measure over at most
  `MAX_PIE_SLICES` categories, a pie chart;
- identifier columns (`id`, `…_id`) are never measures: they are skipped;
- anything else → no chart: one scalar, one row, only text, no measure, several text
  columns, or more than `MAX_BAR_CATEGORIES` categories.

Numbers may be JSON numbers or decimal strings (see react_agent.databases.records); NULL
measures become gaps.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

MAX_BAR_CATEGORIES = 50
"""More categories than this make an unreadable bar chart: no chart then."""
MAX_PIE_SLICES = 8
"""A pie is only drawn for this many slices or fewer."""
MAX_SERIES = 6
"""Measures drawn at most; further numeric columns are left out of the chart."""

_DATE = re.compile(
    r"^\d{4}-\d{2}"  # a month
    r"(-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?)?$"  # a day, a time
)
_DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_NON_FINITE = ("NaN", "Infinity", "-Infinity")
_SHARE_WORDS = ("占比", "比例", "份额", "比重", "share", "percentage", "proportion")
NULL_LABEL = "NULL"
"""How a NULL category or date is labelled."""


def asks_for_share(question: str) -> bool:
    """Whether a question asks for shares of a whole (占比, 比例, share, percentage…)."""
    lowered = question.lower()
    return any(word in lowered for word in _SHARE_WORDS)


def build_chart(records: dict[str, Any] | None, *, share_hint: bool = False) -> dict | None:
    """Return an ECharts option for a result's `records`, or None when no chart fits.

    Args:
        records: The final data's `records` (`columns`, `rows`, …), or None.
        share_hint: The question asked for shares; allows a pie (see `asks_for_share`).

    """
    if not records or len(records.get("rows") or []) < 2:
        return None
    columns: list[str] = records["columns"]
    rows: list[dict[str, Any]] = records["rows"]
    kinds = {name: column_kind([row.get(name) for row in rows]) for name in columns}
    measures = [name for name in columns if kinds[name] == "number" and not is_identifier(name)][
        :MAX_SERIES
    ]
    if not measures:
        return None
    dates = [name for name in columns if kinds[name] == "date"]
    if dates:
        return line_chart(rows, dates[0], measures)
    texts = [name for name in columns if kinds[name] == "text"]
    if len(texts) != 1 or len(rows) > MAX_BAR_CATEGORIES:
        return None
    if share_hint and len(measures) == 1 and len(rows) <= MAX_PIE_SLICES:
        return pie_chart(rows, texts[0], measures[0])
    return bar_chart(rows, texts[0], measures)


def is_identifier(column: str) -> bool:
    """Whether a column names rows (`id`, `store_id`) rather than measuring them."""
    lowered = column.lower()
    return lowered == "id" or lowered.endswith("_id")


def column_kind(values: list[Any]) -> str:
    """Return "number", "date", "text" or "empty" (only NULLs) for a column's values."""
    present = [value for value in values if value is not None]
    if not present:
        return "empty"
    if all(as_number(value) is not None or value in _NON_FINITE for value in present):
        return "number"
    if all(isinstance(value, str) and _DATE.match(value) for value in present):
        return "date"
    return "text"


def as_number(value: Any) -> float | None:
    """Return a chartable number for a JSON number or decimal string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _DECIMAL.match(value):
        try:
            return float(Decimal(value))
        except (InvalidOperation, OverflowError):
            return None
    return None


def bar_chart(rows: list[dict[str, Any]], category: str, measures: list[str]) -> dict:
    """Return a bar chart of `measures` per value of `category`, in the result's order."""
    return {
        "tooltip": {"trigger": "axis"},
        "legend": {"data": measures},
        "xAxis": {"type": "category", "name": category, "data": _labels(rows, category)},
        "yAxis": {"type": "value"},
        "series": [
            {"name": name, "type": "bar", "data": [as_number(row.get(name)) for row in rows]}
            for name in measures
        ],
    }


def line_chart(rows: list[dict[str, Any]], date: str, measures: list[str]) -> dict:
    """Return a line chart of `measures` over `date`, sorted by date (NULL dates dropped)."""
    dated = sorted((row for row in rows if row.get(date) is not None), key=lambda r: r[date])
    return {
        "tooltip": {"trigger": "axis"},
        "legend": {"data": measures},
        "xAxis": {"type": "category", "name": date, "data": [row[date] for row in dated]},
        "yAxis": {"type": "value"},
        "series": [
            {
                "name": name,
                "type": "line",
                "connectNulls": False,
                "data": [as_number(row.get(name)) for row in dated],
            }
            for name in measures
        ],
    }


def pie_chart(rows: list[dict[str, Any]], category: str, measure: str) -> dict:
    """Return a pie chart of one `measure`'s shares per value of `category`."""
    return {
        "tooltip": {"trigger": "item", "formatter": "{b}: {c} ({d}%)"},
        "legend": {"data": _labels(rows, category)},
        "series": [
            {
                "name": measure,
                "type": "pie",
                "radius": "60%",
                "data": [
                    {"name": label, "value": as_number(row.get(measure))}
                    for label, row in zip(_labels(rows, category), rows, strict=True)
                ],
            }
        ],
    }


def _labels(rows: list[dict[str, Any]], column: str) -> list[str]:
    return [NULL_LABEL if row.get(column) is None else str(row[column]) for row in rows]
