"""Running the model's SQL under a scope: guard (done by the caller) → rewrite → backend.

Every statement a database sees for a question goes through here (the run, its EXPLAIN,
an export's stream): what it sees is the scoped statement with its bound parameters,
never the model's own text when a policy restricts the asker.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.rewrite import ScopedQuery, apply_scope
from react_agent.databases.base import SessionSettings, SQLDatabase
from react_agent.databases.records import QueryResult
from react_agent.databases.row_streams import RowStream


def session_for(scope: Scope) -> SessionSettings | None:
    """Return the PostgreSQL role and `app.<attribute>` settings of `scope` (None: nothing)."""
    if scope.db_role is None and not scope.parameters:
        return None
    settings = {f"app.{name}": str(value) for name, value in scope.parameters.items()}
    return SessionSettings(scope.db_role, settings)


async def scoped_query(
    database: SQLDatabase, sql: str, scope: Scope, columns: TableColumns | None
) -> ScopedQuery:
    """Return `sql` as it runs under `scope`; raise ScopeRefused when it reaches outside."""
    if scope.is_unrestricted or not scope.rewrite or columns is None:
        return apply_scope(sql, database.dialect, scope, {})
    return apply_scope(sql, database.dialect, scope, await columns.get(database))


async def run_in_scope(
    database: SQLDatabase,
    sql: str,
    scope: Scope,
    columns: TableColumns | None,
    *,
    row_limit: int,
    timeout: float,
) -> tuple[ScopedQuery, QueryResult]:
    """Rewrite `sql` for `scope` and run it with its parameters and session settings.

    Raises:
        ScopeRefused: The query reaches outside the scope (nothing ran).
        QueryFailed: The database refused or stopped the query.

    """
    scoped = await scoped_query(database, sql, scope, columns)
    result = await database.run_query(
        scoped.sql,
        row_limit=row_limit,
        timeout=timeout,
        params=scoped.params or None,
        session=session_for(scope),
    )
    return scoped, result


async def explain_in_scope(
    database: SQLDatabase,
    sql: str,
    scope: Scope,
    columns: TableColumns | None,
    *,
    timeout: float,
) -> ScopedQuery:
    """Rewrite `sql` for `scope` and let the database plan it, as run_in_scope would run it.

    MariaDB evaluates constant subqueries while planning, so planning the model's own text
    would read outside the scope; the plan is of the scoped statement.

    Raises:
        ScopeRefused: The query reaches outside the scope (nothing was planned).
        QueryFailed: The database could not plan the query.

    """
    scoped = await scoped_query(database, sql, scope, columns)
    await database.explain(
        scoped.sql, timeout=timeout, params=scoped.params or None, session=session_for(scope)
    )
    return scoped


def open_scoped_stream(
    database: SQLDatabase, scoped: ScopedQuery, scope: Scope, *, max_rows: int, timeout: float
) -> AbstractAsyncContextManager[RowStream]:
    """Stream the rows of `scoped` (from scoped_query), with its parameters and session."""
    return database.open_row_stream(
        scoped.sql,
        max_rows=max_rows,
        timeout=timeout,
        params=scoped.params or None,
        session=session_for(scope),
    )
