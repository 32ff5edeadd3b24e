"""A data source behind its fair share: statements, plans and exports take a turn first."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from react_agent.databases.base import ForwardingDatabase, SessionSettings, SQLDatabase
from react_agent.databases.fair_share import FairShare, WaitReport
from react_agent.databases.records import QueryResult
from react_agent.databases.row_streams import RowStream


class GatedDatabase(ForwardingDatabase):
    """An SQLDatabase whose statements wait for a fair turn of `share` before they run.

    Listing, describing and reading the catalogue do not take a turn: they are the
    service's own reads, cached, and must not queue behind users' scans.

    Args:
        inner: The source's engine.
        share: The source's turns.
        report: Told `(source, ahead)` while a statement waits (the run's progress).

    """

    def __init__(
        self, inner: SQLDatabase, share: FairShare, report: WaitReport | None = None
    ) -> None:
        self.inner = inner
        self.share = share
        self.report = report

    def __getattr__(self, name: str) -> Any:
        """Return the engine's own attributes (e.g. SQLite's running_queries) as they are."""
        if name == "inner":  # not set yet (a copy being made): no engine to ask
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def source(self) -> SQLDatabase:
        """Return the engine behind the gate."""
        return self.inner

    def turn(self) -> AbstractAsyncContextManager[None]:
        """Hold one of the source's turns for a statement run elsewhere (the federation)."""
        return self.share.turn(self.report)

    @property
    def kind(self) -> str:
        """Return the engine's kind, as /health names it."""
        return getattr(self.inner, "kind", self.inner.dialect)

    async def run_query(
        self,
        sql: str,
        *,
        row_limit: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> QueryResult:
        """Run a query in its turn."""
        async with self.share.turn(self.report):
            return await self.inner.run_query(
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
        """Plan a query in its turn."""
        async with self.share.turn(self.report):
            await self.inner.explain(sql, timeout=timeout, params=params, session=session)

    def open_row_stream(
        self,
        sql: str,
        *,
        max_rows: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> AbstractAsyncContextManager[RowStream]:
        """Stream a query's rows, holding a turn while the stream is open."""
        return self._stream(sql, max_rows, timeout, params, session)

    @asynccontextmanager
    async def _stream(
        self,
        sql: str,
        max_rows: int,
        timeout: float,
        params: Mapping[str, Any] | None,
        session: SessionSettings | None,
    ) -> AsyncIterator[RowStream]:
        async with self.share.turn(self.report):
            stream = self.inner.open_row_stream(
                sql, max_rows=max_rows, timeout=timeout, params=params, session=session
            )
            async with stream as rows:
                yield rows
