"""Reading a DuckDB source's catalogue: columns, keys, comments, row counts and values."""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime

import duckdb

from react_agent.databases.catalog_model import (
    Catalog,
    CatalogColumn,
    CatalogTable,
    ForeignKey,
    keeps_values,
)


def introspect_duckdb(
    cursor: duckdb.DuckDBPyConnection, *, sensitive: Collection[str], max_distinct: int
) -> Catalog:
    """Return the catalogue of the main schema (a table per file or sheet; its comment says which).

    Args:
        cursor: A cursor of the read-only connection.
        sensitive: Lower-case `table.column` names whose values are never read.
        max_distinct: Text columns with at most this many distinct values keep them.

    """
    tables = cursor.execute(
        "SELECT table_name, comment, estimated_size FROM duckdb_tables() "
        "WHERE schema_name = 'main' AND NOT internal ORDER BY table_name"
    ).fetchall()
    columns: dict[str, list[tuple[str, str, bool, str | None]]] = {}
    for table, column, type_, nullable, comment in cursor.execute(
        "SELECT table_name, column_name, data_type, is_nullable, comment FROM duckdb_columns() "
        "WHERE schema_name = 'main' AND NOT internal ORDER BY table_name, column_index"
    ).fetchall():
        columns.setdefault(table, []).append((column, type_, nullable, comment))
    constraints = cursor.execute(
        "SELECT table_name, constraint_type, constraint_column_names, referenced_table, "
        "referenced_column_names FROM duckdb_constraints() WHERE schema_name = 'main' "
        "AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')"
    ).fetchall()
    result = []
    for name, comment, estimate in tables:
        primary_key = next(
            (tuple(cols) for t, kind, cols, _, _ in constraints if t == name and kind[0] == "P"),
            (),
        )
        foreign_keys = tuple(
            ForeignKey(tuple(cols), ref_table, tuple(ref_cols))
            for t, kind, cols, ref_table, ref_cols in constraints
            if t == name and kind[0] == "F"
        )
        catalog_columns = tuple(
            CatalogColumn(
                column,
                type_,
                bool(nullable),
                column in primary_key,
                note or None,
                _distinct_values(cursor, name, column, max_distinct)
                if type_ == "VARCHAR" and f"{name}.{column}".lower() not in sensitive
                else None,
            )
            for column, type_, nullable, note in columns.get(name, [])
        )
        result.append(
            CatalogTable(
                name, catalog_columns, primary_key, foreign_keys, comment or None, estimate
            )
        )
    return Catalog("duckdb", tuple(result), datetime.now(UTC).isoformat(timespec="seconds"))


def _distinct_values(
    cursor: duckdb.DuckDBPyConnection, table: str, column: str, max_distinct: int
) -> tuple[str, ...] | None:
    if max_distinct <= 0:
        return None
    quoted_table = '"' + table.replace('"', '""') + '"'
    quoted = '"' + column.replace('"', '""') + '"'
    found = [
        value
        for (value,) in cursor.execute(
            f"SELECT DISTINCT {quoted} FROM {quoted_table} WHERE {quoted} IS NOT NULL "
            f"LIMIT {int(max_distinct) + 1}"
        ).fetchall()
    ]
    return tuple(sorted(found)) if keeps_values(found, max_distinct) else None
