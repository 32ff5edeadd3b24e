"""The tables and columns a SQL query reads, for describing and searching turn blocks."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from react_agent.guard.sql_guard import QueryRejected, parse_statement


def sql_terms(sql: str, dialect: str | None) -> tuple[list[str], list[str]]:
    """Return the tables (without the query's own CTEs) and the column names `sql` reads.

    Names are lower-case and sorted; a query sqlglot cannot parse
    reads nothing as far as the history is concerned. A query that ran was parsed by the
    SQL guard moments before: its tree is reused (sql_guard.parse_statement).
    """
    try:
        root = parse_statement(sql, dialect) if dialect else None
    except QueryRejected:
        root = None
    if root is None:
        try:
            root = sqlglot.parse_one(sql, read=dialect or None)
        except SqlglotError:
            return [], []
    ctes = {cte.alias_or_name.lower() for cte in root.find_all(exp.CTE)}
    tables = [
        _qualified(table)
        for table in root.find_all(exp.Table)
        if isinstance(table.this, exp.Identifier) and (table.db or table.name.lower() not in ctes)
    ]
    columns = [column.name.lower() for column in root.find_all(exp.Column) if column.name]
    return sorted(set(tables)), sorted(set(columns))


def _qualified(table: exp.Table) -> str:
    name = table.name.lower()
    return f"{table.db.lower()}.{name}" if table.db else name
