"""Reading a SQLite database's catalogue: tables, columns, keys, row counts and sample values."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from datetime import UTC, datetime

from react_agent.databases.catalog_model import (
    Catalog,
    CatalogColumn,
    CatalogTable,
    ForeignKey,
    keeps_values,
)

_TEXT_TYPES = ("CHAR", "CLOB", "TEXT")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def is_text_type(declared: str) -> bool:
    """Whether a column declared with this type holds text (SQLite's affinity rules)."""
    upper = declared.upper()
    return not upper or any(word in upper for word in _TEXT_TYPES)


def introspect_sqlite(
    connection: sqlite3.Connection, *, sensitive: Collection[str], max_distinct: int
) -> Catalog:
    """Return the catalogue of the database open on `connection`.

    SQLite keeps no comments; the semantic file supplies descriptions instead.

    Args:
        connection: A read-only connection.
        sensitive: Lower-case `table.column` names whose values are never read.
        max_distinct: Text columns with at most this many distinct values keep them.

    """
    rows = connection.execute(
        "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ).fetchall()
    tables = [
        _introspect_table(connection, name, kind, sensitive, max_distinct) for name, kind in rows
    ]
    built_at = datetime.now(UTC).isoformat(timespec="seconds")
    return Catalog("sqlite", tuple(tables), built_at)


def _introspect_table(
    connection: sqlite3.Connection,
    name: str,
    kind: str,
    sensitive: Collection[str],
    max_distinct: int,
) -> CatalogTable:
    quoted = _quoted(name)
    info = connection.execute(f"PRAGMA table_info({quoted})").fetchall()
    primary_key = tuple(row[1] for row in sorted(info, key=lambda row: row[5]) if row[5])
    columns = []
    for _, column, declared, not_null, _, pk in info:
        values = None
        if is_text_type(declared or "") and f"{name}.{column}".lower() not in sensitive:
            values = _distinct_values(connection, quoted, column, max_distinct)
        columns.append(
            CatalogColumn(column, declared or "", not not_null and not pk, bool(pk), None, values)
        )
    keys: dict[int, tuple[list[str], str, list[str]]] = {}
    for key_id, _, parent, source, target, *_ in connection.execute(
        f"PRAGMA foreign_key_list({quoted})"
    ):
        _, _, targets = keys.setdefault(key_id, ([], parent, []))
        keys[key_id][0].append(source)
        targets.append(target or "")
    foreign_keys = tuple(
        ForeignKey(tuple(sources), parent, tuple(targets))
        for sources, parent, targets in keys.values()
    )
    (count,) = connection.execute(f"SELECT COUNT(*) FROM {quoted}").fetchone()
    return CatalogTable(name, tuple(columns), primary_key, foreign_keys, None, int(count), kind)


def _distinct_values(
    connection: sqlite3.Connection, table: str, column: str, max_distinct: int
) -> tuple[str, ...] | None:
    if max_distinct <= 0:
        return None
    quoted = _quoted(column)
    found = [
        value
        for (value,) in connection.execute(
            f"SELECT DISTINCT {quoted} FROM {table} WHERE typeof({quoted}) = 'text' "
            f"LIMIT {int(max_distinct) + 1}"
        )
    ]
    return tuple(sorted(found)) if keeps_values(found, max_distinct) else None
