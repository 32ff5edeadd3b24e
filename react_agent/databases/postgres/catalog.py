"""A PostgreSQL database's catalogue from pg_catalog: tables, counts, comments, keys, values."""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg import sql as pg_sql

from react_agent.databases.base import TableInfo
from react_agent.databases.catalog_model import (
    Catalog,
    CatalogColumn,
    CatalogTable,
    ForeignKey,
    keeps_values,
)
from react_agent.databases.postgres.pool import is_connection_failure

VALUES_TIMEOUT_MS = 2000
"""Milliseconds one table's distinct-values query may take; a slower one keeps no values."""
_TEXT_TYPES = ("text", "character varying", "character", "citext", "name")

COUNT_TIMEOUT = 2.0
"""Seconds an exact row count in `describe_tables` may take before the estimate is used."""
EXACT_COUNT_LIMIT = 1_000_000
"""Tables the planner estimates at least this large get the estimate, not a count."""

# Tables, views, materialized views, foreign and partitioned tables: all can be queried.
_QUERYABLE_KINDS = ["r", "v", "m", "f", "p"]
# The relations (pg_class c, pg_namespace n) of the search_path schemas the account may read.
_READABLE = """
      c.relkind = ANY(%(kinds)s)
      AND n.nspname = ANY(current_schemas(false))
      AND n.nspname NOT IN ('pg_catalog', 'information_schema')
      AND pg_table_is_visible(c.oid)
      AND has_table_privilege(c.oid, 'SELECT')
"""
_LIST_TABLES_SQL = f"""
    SELECT c.relname
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE {_READABLE}
    ORDER BY c.relname
"""
_DESCRIBE_SQL = f"""
    SELECT c.relname, c.oid::regclass::text, c.reltuples,
           a.attname, format_type(a.atttypid, a.atttypmod)
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE c.relname = ANY(%(names)s) AND {_READABLE}
    ORDER BY c.relname, a.attnum
"""
_TABLES_SQL = f"""
    SELECT c.oid, c.relname, c.relkind, c.reltuples, obj_description(c.oid, 'pg_class'),
           c.oid::regclass::text
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE {_READABLE}
    ORDER BY c.relname
"""
_COLUMNS_SQL = """
    SELECT a.attrelid, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
           col_description(a.attrelid, a.attnum), s.n_distinct
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_stats s
      ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = a.attname
    WHERE a.attrelid = ANY(%(oids)s) AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY a.attrelid, a.attnum
"""
_KEYS_SQL = """
    SELECT k.conrelid, k.contype, r.relname,
           ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY u(n, i)
                 JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i),
           ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY u(n, i)
                 JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i)
    FROM pg_constraint k LEFT JOIN pg_class r ON r.oid = k.confrelid
    WHERE k.contype IN ('p', 'f') AND k.conrelid = ANY(%(oids)s)
    ORDER BY k.conrelid, k.conname
"""


async def list_tables(connection: psycopg.AsyncConnection[Any]) -> list[str]:
    """Return the tables and views of the search_path schemas that may be read."""
    cursor = await connection.execute(_LIST_TABLES_SQL, {"kinds": _QUERYABLE_KINDS})
    return [name for (name,) in await cursor.fetchall()]


async def describe_tables(
    connection: psycopg.AsyncConnection[Any], names: list[str]
) -> list[TableInfo]:
    """Return columns and row counts of the named tables that exist, in the order asked.

    Counts are exact for tables under EXACT_COUNT_LIMIT rows that count within
    COUNT_TIMEOUT; others get the planner's estimate (None if never analysed).
    """
    cursor = await connection.execute(
        _DESCRIBE_SQL, {"names": list(names), "kinds": _QUERYABLE_KINDS}
    )
    found: dict[str, tuple[str, float, list[tuple[str, str]]]] = {}
    for name, qualified, estimate, column, type_ in await cursor.fetchall():
        _, _, columns = found.setdefault(name, (qualified, estimate, []))
        if column is not None:
            columns.append((column, type_))
    infos = []
    for name in dict.fromkeys(names):
        if name in found:
            qualified, estimate, columns = found[name]
            count = await _count_rows(connection, qualified, estimate)
            infos.append(TableInfo(name, columns, count))
    return infos


async def _count_rows(
    connection: psycopg.AsyncConnection[Any], qualified_name: str, estimate: float
) -> int | None:
    if estimate >= EXACT_COUNT_LIMIT:
        return int(estimate)
    try:
        async with connection.transaction():  # a savepoint: a failure spoils only this count
            milliseconds = round(COUNT_TIMEOUT * 1000)
            await connection.execute(f"SET LOCAL statement_timeout = {milliseconds}")
            # The name is regclass output from the server: quoted and qualified as needed.
            cursor = await connection.execute(
                pg_sql.SQL("SELECT count(*) FROM {}").format(pg_sql.SQL(qualified_name))
            )
            row = await cursor.fetchone()
            return int(row[0]) if row else None
    except psycopg.Error as exc:
        if is_connection_failure(exc):
            raise
        return int(estimate) if estimate >= 0 else None


