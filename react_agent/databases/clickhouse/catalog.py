"""Reading a ClickHouse database's catalogue from system.tables and system.columns."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime
from typing import Any

from react_agent.databases.base import TableInfo
from react_agent.databases.catalog_model import Catalog, CatalogColumn, CatalogTable, keeps_values

Fetch = Callable[[str], Awaitable[list[tuple[Any, ...]]]]

TABLES_SQL = (
    "SELECT name, engine, comment, total_rows FROM system.tables "
    "WHERE database = currentDatabase() AND NOT is_temporary ORDER BY name"
)
COLUMNS_SQL = (
    "SELECT table, name, type, comment FROM system.columns "
    "WHERE database = currentDatabase() ORDER BY table, position"
)
_VIEW_ENGINES = frozenset({"View", "MaterializedView", "LiveView", "WindowView"})


def _is_text(type_: str) -> bool:
    """Whether a column's values are category-like text (String, LowCardinality, Enum)."""
    inner = type_
    for wrapper in ("LowCardinality(", "Nullable("):
        if inner.startswith(wrapper):
            inner = inner[len(wrapper) : -1]
    return inner in ("String",) or inner.startswith(("Enum8(", "Enum16(", "FixedString("))


def _shown_type(type_: str, comment: str) -> str:
    return f"{type_} COMMENT '{comment.replace(chr(39), chr(39) * 2)}'" if comment else type_


def describe_clickhouse(
    tables: list[tuple[Any, ...]], columns: list[tuple[Any, ...]]
) -> list[TableInfo]:
    """Return the tables' descriptions from the rows of TABLES_SQL and COLUMNS_SQL.

    Row counts are the engine's own (`total_rows`: exact for MergeTree tables, None for
    views and engines that do not know).
    """
    by_table: dict[str, list[tuple[str, str]]] = {}
    for table, name, type_, comment in columns:
        by_table.setdefault(str(table), []).append((str(name), _shown_type(str(type_), comment)))
    return [
        TableInfo(
            str(name),
            by_table.get(str(name), []),
            None if rows is None else int(rows),
            str(comment or ""),
        )
        for name, _engine, comment, rows in tables
    ]


async def introspect_clickhouse(
    fetch: Fetch, *, sensitive: Collection[str], max_distinct: int
) -> Catalog:
    """Return the catalogue of the client's database, read with `fetch` (one query each).

    ClickHouse has no foreign keys, and its primary key is the sorting key (not unique),
    so no column is marked as a key: the model would take it for an identifier.

    Args:
        fetch: Runs one read-only query and returns its rows.
        sensitive: Lower-case `table.column` names whose values are never read.
        max_distinct: Text columns with at most this many distinct values keep them.

    """
    columns: dict[str, list[tuple[Any, ...]]] = {}
    for row in await fetch(COLUMNS_SQL):
        columns.setdefault(str(row[0]), []).append(row)
    tables = []
    for name, engine, comment, rows in await fetch(TABLES_SQL):
        name = str(name)
        catalog_columns = []
        for _, column, type_, note in columns.get(name, []):
            values = None
            if _is_text(str(type_)) and f"{name}.{column}".lower() not in sensitive:
                values = await _distinct_values(fetch, name, str(column), max_distinct)
            catalog_columns.append(
                CatalogColumn(
                    str(column),
                    str(type_),
                    str(type_).startswith(("Nullable(", "LowCardinality(Nullable(")),
                    False,
                    note or None,
                    values,
                )
            )
        tables.append(
            CatalogTable(
                name,
                tuple(catalog_columns),
                comment=comment or None,
                row_estimate=None if rows is None else int(rows),
                kind="view" if engine in _VIEW_ENGINES else "table",
            )
        )
    return Catalog("clickhouse", tuple(tables), datetime.now(UTC).isoformat(timespec="seconds"))


def quoted_name(name: str) -> str:
    """Return `name` as a ClickHouse identifier in backquotes."""
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


async def _distinct_values(
    fetch: Fetch, table: str, column: str, max_distinct: int
) -> tuple[str, ...] | None:
    if max_distinct <= 0:
        return None
    quoted = quoted_name(column)
    found = [
        str(value)
        for (value,) in await fetch(
            f"SELECT DISTINCT {quoted} FROM {quoted_name(table)} WHERE {quoted} IS NOT NULL "
            f"LIMIT {int(max_distinct) + 1}"
        )
    ]
    return tuple(sorted(found)) if keeps_values(found, max_distinct) else None
