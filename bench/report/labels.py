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
    "stack_floor",
)
"""Every side but the RUNS_MAX_ACTIVE ones, in table order (also the names --sides takes)."""
SCALE_OUT_SIDES = ("service_pg_workers_1", "service_pg_workers_2")
"""Our service on PostgreSQL (left out by --skip-postgres)."""
PEER_SIDES = ("langgraph_server", "flask_reference", "stack_floor")
"""The servers that are not ours (left out by --skip-peers)."""
LABELS = {
    "in_process": "in-process graph (astream)",
    "service_stream": "our service (stream)",
    "service_sync": "our service (sync)",
    "service_pg_workers_1": "ours on PostgreSQL, 1 worker",
    "service_pg_workers_2": "ours on PostgreSQL, 2 workers",
    "langgraph_server": "langgraph dev",
    "flask_reference": "Flask reference",
    "stack_floor": "Quart/Hypercorn floor (no graph)",
}
COLORS = {
    "in_process": "#7f7f7f",
    "service_stream": "#1f77b4",
    "service_pg_workers_1": "#9467bd",
    "service_pg_workers_2": "#8c564b",
    "langgraph_server": "#d62728",
    "flask_reference": "#2ca02c",
    "stack_floor": "#c7c7c7",
}
STACK_FLOOR = "stack_floor"
"""Results key of the stack's floor: Quart on Hypercorn holding a stream, no graph."""
SLOW_FLOOR_KEY = "slow_streams_floor"
"""Results key of the slow-model level run on the stack's floor."""


ADMISSION_PREFIX = "service_max_active_"
"""Results key prefix of our service with RUNS_MAX_ACTIVE=N (`service_max_active_<N>`)."""
_ADMISSION_COLORS = ("#17becf", "#bcbd22", "#e377c2", "#ff7f0e")


def admission_sides(results: dict[str, Any]) -> list[str]:
    """Return the RUNS_MAX_ACTIVE sides of `results`, by their limit."""
    found = [key for key in results if key.startswith(ADMISSION_PREFIX)]
    return sorted(found, key=lambda key: int(key.removeprefix(ADMISSION_PREFIX) or 0))


def sides_in(results: dict[str, Any]) -> list[str]:
    """Return every side of `results` in table order (admission sides after ours)."""
    after = SIDES.index("service_stream") + 1
    return [*SIDES[:after], *admission_sides(results), *SIDES[after:]]


def label(side: str) -> str:
    """Return the display name of `side`."""
    if side.startswith(ADMISSION_PREFIX):
        return f"our service (stream), RUNS_MAX_ACTIVE={side.removeprefix(ADMISSION_PREFIX)}"
    return LABELS.get(side, side)


def color(side: str) -> str:
    """Return the plot colour of `side`."""
    if side.startswith(ADMISSION_PREFIX):
        limit = int(side.removeprefix(ADMISSION_PREFIX) or 0)
        return _ADMISSION_COLORS[limit % len(_ADMISSION_COLORS)]
    return COLORS.get(side, "#000000")


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
