"""Files as a data database: a folder of CSV, Parquet, JSON-lines and Excel files in DuckDB.

At open, each file (each sheet of a workbook) is loaded into a table of a DuckDB
database file in a private temporary folder; that file is then opened read-only with
file-system access off and the configuration locked, so a query can read the tables
and nothing else: no other file, no COPY … TO, ATTACH, INSTALL/LOAD or HTTP.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from contextlib import asynccontextmanager, suppress
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import duckdb

from react_agent.databases.base import QueryFailed, SessionSettings, TableInfo, statement_timed_out
from react_agent.databases.catalog_model import Catalog
from react_agent.databases.duckdb.catalog import introspect_duckdb
from react_agent.databases.duckdb.file_tables import LoadedTable, load_files
from react_agent.databases.records import QueryResult, rows_to_records, unique_column_names
from react_agent.databases.row_streams import RowReader
from react_agent.databases.statement_engine import Statement, StatementEngine
from react_agent.errors import ServiceError

T = TypeVar("T")
DUCKDB_SUFFIXES = frozenset({".duckdb", ".ddb"})
"""A file with one of these is a DuckDB database, opened read-only as it is."""


def duckdb_path_from_url(url: str) -> Path:
    """Return the folder or file of `duckdb:///relative` or `duckdb:////absolute`."""
    parts = urlsplit(url)
    if parts.scheme != "duckdb" or parts.netloc:
        raise ValueError(f"not a duckdb:/// URL: {url!r}")
    path = unquote(parts.path)
    return Path(path[1:]) if path.startswith("/") else Path(path)


class DuckDBFiles(StatementEngine):
    """A read-only DuckDB database made from files; queries run in threads, interruptible.

    Args:
        connection: The read-only connection; each query gets a cursor of its own.
        tables: What each table was made from.
        scratch: The private folder holding the built database, removed by `aclose`.

    """

    dialect = "duckdb"

    def __init__(
        self, connection: duckdb.DuckDBPyConnection, tables: list[LoadedTable], scratch: Path | None
    ) -> None:
        self.connection = connection
        self.tables = tables
        self.scratch = scratch

    @classmethod
    async def open(cls, url: str, *, memory_limit: str = "1GB", threads: int = 2) -> DuckDBFiles:
        """Load the files `url` names and open the result read-only.

        Raises:
            ServiceError: 503 DATABASE_UNAVAILABLE when the folder or a file cannot be read.

        """
        location = duckdb_path_from_url(url).resolve()
        try:
            return await asyncio.to_thread(cls._build, location, memory_limit, threads)
        except (OSError, duckdb.Error, ValueError) as exc:
            raise ServiceError(
                503,
                "DATABASE_UNAVAILABLE",
                f"DuckDB files at {location}: {exc}",
                can_retry=False,
            ) from exc

    @classmethod
    def _build(cls, location: Path, memory_limit: str, threads: int) -> DuckDBFiles:
        if not location.exists():
            raise FileNotFoundError(f"no such folder or file: {location}")
        config = {"memory_limit": memory_limit, "threads": threads}
        if location.suffix.lower() in DUCKDB_SUFFIXES:
            return cls(_open_read_only(location, config), [], None)
        scratch = Path(tempfile.mkdtemp(prefix="duckdb-source-"))
        try:
            built = scratch / "files.duckdb"
            with duckdb.connect(str(built), config=config) as writer:
                tables = load_files(writer, location)
            return cls(_open_read_only(built, config), tables, scratch)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise

    async def list_tables(self) -> list[str]:
        """Return the tables, one per file or sheet."""
        rows = await self._call(
            lambda cursor: cursor.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'main' ORDER BY table_name"
            ).fetchall()
        )
        return [name for (name,) in rows]

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Return columns, exact row counts and the file each named table came from."""
        return await self._call(lambda cursor: _describe(cursor, names))

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return the catalogue: each table's columns, types, counts and the file it came from."""
        lowered = frozenset(name.lower() for name in sensitive)
        return await self._call(
            lambda cursor: introspect_duckdb(cursor, sensitive=lowered, max_distinct=max_distinct)
        )

    async def run_query(
        self,
        sql: str,
        *,
        row_limit: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> QueryResult:
        """Run `sql` on a cursor of its own; interrupt it at `timeout` s or when cancelled.

        `params` binds the scope's `$name` placeholders; `session` has no DuckDB meaning.
        """
        bound = dict(params) if params else None

        def run(cursor: duckdb.DuckDBPyConnection) -> QueryResult:
            cursor.execute(sql, bound)
            columns = unique_column_names(d[0] for d in cursor.description or ())
            raw = cursor.fetchmany(row_limit + 1)
            is_limited = len(raw) > row_limit
            total = len(raw)
            if is_limited:
                raw = raw[:row_limit]
                total = _count_rows(cursor, sql, bound, fallback=total)
            return QueryResult(columns, rows_to_records(columns, raw), total, is_limited)

        return await self._call(run, timeout, sql)

    async def plan(self, statement: Statement) -> None:
        """Plan the statement with EXPLAIN, which checks names and syntax without running it."""
        bound = dict(statement.params) if statement.params else None
        await self._call(
            lambda cursor: cursor.execute(f"EXPLAIN {statement.sql}", bound).fetchall(),
            statement.timeout,
            statement.sql,
        )

    async def ping(self) -> None:
        """Run a trivial query."""
        await self._call(lambda cursor: cursor.execute("SELECT 1").fetchall())

    @asynccontextmanager
    async def open_rows(self, statement: Statement, max_rows: int) -> AsyncIterator[RowReader]:
        """Run the statement on a cursor of its own, each batch interrupted at the time limit."""
        sql, timeout = statement.sql, statement.timeout
        bound = dict(statement.params) if statement.params else None
        cursor = self.connection.cursor()
        lock = threading.Lock()  # one thread at a time on the cursor, closing included

        def locked(work: Callable[[], T]) -> Callable[[], T]:
            def run() -> T:
                with lock:
                    return work()

            return run

        def execute() -> list[str]:
            return unique_column_names(d[0] for d in cursor.execute(sql, bound).description or ())

        async def fetch(size: int) -> list[Any]:
            return await _interruptible(
                cursor, locked(partial(cursor.fetchmany, size)), timeout, sql
            )

        try:
            columns = await _interruptible(cursor, locked(execute), timeout, sql)
            yield RowReader(columns, fetch, max_rows)
        finally:
            cursor.interrupt()
            await asyncio.to_thread(locked(cursor.close))

    async def aclose(self) -> None:
        """Close the connection and remove the built database."""
        self.connection.close()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)

    async def _call(
        self,
        work: Callable[[duckdb.DuckDBPyConnection], T],
        timeout: float | None = None,
        statement: str | None = None,
    ) -> T:
        cursor = self.connection.cursor()

        def run() -> T:
            # Closed by the thread that used it: a cancelled caller returns before the
            # interrupted work ends, and must not close the cursor under it.
            try:
                return work(cursor)
            finally:
                cursor.close()

        return await _interruptible(cursor, run, timeout, statement)


