"""What each SQLAlchemy dialect does to keep a statement read-only and within its time limit.

Where the engine has a read-only transaction or session setting it is set before every
statement (PostgreSQL, MySQL/MariaDB, Oracle) or on every new connection (SQLite's
`query_only` on a file opened read-only, DuckDB's `read_only`); elsewhere the SQL guard
alone keeps statements read-only, said in one line at start-up. The time limit is the
server's where it has one; the engine's watchdog cancels from the client in every case.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine.url import make_url

from react_agent.databases.base import SessionSettings
from react_agent.databases.sqlite.engine import authorize_read_only

Begin = Callable[[Any, float | None, SessionSettings | None, int | None], None]
"""Set a fresh transaction read-only: (connection, seconds, session, top-level row cap)."""


@dataclass(frozen=True)
class SessionRules:
    """How statements of one SQLAlchemy dialect are kept read-only and timed."""

    read_only: str
    """How, in words for the start-up line and /health ("" when only the guard does)."""
    begin: Begin
    server_time_limit: bool = False
    """The server stops a statement at the limit itself (the watchdog then waits a little)."""
    explain: str | None = "EXPLAIN "
    """The prefix that plans a statement without running it (None: nothing to ask)."""


def _postgres(connection: Any, timeout: float | None, session: Any, cap: int | None) -> None:
    connection.exec_driver_sql("SET TRANSACTION READ ONLY")
    if timeout is not None:
        connection.exec_driver_sql(f"SET LOCAL statement_timeout = {max(1, round(timeout * 1000))}")
    if session is not None:
        _apply_postgres_session(connection, session)


def _apply_postgres_session(connection: Any, session: SessionSettings) -> None:
    for name, value in session.settings.items():
        connection.exec_driver_sql("SELECT set_config(%(n)s, %(v)s, true)", {"n": name, "v": value})
    if session.role:
        quoted = '"' + session.role.replace('"', '""') + '"'
        connection.exec_driver_sql(f"SET LOCAL ROLE {quoted}")


def _mysql(connection: Any, timeout: float | None, session: Any, cap: int | None) -> None:
    if getattr(connection.dialect, "is_mariadb", False):
        limit = f"max_statement_time = {timeout:.3f}" if timeout else "max_statement_time = 0"
    else:
        limit = f"MAX_EXECUTION_TIME = {max(1, round(timeout * 1000)) if timeout else 0}"
    rows = str(cap) if cap is not None else "DEFAULT"
    connection.exec_driver_sql(f"SET SESSION {limit}, sql_select_limit = {rows}")
    connection.exec_driver_sql("START TRANSACTION READ ONLY")


def _oracle(connection: Any, timeout: float | None, session: Any, cap: int | None) -> None:
    raw = connection.connection.dbapi_connection
    if hasattr(raw, "call_timeout"):  # oracledb / cx_Oracle: milliseconds, 0 is none
        raw.call_timeout = max(1, round(timeout * 1000)) if timeout else 0
    connection.exec_driver_sql("SET TRANSACTION READ ONLY")


def _nothing(connection: Any, timeout: float | None, session: Any, cap: int | None) -> None:
    """Read-only by how the connection was opened, or by the guard alone."""


RULES: dict[str, SessionRules] = {
    "postgresql": SessionRules("SET TRANSACTION READ ONLY", _postgres, server_time_limit=True),
    "mysql": SessionRules("START TRANSACTION READ ONLY", _mysql, server_time_limit=True),
    "mariadb": SessionRules("START TRANSACTION READ ONLY", _mysql, server_time_limit=True),
    "oracle": SessionRules("SET TRANSACTION READ ONLY", _oracle, explain=None),
    "sqlite": SessionRules("the file opened mode=ro, PRAGMA query_only", _nothing),
    "duckdb": SessionRules("the file opened read_only, external access off", _nothing),
    "mssql": SessionRules("", _nothing, explain=None),
}
GUARD_ONLY = SessionRules("", _nothing)
"""Every other dialect: the SQL guard alone keeps statements read-only."""


def rules_for(sqlalchemy_name: str) -> SessionRules:
    """Return the session rules of a SQLAlchemy dialect (GUARD_ONLY when it has none here)."""
    return RULES.get(sqlalchemy_name, GUARD_ONLY)


def connect_arguments(sqlalchemy_name: str) -> dict[str, Any]:
    """Return the driver's connect() keywords that make its connections read-only."""
    if sqlalchemy_name == "sqlite":
        return {"check_same_thread": False}
    if sqlalchemy_name == "duckdb":
        return {"read_only": True}
    return {}


def prepare_connection(sqlalchemy_name: str, raw: Any) -> None:
    """Make a new driver connection read-only, where the dialect does it per connection."""
    if sqlalchemy_name == "sqlite":
        raw.execute("PRAGMA query_only = ON")
        raw.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    elif sqlalchemy_name == "duckdb":
        # Connections to one file in one process share its instance: the first locks it.
        if raw.execute("SELECT current_setting('lock_configuration')").fetchone()[0]:
            return
        raw.execute("SET enable_external_access = false")
        raw.execute("SET lock_configuration = true")


def guard_statements(sqlalchemy_name: str, raw: Any, on: bool) -> None:
    """Give SQLite's authorizer (the native engine's) to the model's statements.

    Not to the inspector's: those read sqlite_master and PRAGMAs, which it denies.
    """
    if sqlalchemy_name == "sqlite":
        raw.set_authorizer(authorize_read_only if on else None)


def sqlite_read_only_url(url: str) -> str:
    """Return a `sqlite:///file` URL as a read-only URI (`file:…?mode=ro`) of the same file.

    Raises:
        FileNotFoundError: The file is not there (SQLite would make an empty one).

    """
    path = Path(make_url(url).database or "").resolve()
    if not path.is_file():
        raise FileNotFoundError(str(path))
    return f"sqlite+pysqlite:///{path.as_uri()}?mode=ro&uri=true"