async def introspect_postgres(
    connection: psycopg.AsyncConnection[Any],
    *,
    sensitive: Collection[str],
    max_distinct: int,
) -> Catalog:
    """Return the catalogue of the search_path schemas' readable tables and views.

    Comments are PostgreSQL's COMMENT ON; row estimates are pg_class.reltuples (None
    for a table never analysed); keys come from pg_constraint, so a handful of catalog
    queries serve any number of tables. Distinct values are read with one query per
    table, skipping columns pg_stats already knows to have too many.

    Args:
        connection: A connection inside a read-only transaction.
        sensitive: Lower-case `table.column` names whose values are never read.
        max_distinct: Text columns with at most this many distinct values keep them.

    """
    cursor = await connection.execute(_TABLES_SQL, {"kinds": _QUERYABLE_KINDS})
    tables = await cursor.fetchall()
    oids = [row[0] for row in tables]
    columns: dict[int, list[tuple[Any, ...]]] = {oid: [] for oid in oids}
    cursor = await connection.execute(_COLUMNS_SQL, {"oids": oids})
    for row in await cursor.fetchall():
        columns[row[0]].append(row[1:])
    primary: dict[int, tuple[str, ...]] = {}
    foreign: dict[int, list[ForeignKey]] = {oid: [] for oid in oids}
    cursor = await connection.execute(_KEYS_SQL, {"oids": oids})
    for oid, kind, parent, sources, targets in await cursor.fetchall():
        if kind == "p":
            primary[oid] = tuple(sources)
        else:
            foreign[oid].append(ForeignKey(tuple(sources), parent, tuple(targets)))
    known_empty = connection.info.server_version >= 140000
    found = []
    for oid, name, relkind, estimate, comment, qualified in tables:
        rows = None if estimate is None or estimate < 0 else int(estimate)
        # From PostgreSQL 14 on, reltuples 0 means analysed and empty (never analysed is -1):
        # no values to read, so no query.
        wanted = [
            column
            for column, type_, _, _, n_distinct in columns[oid]
            if not (rows == 0 and known_empty)
            and _may_keep_values(name, column, type_, n_distinct, rows, sensitive, max_distinct)
        ]
        values = await _distinct_values(connection, qualified, wanted, max_distinct)
        keys = primary.get(oid, ())
        found.append(
            CatalogTable(
                name,
                tuple(
                    CatalogColumn(
                        column, type_, not not_null, column in keys, note, values.get(column)
                    )
                    for column, type_, not_null, note, _ in columns[oid]
                ),
                keys,
                tuple(foreign[oid]),
                comment,
                rows,
                "table" if relkind in ("r", "p", "f") else "view",
            )
        )
    built_at = datetime.now(UTC).isoformat(timespec="seconds")
    return Catalog("postgres", tuple(found), built_at)


def _may_keep_values(
    table: str,
    column: str,
    type_: str,
    n_distinct: float | None,
    rows: int | None,
    sensitive: Collection[str],
    max_distinct: int,
) -> bool:
    if max_distinct <= 0 or f"{table}.{column}".lower() in sensitive:
        return False
    if not type_.startswith(_TEXT_TYPES):
        return False
    if n_distinct is None:
        return True
    # pg_stats: a positive n_distinct is a count, a negative one a fraction of the rows.
    distinct = n_distinct if n_distinct >= 0 else -n_distinct * (rows or 0)
    return distinct <= max_distinct


async def _distinct_values(
    connection: psycopg.AsyncConnection[Any], qualified: str, columns: list[str], max_distinct: int
) -> dict[str, tuple[str, ...]]:
    """Return the kept values of `columns`, read in one query (a savepoint: failures cost none)."""
    if not columns:
        return {}
    arrays = pg_sql.SQL(", ").join(
        pg_sql.SQL(
            "ARRAY(SELECT DISTINCT {col}::text FROM {table} WHERE {col} IS NOT NULL LIMIT {n})"
        ).format(
            col=pg_sql.Identifier(column),
            # The name is regclass output from the server: quoted and qualified as needed.
            table=pg_sql.SQL(qualified),
            n=pg_sql.Literal(max_distinct + 1),
        )
        for column in columns
    )
    try:
        async with connection.transaction():
            await connection.execute(f"SET LOCAL statement_timeout = {VALUES_TIMEOUT_MS}")
            cursor = await connection.execute(pg_sql.SQL("SELECT {}").format(arrays))
            row = await cursor.fetchone()
    except psycopg.Error as exc:
        if is_connection_failure(exc):
            raise
        return {}
    found = {}
    for column, values in zip(columns, row or (), strict=False):
        if keeps_values(list(values or []), max_distinct):
            found[column] = tuple(sorted(values))
    return found
