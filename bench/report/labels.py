"""Names, colours and cell formatting shared by the markdown tables and the plot."""

from __future__ import annotations

from typing import Any

SIDES = (
    "in_process",
    "service_stream",
    "service_pg_workers_1",
    "service_pg_workers_2",
    "langgraph_server",
    "flask_reference",
)
LABELS = {
    "in_process": "in-process graph (astream)",
    "service_stream": "our service (stream)",
    "service_sync": "our service (sync)",
    "service_pg_workers_1": "ours on PostgreSQL, 1 worker",
    "service_pg_workers_2": "ours on PostgreSQL, 2 workers",
    "langgraph_server": "langgraph dev",
    "flask_reference": "Flask reference",
}
COLORS = {
    "in_process": "#7f7f7f",
    "service_stream": "#1f77b4",
    "service_pg_workers_1": "#9467bd",
    "service_pg_workers_2": "#8c564b",
    "langgraph_server": "#d62728",
    "flask_reference": "#2ca02c",
}


def cell(value: Any, digits: int = 0) -> str:
    """Return `value` as a table cell: `–` for None, floats with `digits` decimals."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def side_levels(results: dict[str, Any], side: str) -> dict[str, Any]:
    """Return the measured levels of `side` (concurrency → stats), empty if none."""
    return (results.get(side) or {}).get("levels") or {}
