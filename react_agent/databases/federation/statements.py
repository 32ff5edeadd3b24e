"""A statement over named sources: which sources it reads, and its text for each engine.

With named sources the model writes DuckDB's dialect, tables as `source.table`. A
statement that reads one source is translated (sqlglot) to that source's dialect, its
tables unqualified, and runs there natively; one that reads several runs in the
federation's DuckDB as written.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from react_agent.databases.base import QueryFailed

FEDERATED_DIALECT = "duckdb"
"""The dialect the model writes with named sources, and the federation runs."""
MYSQL_FENCE = 18446744073709551615
"""MySQL takes no OFFSET without a LIMIT: the scope's fence becomes the largest LIMIT."""
_SCANNER_FUNCTIONS = ("postgres_", "mysql_", "sqlite_", "duckdb_", "read_", "glob", "query")
"""Function name prefixes that reach past the attached tables (a scanner's own query, files)."""


@lru_cache(maxsize=512)
def _parse(sql: str) -> exp.Expression:
    try:
        tree = sqlglot.parse_one(sql, read=FEDERATED_DIALECT)
    except ParseError as exc:
        raise QueryFailed(f"the statement could not be parsed: {exc}", sql) from None
    if tree is None:
        raise QueryFailed("the statement is empty", ours=True)
    return tree


def sources_named(sql: str, names: Collection[str]) -> list[str]:
    """Return the sources among `names` whose tables `sql` reads, in the order first named."""
    try:
        tree = _parse(sql)
    except QueryFailed:
        return []
    found = (table.db.lower() for table in tree.find_all(exp.Table) if table.db)
    return list(dict.fromkeys(name for name in found if name in names))


def native_statement(sql: str, source: str, dialect: str) -> str:
    """Return `sql` (DuckDB's dialect) in `dialect`, the tables of `source` unqualified."""
    tree = _parse(sql).copy()
    for table in tree.find_all(exp.Table):
        if table.db.lower() == source and not table.catalog:
            table.set("db", None)
    if dialect == "mysql":
        for select in tree.find_all(exp.Select):
            offset = select.args.get("offset")
            if (
                offset is not None
                and not select.args.get("limit")
                and offset.expression.name == "0"
            ):
                select.set("offset", None)
                select.set("limit", exp.Limit(expression=exp.Literal.number(MYSQL_FENCE)))
    return tree.sql(dialect=dialect)


def check_federated(sql: str, names: Collection[str]) -> None:
    """Refuse what the federation must not run: tables outside the sources, scanner calls.

    The SQL guard has already passed the statement; this is the federation's own fence,
    since DuckDB's attached scanners offer functions (`postgres_query`, …) that would
    send text to a source unchecked.
    """
    tree = _parse(sql)
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if not table.db and table.name.lower() in ctes:
            continue
        if not isinstance(table.this, exp.Identifier):
            raise QueryFailed(
                "a query across sources may read tables only, not functions", ours=True
            )
        if table.catalog or table.db.lower() not in names:
            raise QueryFailed(
                f"{table.sql(dialect=FEDERATED_DIALECT)}: across sources, name every table as "
                f"source.table ({', '.join(sorted(names))})"
            )
    for function in tree.find_all(exp.Func):
        name = (
            function.name if isinstance(function, exp.Anonymous) else function.sql_name()
        ).lower()
        if name.startswith(_SCANNER_FUNCTIONS):
            raise QueryFailed(f"the function {name} is not allowed across sources")
