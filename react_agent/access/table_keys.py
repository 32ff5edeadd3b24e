"""The name a scope knows a table reference by: `table`, or `source.table` for a named source."""

from __future__ import annotations

from sqlglot import exp

DEFAULT_SCHEMAS = frozenset({"main", "public"})
"""Schema qualifiers that name the data tables themselves (SQLite's and PostgreSQL's)."""


def table_key(table: exp.Table) -> str:
    """Return the lower-case name the policy and the catalogue give `table`.

    A qualifier other than a default schema is the source's name (DATA_SOURCES): the key
    is `source.table`, as the catalogue lists it and the policy names it.
    """
    schema, name = table.db.lower(), table.name.lower()
    return f"{schema}.{name}" if schema and schema not in DEFAULT_SCHEMAS else name
