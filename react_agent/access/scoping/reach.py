"""Whether a stored SQL text stays inside a scope: memory examples outside it are skipped."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from react_agent.access.scope import Scope


def reads_within(sql: str, scope: Scope, dialect: str | None = None) -> bool:
    """Whether `sql` reads only tables the scope may read and names no denied column.

    Row filters do not matter here: an example that reads a filtered table is filtered
    when it runs. SQL that cannot be parsed counts as outside (the safe side).
    """
    if scope.is_unrestricted:
        return True
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return False
    if tree is None:
        return False
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    tables = {
        table.name.lower()
        for table in tree.find_all(exp.Table)
        if isinstance(table.this, exp.Identifier) and table.name.lower() not in ctes
    }
    if not all(scope.can_read(table) for table in tables):
        return False
    denied = {column for table in tables for column in scope.denied_columns.get(table, ())}
    return not any(
        identifier.name.lower() in denied for identifier in tree.find_all(exp.Identifier)
    )
