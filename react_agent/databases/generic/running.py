"""Statements of the generic engine in worker threads, each watched and stopped at its limit."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, TypeVar

from sqlalchemy import exc as sa_exc

from react_agent.databases.base import QueryFailed, SessionSettings, statement_timed_out
from react_agent.databases.generic.session import SessionRules, guard_statements
from react_agent.databases.generic.statements import RunningStatement
from react_agent.errors import ServiceError

logger = logging.getLogger(__name__)
T = TypeVar("T")

SERVER_LIMIT_GRACE = 1.0
"""Seconds the watchdog waits past the limit when the server stops statements itself."""
# PostgreSQL's query_canceled; MariaDB's max_statement_time, MySQL's MAX_EXECUTION_TIME.
_TIME_LIMIT_CODES = frozenset({"57014", 1969, 3024})


class Unreachable(Exception):
    """No connection could be had: the server is down, refuses, or the pool is exhausted."""


class StatementRunner:
    """Runs blocking SQLAlchemy work in an executor; a watchdog cancels what overruns.

    Args:
        engine: The SQLAlchemy engine (its pool holds the connections).
        rules: The dialect's read-only and time-limit rules.
        executor: The threads statements run in (as many as the pool has connections).

    """

    def __init__(self, engine: Any, rules: SessionRules, executor: Executor) -> None:
        self.engine = engine
        self.rules = rules
        self.executor = executor
        self.name = engine.dialect.name
        self.shown = engine.url.render_as_string(hide_password=True)

    def statement(self) -> RunningStatement:
        """Return the handle a new statement's connection is recorded on."""
        return RunningStatement(self.name, self.engine)

    async def in_session(
        self,
        work: Callable[[Any], T],
        *,
        timeout: float | None,
        session: SessionSettings | None = None,
        cap: int | None = None,
        statement: str | None = None,
    ) -> T:
        """Run `work(connection)` in a read-only transaction that is always rolled back."""
        running = self.statement()

        def job() -> T:
            connection = self.connect(running)
            try:
                self.rules.begin(connection, timeout, session, cap)
                return work(connection)
            finally:
                self.release(connection, running, finished=True)

        return await self.call(job, running, timeout=timeout, statement=statement)

    def connect(self, running: RunningStatement) -> Any:
        """Check a connection out of the pool and record its driver connection on `running`."""
        try:
            connection = self.engine.connect()
        except (sa_exc.DBAPIError, sa_exc.TimeoutError) as exc:
            raise Unreachable(_first_line(exc)) from exc
        running.raw = connection.connection.dbapi_connection
        return connection

    @staticmethod
    def release(connection: Any, running: RunningStatement, *, finished: bool) -> None:
        """Roll back and give the connection back; one whose statement was stopped is dropped."""
        try:
            if finished and not running.cancelled.is_set():
                guard_statements(connection.dialect.name, running.raw, False)
                connection.rollback()
            else:
                connection.invalidate()
        except sa_exc.DBAPIError:
            connection.invalidate()
        finally:
            connection.close()

    async def call(
        self,
        job: Callable[[], T],
        running: RunningStatement,
        *,
        timeout: float | None,
        statement: str | None,
        grace: bool = True,
    ) -> T:
        """Run `job` in a thread; past `timeout` (or when cancelled) stop its statement."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.executor, job)
        limit = None
        if timeout is not None:
            limit = timeout + (SERVER_LIMIT_GRACE if grace and self.rules.server_time_limit else 0)
        try:
            async with asyncio.timeout(limit):
                return await asyncio.shield(future)
        except TimeoutError:
            await self._stop(future, running)
            assert timeout is not None
            raise statement_timed_out(timeout) from None
        except asyncio.CancelledError:
            await asyncio.shield(self._stop(future, running))
            raise
        except Exception as exc:
            failure = self.translate(exc, timeout, statement, running)
            raise failure from (None if isinstance(failure, QueryFailed) else exc)

    async def _stop(self, future: asyncio.Future[Any], running: RunningStatement) -> None:
        await asyncio.get_running_loop().run_in_executor(None, running.cancel)
        await asyncio.wait([future])
        if not future.cancelled():
            future.exception()  # retrieved: the statement's own end is not news

    def translate(
        self,
        exc: Exception,
        timeout: float | None,
        statement: str | None,
        running: RunningStatement,
    ) -> Exception:
        """Return what a failure means: 503 unreachable, a time limit, or QueryFailed (redacted)."""
        if isinstance(exc, QueryFailed | ServiceError):
            return exc
        if isinstance(exc, Unreachable):
            return self.unavailable(str(exc))
        orig = getattr(exc, "orig", None)
        if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
            return self.unavailable(_first_line(orig or exc))
        if timeout is not None and _is_time_limit(orig):
            return statement_timed_out(timeout)
        if running.cancelled.is_set():
            return QueryFailed("query cancelled")
        message = _driver_message(orig) if orig is not None else _first_line(exc)
        return QueryFailed(message or type(exc).__name__, statement)

    def unavailable(self, problem: str) -> ServiceError:
        """Return the 503 for a data database that cannot be reached."""
        return ServiceError(
            503,
            "DATABASE_UNAVAILABLE",
            f"data database {self.shown} unavailable: {problem}",
            can_retry=True,
        )


def _is_time_limit(orig: Any) -> bool:
    if orig is None:
        return False
    # PyMySQL's errors carry the server's number first (and a SQLSTATE that is not it).
    if orig.args and isinstance(orig.args[0], int):
        return orig.args[0] in _TIME_LIMIT_CODES
    code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if code == "57014":
        return "statement timeout" in str(orig)
    return code in _TIME_LIMIT_CODES


def _driver_message(orig: Any) -> str:
    """Return the driver's error text without its code or the statement it may echo."""
    diag = getattr(orig, "diag", None)
    primary = getattr(diag, "message_primary", None) if diag is not None else None
    if primary:
        return str(primary).strip()
    if len(orig.args) > 1 and isinstance(orig.args[0], int):  # PyMySQL: (code, message)
        return str(orig.args[1]).strip()
    return _first_line(orig)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