def _open_read_only(path: Path, config: dict[str, Any]) -> duckdb.DuckDBPyConnection:
    # Set at connect time and locked: no query can turn file access back on.
    return duckdb.connect(
        str(path),
        read_only=True,
        config={
            **config,
            "enable_external_access": False,
            "autoload_known_extensions": False,
            "autoinstall_known_extensions": False,
            "lock_configuration": True,
        },
    )


_INTERRUPT_EVERY = 0.05
"""Seconds between interrupts of a query that must stop: one sent before DuckDB started
executing is lost, so it is sent again until the thread ends."""


async def _interruptible(
    cursor: duckdb.DuckDBPyConnection,
    work: Callable[[], T],
    timeout: float | None,
    statement: str | None = None,
) -> T:
    """Run `work` in a thread; interrupt the cursor at the deadline or when cancelled.

    A failure of `statement` is raised as QueryFailed, its values redacted.
    """
    running = asyncio.ensure_future(asyncio.to_thread(work))
    deadline = asyncio.get_running_loop().time() + timeout if timeout else None
    timed_out = False
    try:
        while True:
            wait = None if deadline is None else max(0.0, deadline - running.get_loop().time())
            if timed_out or (wait is not None and wait == 0.0):
                timed_out = True
                cursor.interrupt()
                wait = _INTERRUPT_EVERY
            done, _ = await asyncio.wait({running}, timeout=wait)
            if done:
                return running.result()
    except asyncio.CancelledError:
        # The thread cannot be killed; DuckDB stops at its next check, which this waits
        # for, so a cancelled query is over (and its cursor closed) when the caller goes on.
        while not running.done():
            cursor.interrupt()
            with suppress(BaseException):
                await asyncio.wait({running}, timeout=_INTERRUPT_EVERY)
        raise
    except duckdb.InterruptException as exc:
        if timed_out:
            raise statement_timed_out(timeout) from exc
        raise QueryFailed("query cancelled") from exc
    except duckdb.Error as exc:
        # The driver's own exception (its text unredacted) stays out of tracebacks.
        raise QueryFailed(str(exc).strip().splitlines()[0], statement) from None


def _describe(cursor: duckdb.DuckDBPyConnection, names: list[str]) -> list[TableInfo]:
    rows = cursor.execute(
        "SELECT t.table_name, t.comment, c.column_name, c.data_type "
        "FROM duckdb_tables() t JOIN duckdb_columns() c USING (table_oid) "
        "WHERE t.schema_name = 'main' ORDER BY t.table_name, c.column_index"
    ).fetchall()
    found: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    for table, comment, column, type_ in rows:
        found.setdefault(table, (comment or "", []))[1].append((column, type_))
    infos = []
    for name in dict.fromkeys(names):
        if name in found:
            comment, columns = found[name]
            quoted = '"' + name.replace('"', '""') + '"'
            (count,) = cursor.execute(f"SELECT count(*) FROM {quoted}").fetchone() or (None,)
            infos.append(TableInfo(name, columns, count, comment))
    return infos


def _count_rows(
    cursor: duckdb.DuckDBPyConnection,
    sql: str,
    params: dict[str, Any] | None = None,
    *,
    fallback: int,
) -> int:
    try:
        counting = f"SELECT count(*) FROM ({sql.strip().rstrip(';')}\n) AS q"
        row = cursor.execute(counting, params).fetchone()
        return int(row[0]) if row else fallback
    except duckdb.Error:
        return fallback  # counting is a courtesy; the capped rows are right without it
