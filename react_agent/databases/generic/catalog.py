"""Reading any SQLAlchemy database's catalogue through its inspector: columns, keys, comments."""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import UTC, datetime
from functools import partial
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.exc import CompileError, DBAPIError

from react_agent.databases.base import TableInfo
from react_agent.databases.catalog_model import (
    Catalog,
    CatalogColumn,
    CatalogTable,
    ForeignKey,
    keeps_values,
)

T = TypeVar("T")


def table_names(connection: Any) -> list[str]:
    """Return the tables and views of the connection's default schema, sorted."""
    inspector = sa.inspect(connection)
    return sorted({*inspector.get_table_names(), *inspector.get_view_names()})


def type_name(column_type: Any, dialect: Any) -> str:
    """Return a column's type as the database writes it (its generic name when it can't)."""
    try:
        return column_type.compile(dialect=dialect)
    except (CompileError, NotImplementedError, AttributeError, TypeError):
        return type(column_type).__name__.upper()


def describe(connection: Any, names: list[str]) -> list[TableInfo]:
    """Return the named tables' columns (with their comments); the counts come apart."""
    inspector = sa.inspect(connection)
    existing = set(table_names(connection))
    infos = []
    for name in dict.fromkeys(names):
        if name not in existing:
            continue
        columns = []
        for column in inspector.get_columns(name):
            shown = type_name(column["type"], connection.dialect)
            if column.get("comment"):
                shown += " COMMENT '" + str(column["comment"]).replace("'", "''") + "'"
            columns.append((str(column["name"]), shown))
        infos.append(
            TableInfo(
                name,
                columns,
                None,
                _table_comment(inspector, name) or "",
            )
        )
    return infos


def introspect(
    connection: Any, dialect: str, *, sensitive: Collection[str], max_distinct: int
) -> Catalog:
    """Return the catalogue of the default schema: types, keys, comments and text values.

    Args:
        connection: A SQLAlchemy connection inside a read-only transaction.
        dialect: The sqlglot dialect the catalogue is read in.
        sensitive: Lower-case `table.column` names whose values are never read.
        max_distinct: Text columns with at most this many distinct values keep them.

    """
    inspector = sa.inspect(connection)
    views = set(inspector.get_view_names())
    tables = []
    for name in table_names(connection):
        key = _optional(partial(inspector.get_pk_constraint, name), {})
        primary = tuple(key.get("constrained_columns") or ())
        columns = tuple(
            CatalogColumn(
                str(column["name"]),
                type_name(column["type"], connection.dialect),
                bool(column.get("nullable", True)),
                column["name"] in primary,
                column.get("comment") or None,
                _distinct_values(connection, name, column, max_distinct)
                if f"{name}.{column['name']}".lower() not in sensitive
                else None,
            )
            for column in inspector.get_columns(name)
        )
        foreign_keys = tuple(
            ForeignKey(
                tuple(key["constrained_columns"]),
                str(key["referred_table"]),
                tuple(key["referred_columns"]),
            )
            for key in (
                _optional(partial(inspector.get_foreign_keys, name), [])
                if name not in views
                else []
            )
        )
        tables.append(
            CatalogTable(
                name,
                columns,
                primary,
                foreign_keys,
                _table_comment(inspector, name),
                None,
                "view" if name in views else "table",
            )
        )
    return Catalog(dialect, tuple(tables), datetime.now(UTC).isoformat(timespec="seconds"))


def _table_comment(inspector: Any, name: str) -> str | None:
    return _optional(lambda: inspector.get_table_comment(name), {}).get("text") or None


def _optional(read: Callable[[], T], default: T) -> T:
    """Return what the inspector reads, or `default` where the dialect cannot read it.

    Some dialects keep no comments or keys (NotImplementedError); some third-party ones
    ask their server in a way it no longer answers (duckdb_engine's `regclass`).
    """
    try:
        return read()
    except (NotImplementedError, DBAPIError):
        return default


def _distinct_values(
    connection: Any, table: str, column: dict[str, Any], max_distinct: int
) -> tuple[str, ...] | None:
    if max_distinct <= 0 or not isinstance(column["type"], sa.String | sa.Enum):
        return None
    target = sa.column(str(column["name"]))
    query = (
        sa.select(target)
        .distinct()
        .select_from(sa.table(table))
        .where(target.is_not(None))
        .limit(int(max_distinct) + 1)
    )
    found = [str(value) for (value,) in connection.execute(query)]
    return tuple(sorted(found)) if keeps_values(found, max_distinct) else None
