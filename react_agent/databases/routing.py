"""Which data source a question runs on: the service's database, or the asker's dataset.

The tools hold one database object for the life of the process; this router is that
object when datasets are on. A request that names a dataset sets the source in a context
variable before its run starts; the runner carries it into the run's fresh context, and
every task the run starts (tool calls, sub-agents) inherits it, so the question runs on
the dataset while others do not.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from typing import Any

from react_agent.databases.base import SessionSettings, SQLDatabase, TableInfo
from react_agent.databases.catalog_model import Catalog
from react_agent.databases.records import QueryResult
from react_agent.databases.row_streams import RowStream

_chosen: ContextVar[SQLDatabase | None] = ContextVar("chosen_data_source", default=None)


def run_on(source: SQLDatabase | None) -> None:
    """Make `source` the data source of the current task and the tasks it starts."""
    _chosen.set(source)


def chosen_source() -> SQLDatabase | None:
    """Return the data source chosen in the current context, if any."""
    return _chosen.get()


class DataSourceRouter:
    """An SQLDatabase that forwards each call to the chosen source, else the default one.

    Args:
        default: The service's data database.

    """

    def __init__(self, default: SQLDatabase) -> None:
        self.default = default

    @property
    def source(self) -> SQLDatabase:
        """Return the source of the current run."""
        return _chosen.get() or self.default

    @property
    def dialect(self) -> str:  # type: ignore[override]
        """Return the chosen source's sqlglot dialect."""
        return self.source.dialect

    async def list_tables(self) -> list[str]:
        """Return the chosen source's tables."""
        return await self.source.list_tables()

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Describe the chosen source's tables."""
        return await self.source.describe_tables(names)

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return the chosen source's catalogue."""
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
        """Run a query on the chosen source."""
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
        """Plan a query on the chosen source."""
        await self.source.explain(sql, timeout=timeout, params=params, session=session)

    async def ping(self) -> None:
        """Ping the service's own database (what /health reports)."""
        await self.default.ping()

    def open_row_stream(
        self,
        sql: str,
        *,
        max_rows: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> AbstractAsyncContextManager[RowStream]:
        """Stream a query's rows from the chosen source."""
        return self.source.open_row_stream(
            sql, max_rows=max_rows, timeout=timeout, params=params, session=session
        )

    async def aclose(self) -> None:
        """Close the service's own database (datasets are closed by their cache)."""
        await self.default.aclose()
