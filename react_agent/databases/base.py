"""What every data database offers the agent: the protocol, its table description and error."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from react_agent.databases.catalog_model import Catalog
from react_agent.databases.error_text import redact_error
from react_agent.databases.records import QueryResult
from react_agent.databases.row_streams import RowStream


class QueryFailed(Exception):
    """The database refused or aborted a query; the message, values redacted, is for the model.

    Args:
        message: The database's error text (redacted here: react_agent/databases/error_text),
            or the service's own (`ours`), which quotes no data.
        statement: The SQL that failed; quoted texts made only of its words are kept.
        ours: The message is the service's, not the database's: kept as it is.

    """

    def __init__(self, message: str, statement: str | None = None, *, ours: bool = False) -> None:
        super().__init__(message if ours else redact_error(message, statement))


def statement_timed_out(timeout: float) -> QueryFailed:
    """Return the failure of a query stopped by its statement timeout (every database's)."""
    return QueryFailed(
        f"query stopped: it ran longer than the {timeout:g} s statement timeout", ours=True
    )


@dataclass(frozen=True)
class TableInfo:
    """A table's name, its columns as (name, type), its row count and its comment."""

    name: str
    columns: list[tuple[str, str]]
    row_count: int | None
    comment: str = ""


@dataclass(frozen=True)
class SessionSettings:
    """What a query's transaction is set to first: a database role and `app.*` settings.

    Only backends with roles and session settings (PostgreSQL) apply them; the others run
    the query as usual. Everything here is transaction-local, gone when it rolls back.
    """

    role: str | None = None
    """The role to SET LOCAL ROLE to, or None to stay the service's own."""
    settings: Mapping[str, str] = field(default_factory=dict)
    """Setting name (e.g. `app.region_id`) → value, set with set_config(…, true)."""


class SQLDatabase(Protocol):
    """What the agent's tools need from a database."""

    dialect: str
    """The sqlglot dialect name: "sqlite", "postgres", "mysql", "duckdb", "clickhouse", …"""

    async def list_tables(self) -> list[str]:
        """Return the names of the tables the agent may query."""
        ...

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Return columns and row counts of the named tables."""
        ...

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return the catalogue: tables, columns, types, keys, comments, row estimates, values.

        Args:
            sensitive: Lower-case `table.column` names whose values are never read.
            max_distinct: Text columns with at most this many distinct values keep them
                (0 reads no values).

        """
        ...

    async def run_query(
        self,
        sql: str,
        *,
        row_limit: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> QueryResult:
        """Run one read-only query, keeping at most `row_limit` rows.

        `params` binds the query's named placeholders (as sqlglot writes them in the
        backend's dialect); `session` is applied inside the read-only transaction first.
        """
        ...

    async def explain(
        self,
        sql: str,
        *,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> None:
        """Let the database plan the query without running it; raise QueryFailed if it can't.

        `params` and `session` as for run_query: what is planned is the scoped statement.
        """
        ...

    async def ping(self) -> None:
        """Raise if the database cannot be reached."""
        ...

    def open_row_stream(
        self,
        sql: str,
        *,
        max_rows: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> AbstractAsyncContextManager[RowStream]:
        """Run one read-only query and read up to `max_rows` rows in batches (for exports)."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


class ForwardingDatabase:
    """An SQLDatabase that hands every call to another one, `source` (a router or a gate).

    Subclasses say which database `source` is and override what they add to a call.
    """

    @property
    def source(self) -> SQLDatabase:
        """Return the database the calls go to."""
        raise NotImplementedError

    @property
    def dialect(self) -> str:
        """Return the source's sqlglot dialect."""
        return self.source.dialect

    async def list_tables(self) -> list[str]:
        """Return the source's tables."""
        return await self.source.list_tables()

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Describe the source's tables."""
        return await self.source.describe_tables(names)

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return the source's catalogue."""
        return await self.source.introspect(sensitive=sensitive, max_distinct=max_distinct)

    async def run_query(
        self,
        sql: str,
        *,
        row_limit: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> QueryResult:
        """Run a query on the source."""
        return await self.source.run_query(
            sql, row_limit=row_limit, timeout=timeout, params=params, session=session
        )

    async def explain(
        self,
        sql: str,
        *,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> None:
        """Plan a query on the source."""
        await self.source.explain(sql, timeout=timeout, params=params, session=session)

    async def ping(self, *args: Any) -> None:
        """Ping the source (pool engines take the ping's time limit: `ping(timeout)`)."""
        await self.source.ping(*args)

    def open_row_stream(
        self,
        sql: str,
        *,
        max_rows: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> AbstractAsyncContextManager[RowStream]:
        """Stream a query's rows from the source."""
        return self.source.open_row_stream(
            sql, max_rows=max_rows, timeout=timeout, params=params, session=session
        )

    async def aclose(self) -> None:
        """Close the source."""
        await self.source.aclose()
