"""Query results and their conversion to JSON values that keep every value intact."""

from __future__ import annotations

import base64
import datetime as dt
import math
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class QueryResult:
    """Rows of one query, capped at the row limit."""

    columns: list[str]
    rows: list[dict[str, Any]]
    total_row_count: int
    is_limited: bool

    def as_records(self) -> dict[str, Any]:
        """Return the `records` object of the API's final data."""
        return {
            "columns": self.columns,
            "rows": self.rows,
            "total_row_count": self.total_row_count,
            "is_limited": self.is_limited,
        }


def unique_column_names(names: Iterable[str]) -> list[str]:
    """Make column names unique (`id`, `id_2`, …) so no value is lost in a row object."""
    seen: dict[str, int] = {}
    result: list[str] = []
    for raw in names:
        name = raw or "column"
        if name in seen:
            seen[name] += 1
            candidate = f"{name}_{seen[name]}"
            while candidate in seen:
                seen[name] += 1
                candidate = f"{name}_{seen[name]}"
            name = candidate
        seen.setdefault(name, 1)
        result.append(name)
    return result


def to_json_value(value: Any) -> Any:
    """Convert one database value to a JSON value without losing information.

    Decimals become numbers when a float holds them exactly and strings otherwise;
    NaN and infinities, which JSON numbers cannot hold, become "NaN"/"Infinity"/"-Infinity";
    bytes become base64; dates and times become ISO 8601 with their offset.
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _non_finite(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            return "NaN" if value.is_nan() else ("Infinity" if value > 0 else "-Infinity")
        as_float = float(value)
        return as_float if Decimal(repr(as_float)) == value else str(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [to_json_value(v) for v in value]
    return str(value)


def _non_finite(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def rows_to_records(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """Zip raw row tuples with (unique) column names into JSON-safe row objects."""
    return [
        {name: to_json_value(value) for name, value in zip(columns, row, strict=False)}
        for row in rows
    ]
