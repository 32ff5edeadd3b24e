"""Reading a MySQL/MariaDB database's catalogue: columns, keys, comments, estimates, values."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime
from typing import Any

from react_agent.databases.catalog_model import (
    Catalog,
    CatalogColumn,
    CatalogTable,
    ForeignKey,
    keeps_values,
)

Fetch = Callable[[str], Awaitable[list[tuple[Any, ...]]]]
_TEXT_TYPES = ("char", "varchar", "text", "tinytext", "mediumtext", "longtext", "enum", "set")

_TABLES = (
    "SELECT table_name, table_type, table_comment, table_rows FROM information_schema.tables "
    "WHERE table_schema = DATABASE() ORDER BY table_name"
)
_COLUMNS = (
    "SELECT table_name, column_name, column_type, is_nullable, column_key, column_comment, "
    "data_type FROM information_schema.columns WHERE table_schema = DATABASE() "
    "ORDER BY table_name, ordinal_position"
)
_KEYS = (
    "SELECT table_name, constraint_name, column_name, referenced_table_name, "
    "referenced_column_name FROM information_schema.key_column_usage "
    "WHERE table_schema = DATABASE() AND referenced_table_name IS NOT NULL "
    "ORDER BY table_name, constraint_name, ordinal_position"
)


async def introspect_mysql(
    fetch: Fetch, *, sensitive: Collection[str], max_distinct: int
) -> Catalog:
    """Return the catalogue of the connection's database, read with `fetch` (one query each).

    Args:
        fetch: Runs one read-only query and returns its rows.
        sensitive: Lower-case `table.column` names whose values are never read.
        max_distinct: Text columns with at most this many distinct values keep them.

    """
    columns: dict[str, list[tuple[Any, ...]]] = {}
    for row in await fetch(_COLUMNS):
        columns.setdefault(str(row[0]), []).append(row)
    keys: dict[tuple[str, str], tuple[list[str], str, list[str]]] = {}
    for table, constraint, column, ref_table, ref_column in await fetch(_KEYS):
        entry = keys.setdefault((str(table), str(constraint)), ([], str(ref_table), []))
        entry[0].append(str(column))
        entry[2].append(str(ref_column))
    tables = []
    # Sorted here: the server orders by its collation, where `_` sorts after letters.
    for name, kind, comment, estimate in sorted(await fetch(_TABLES), key=lambda r: str(r[0])):
        name = str(name)
        catalog_columns = []
        for _, column, type_, nullable, key, note, data_type in columns.get(name, []):
            values = None
            if (
                str(data_type).lower() in _TEXT_TYPES
                and f"{name}.{column}".lower() not in sensitive
            ):
                values = await _distinct_values(fetch, name, str(column), max_distinct)
            catalog_columns.append(
                CatalogColumn(
                    str(column), str(type_), nullable == "YES", key == "PRI", note or None, values
                )
            )
        foreign_keys = tuple(
            ForeignKey(tuple(sources), parent, tuple(targets))
            for (table, _), (sources, parent, targets) in sorted(keys.items())
            if table == name
        )
        tables.append(
            CatalogTable(
                name,
                tuple(catalog_columns),
                tuple(c.name for c in catalog_columns if c.primary_key),
                foreign_keys,
                comment or None,
                None if estimate is None else int(estimate),
                "view" if "VIEW" in str(kind).upper() else "table",
            )
        )
    return Catalog("mysql", tuple(tables), datetime.now(UTC).isoformat(timespec="seconds"))


async def _distinct_values(
    fetch: Fetch, table: str, column: str, max_distinct: int
) -> tuple[str, ...] | None:
    if max_distinct <= 0:
        return None
    quoted_table = "`" + table.replace("`", "``") + "`"
    quoted = "`" + column.replace("`", "``") + "`"
    found = [
        str(value)
        for (value,) in await fetch(
            f"SELECT DISTINCT {quoted} FROM {quoted_table} WHERE {quoted} IS NOT NULL "
            f"LIMIT {int(max_distinct) + 1}"
        )
    ]
    return tuple(sorted(found)) if keeps_values(found, max_distinct) else None
