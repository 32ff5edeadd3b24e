"""What one caller sees of the catalogue: its readable tables with the semantic file's words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from react_agent.catalog.semantic.model import Metric, Semantics
from react_agent.databases.catalog_model import Catalog, CatalogTable


class Readable(Protocol):
    """Which tables and columns a caller may read (the access Scope has this shape)."""

    def can_read(self, table: str) -> bool:
        """Whether the caller may read `table`."""

    def readable_columns(self, table: str, columns: Sequence[str]) -> list[str]:
        """Return the columns of `table`, of `columns`, the caller may read."""


@dataclass(frozen=True)
class TableAllowList:
    """A Readable from a set of lower-case table names (SQL_ALLOWED_TABLES); None: all."""

    tables: frozenset[str] | None = None

    def can_read(self, table: str) -> bool:
        """Whether `table` is in the list (any table without one)."""
        return self.tables is None or table.lower() in self.tables

    def readable_columns(self, table: str, columns: Sequence[str]) -> list[str]:
        """Every column of a readable table."""
        return list(columns)


@dataclass(frozen=True)
class ScopedReadable:
    """A Readable of SQL_ALLOWED_TABLES and an access scope (None: no policy) together."""

    allowed: TableAllowList
    scope: Readable | None = None

    def can_read(self, table: str) -> bool:
        """Whether both the allow list and the scope let the caller read `table`."""
        return self.allowed.can_read(table) and (self.scope is None or self.scope.can_read(table))

    def readable_columns(self, table: str, columns: Sequence[str]) -> list[str]:
        """Return the columns of `table` the scope lets the caller read."""
        if self.scope is None:
            return list(columns)
        return self.scope.readable_columns(table, columns)

    def filters_rows(self, table: str) -> bool:
        """Whether the scope lets the caller read only some rows of `table`."""
        check = getattr(self.scope, "filters_rows", None)
        return bool(callable(check) and check(table))

    def sensitive(self, table: str) -> frozenset[str]:
        """Return the columns of `table` whose values the caller is never shown."""
        check = getattr(self.scope, "sensitive", None)
        return frozenset(check(table)) if callable(check) else frozenset()

    def to_dict(self) -> dict[str, Any]:
        """Return the filter as plain data (the views' cache key: scopes are unhashable)."""
        as_dict = getattr(self.scope, "to_dict", None)
        return {
            "allowed": sorted(self.allowed.tables) if self.allowed.tables is not None else None,
            "scope": as_dict() if callable(as_dict) else None,
        }


@dataclass(frozen=True)
class ViewColumn:
    """A column as shown: the file's description before the database's comment."""

    name: str
    type: str
    description: str | None
    synonyms: tuple[str, ...]
    values: tuple[str, ...] | None
    primary_key: bool
    references: str | None
    """`table.column` this column points to, when a foreign key says so."""


@dataclass(frozen=True)
class ViewTable:
    """A table as shown to one caller."""

    name: str
    description: str | None
    synonyms: tuple[str, ...]
    row_count: int | None
    columns: tuple[ViewColumn, ...]
    neighbours: tuple[str, ...]
    """Tables joined to this one by a foreign key (either way) or a join path of the file."""


def visible_tables(
    catalog: Catalog, semantics: Semantics, readable: Readable | None = None
) -> list[ViewTable]:
    """Return the tables the caller may read and the file does not hide, described."""
    shown = [
        table
        for table in catalog.tables
        if table.name.lower() not in semantics.hidden
        and (readable is None or readable.can_read(table.name))
    ]
    names = {table.name.lower() for table in shown}
    neighbours: dict[str, set[str]] = {name: set() for name in names}
    for table in shown:
        for key in table.foreign_keys:
            if key.ref_table.lower() in names:
                neighbours[table.name.lower()].add(key.ref_table)
                neighbours[key.ref_table.lower()].add(table.name)
    for join in semantics.joins:
        left, right = join.left.split(".")[0], join.right.split(".")[0]
        if left.lower() in names and right.lower() in names:
            neighbours[left.lower()].add(right)
            neighbours[right.lower()].add(left)
    return [
        _describe(table, semantics, readable, tuple(sorted(neighbours[table.name.lower()])), names)
        for table in shown
    ]


def _describe(
    table: CatalogTable,
    semantics: Semantics,
    readable: Readable | None,
    neighbours: tuple[str, ...],
    shown: set[str],
) -> ViewTable:
    meaning = next(
        (m for name, m in semantics.tables.items() if name.lower() == table.name.lower()), None
    )
    columns_meant = {name.lower(): m for name, m in (meaning.columns if meaning else {}).items()}
    allowed = [c.name for c in table.columns]
    if readable is not None:
        allowed = readable.readable_columns(table.name, allowed)
    references = {
        column.lower(): f"{key.ref_table}.{target}"
        for key in table.foreign_keys
        if key.ref_table.lower() in shown  # a key into a hidden table names nothing
        for column, target in zip(key.columns, key.ref_columns, strict=False)
    }
    # Counts and values are read over the whole table: a caller who reads only some of
    # its rows is shown neither, and never a sensitive column's values (docs/security.md).
    filtered = _filters_rows(readable, table.name)
    hidden = _sensitive(readable, table.name)
    columns = []
    for column in table.columns:
        if column.name not in allowed:
            continue
        said = columns_meant.get(column.name.lower())
        columns.append(
            ViewColumn(
                column.name,
                column.type,
                (said.description if said else None) or column.comment,
                said.synonyms if said else (),
                None if filtered or column.name.lower() in hidden else column.values,
                column.primary_key,
                references.get(column.name.lower()),
            )
        )
    return ViewTable(
        table.name,
        (meaning.description if meaning else None) or table.comment,
        meaning.synonyms if meaning else (),
        None if filtered else table.row_estimate,
        tuple(columns),
        neighbours,
    )


def _filters_rows(readable: Readable | None, table: str) -> bool:
    check = getattr(readable, "filters_rows", None)
    return bool(callable(check) and check(table))


def _sensitive(readable: Readable | None, table: str) -> frozenset[str]:
    check = getattr(readable, "sensitive", None)
    return frozenset(c.lower() for c in check(table)) if callable(check) else frozenset()


def visible_metrics(semantics: Semantics, tables: Sequence[ViewTable]) -> list[Metric]:
    """Return the metrics whose SQL names only visible tables."""
    names = {table.name.lower() for table in tables}
    return [
        metric
        for metric in semantics.metrics
        if all(part.split(".")[0].lower() in names for part in _dotted_names(metric.sql))
    ]


def _dotted_names(sql: str) -> list[str]:
    """Return the `table.column` words of a metric's SQL (the file names columns this way)."""
    words = "".join(c if c.isalnum() or c in "._" else " " for c in sql).split()
    return [word for word in words if "." in word and not word.replace(".", "").isdigit()]


def schema_data(
    tables: Sequence[ViewTable], metrics: Sequence[Metric], status: str, built_at: str | None
) -> dict[str, Any]:
    """Return GET /api/v0/schema's data for these tables and metrics."""
    return {
        "status": status,
        "built_at": built_at,
        "tables": [
            {
                "name": table.name,
                "description": table.description,
                "row_count": table.row_count,
                "columns": [
                    {
                        "name": column.name,
                        "type": column.type,
                        "description": column.description,
                        "synonyms": list(column.synonyms),
                    }
                    for column in table.columns
                ],
            }
            for table in tables
        ],
        "metrics": [{"name": m.name, "sql": m.sql, "description": m.description} for m in metrics],
    }


def render_table(table: ViewTable, *, values: int = 12) -> str:
    """Return the compact text the model reads for a table: one line per column."""
    head = table.name
    if table.row_count is not None:
        head += f" (~{table.row_count} rows)"
    if table.description:
        head += f": {table.description}"
    if table.synonyms:
        head += f" [also: {', '.join(table.synonyms)}]"
    lines = [head]
    for column in table.columns:
        line = f"  {column.name} {column.type}".rstrip()
        if column.primary_key:
            line += " PK"
        if column.references:
            line += f" -> {column.references}"
        if column.description:
            line += f" -- {column.description}"
        if column.synonyms:
            line += f" [also: {', '.join(column.synonyms)}]"
        if column.values:
            shown = ", ".join(column.values[:values])
            more = len(column.values) - values
            line += f" {{values: {shown}{f', … {more} more' if more > 0 else ''}}}"
        lines.append(line)
    return "\n".join(lines)


def render_metrics(metrics: Sequence[Metric]) -> str:
    """Return the metrics as lines the model reads ("" without any)."""
    return "\n".join(
        f"- {m.name} = {m.sql}" + (f" -- {m.description}" if m.description else "") for m in metrics
    )
