"""What every engine does the same way around its own parts: explain, row streams, capped results.

The protocol's keywords become one Statement: its SQL, its time limit and its scope
(`params` bound in it, `session` set in its transaction first). An engine says how it
plans one (`plan`) and how it opens its rows (`open_rows`: a RowReader whose fetches the
engine times and stops); this reads the batches up to the cap, and a driver's error
raised while they are opened or read reaches the caller as the engine's `stream_failure`
(QueryFailed with its values redacted, or a 503), never the driver's own text.
A query's rows past its row limit are counted by the engine, as a courtesy (`capped_result`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from react_agent.databases.base import QueryFailed, SessionSettings
from react_agent.databases.records import QueryResult, rows_to_records
from react_agent.databases.row_streams import RowReader, RowStream, translating
from react_agent.errors import ServiceError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Statement:
    """One of the model's statements as an engine runs it: its SQL, time limit and scope."""

    sql: str
    timeout: float
    """Seconds the statement (for a stream: each batch) may take."""
    params: Mapping[str, Any] | None = None
    """Values of its named placeholders, as sqlglot writes them in the engine's dialect."""
    session: SessionSettings | None = None
    """Set inside its read-only transaction first (PostgreSQL and the generic engine)."""


class StatementEngine:
    """The SQLDatabase protocol's explain and open_row_stream over an engine's own parts."""

    stream_errors: tuple[type[Exception], ...] = ()
    """The driver's exceptions `stream_failure` translates (none: the engine's reads do)."""

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
        await self.plan(Statement(sql, timeout, params, session))

    @asynccontextmanager
    async def open_row_stream(
        self,
        sql: str,
        *,
        max_rows: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> AsyncIterator[RowStream]:
        """Run one read-only query and read up to `max_rows` rows in batches (for exports).

        Each batch must come within `timeout` seconds; a reader that leaves before the
        end has the query stopped, its connection given back or dropped.

        Raises:
            QueryFailed: The database refused or stopped the query, or a batch ran out of time.
            ServiceError: 503 DATABASE_UNAVAILABLE when the database cannot be reached.

        """
        statement = Statement(sql, timeout, params, session)
        failure = partial(self.stream_failure, statement)
        try:
            async with self.open_rows(statement, max_rows) as reader:
                stream = RowStream(reader.columns, reader.batches())
                yield translating(stream, self.stream_errors, failure)
        except self.stream_errors as exc:
            translated = failure(exc)
            # The driver's own exception (its text unredacted) stays out of tracebacks.
            raise translated from (None if isinstance(translated, QueryFailed) else exc)

    async def plan(self, statement: Statement) -> None:
        """Plan `statement` without running it (EXPLAIN, where the database has one)."""
        raise NotImplementedError

    def open_rows(
        self, statement: Statement, max_rows: int
    ) -> AbstractAsyncContextManager[RowReader]:
        """Open `statement` read-only; on leaving, stop it unless the reader `finished`."""
        raise NotImplementedError

    def stream_failure(self, statement: Statement, exc: Exception) -> Exception:
        """Return what one of `stream_errors` means: QueryFailed (redacted), a timeout, a 503."""
        raise NotImplementedError


async def capped_result(
    columns: list[str],
    raw: Sequence[Sequence[Any]],
    row_limit: int,
    count: Callable[[], Awaitable[int | None]],
) -> QueryResult:
    """Return the first `row_limit` of `raw` (up to `row_limit + 1` rows fetched) as a result.

    Past the limit the total is what `count()` finds; counting is a courtesy, so when it
    fails (or finds nothing) the capped rows are still right, the rows fetched standing in.
    """
    is_limited = len(raw) > row_limit
    total = len(raw)
    if is_limited:
        raw = raw[:row_limit]
        try:
            counted = await count()
        except (QueryFailed, ServiceError) as exc:
            logger.info("could not count the rows of a limited result: %s", exc)
        else:
            total = total if counted is None else counted
    return QueryResult(columns, rows_to_records(columns, raw), total, is_limited)
