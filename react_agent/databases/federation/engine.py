"""The federation: an in-process DuckDB that attaches each source read-only.

Built when a statement first reads more than one source (and again after a source
failed to attach), with file access then turned off and the configuration locked, so a
query reads the attached tables and nothing else. Queries run as the DuckDB files engine
runs them: a cursor each, in a thread, interrupted at the time limit or on cancel.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Collection, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from react_agent.databases.base import SessionSettings, TableInfo
from react_agent.databases.catalog_model import Catalog
from react_agent.databases.duckdb.files import DuckDBFiles
from react_agent.databases.federation.attach import CannotAttach, attach_statements
from react_agent.databases.federation.statements import FEDERATED_DIALECT, check_federated
from react_agent.databases.records import QueryResult
from react_agent.databases.row_streams import RowStream
from react_agent.errors import ServiceError


@dataclass(frozen=True)
class Attachment:
    """One source as the federation attaches it: its name, URL and built file, if any."""

    name: str
    url: str
    file_path: Path | None = None


_PASSWORD = re.compile(r"(password\s*=\s*|://[^:/@\s]+:)[^\s@']+", re.IGNORECASE)


class Federation:
    """An SQLDatabase over attached sources: statements in DuckDB's dialect, `source.table`.

    Args:
        attachments: The sources to attach, by name.
        file_options: DuckDB's memory limit and threads.

    """

    dialect = FEDERATED_DIALECT

    def __init__(self, attachments: Collection[Attachment], file_options: Mapping[str, Any]):
        self.attachments = {a.name: a for a in attachments}
        self.file_options = dict(file_options)
        self._engine: DuckDBFiles | None = None
        self._opening = asyncio.Lock()

    async def engine(self) -> DuckDBFiles:
        """Return the DuckDB with every source attached, attaching them on first use.

        Raises:
            ServiceError: 503 SOURCE_UNAVAILABLE naming the source that could not attach.

        """
        async with self._opening:
            if self._engine is None:
                connection = await asyncio.to_thread(self._attach_all)
                self._engine = DuckDBFiles(connection, [], None)
            return self._engine

    def _attach_all(self) -> duckdb.DuckDBPyConnection:
        config = {
            "memory_limit": self.file_options.get("memory_limit", "1GB"),
            "threads": self.file_options.get("threads", 2),
            "autoload_known_extensions": False,
            "autoinstall_known_extensions": False,
        }
        connection = duckdb.connect(":memory:", config=config)
        try:
            loaded: set[str] = set()
            for attachment in self.attachments.values():
                try:
                    for statement in attach_statements(
                        attachment.name, attachment.url, file_path=attachment.file_path
                    ):
                        if statement.startswith("LOAD"):
                            if statement in loaded:
                                continue
                            loaded.add(statement)
                        connection.execute(statement)
                except (duckdb.Error, CannotAttach, OSError) as exc:
                    raise source_unavailable(attachment.name, exc) from None
            # From here on no file, no network address but the attached ones, no setting.
            connection.execute("SET enable_external_access = false")
            connection.execute("SET lock_configuration = true")
        except BaseException:
            connection.close()
            raise
        return connection

    async def run_query(
        self,
        sql: str,
        *,
        row_limit: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> QueryResult:
        """Run one statement across the attached sources (DuckDB's dialect)."""
        check_federated(sql, self.attachments)
        engine = await self.engine()
        return await engine.run_query(sql, row_limit=row_limit, timeout=timeout, params=params)

    async def explain(
        self,
        sql: str,
        *,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> None:
        """Plan one statement across the attached sources."""
        check_federated(sql, self.attachments)
        await (await self.engine()).explain(sql, timeout=timeout, params=params)

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
        """Stream a statement's rows across the attached sources (exports)."""
        check_federated(sql, self.attachments)
        engine = await self.engine()
        async with engine.open_row_stream(
            sql, max_rows=max_rows, timeout=timeout, params=params
        ) as stream:
            yield stream

    async def list_tables(self) -> list[str]:
        """Return no table: the sources list their own."""
        return []

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Return nothing: the sources describe their own tables."""
        return []

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return an empty catalogue: the sources' catalogues are the catalogue."""
        return Catalog(FEDERATED_DIALECT)

    async def ping(self) -> None:
        """Run a trivial query on the federation's DuckDB."""
        await (await self.engine()).ping()

    async def aclose(self) -> None:
        """Detach everything (close the DuckDB)."""
        engine, self._engine = self._engine, None
        if engine is not None:
            await engine.aclose()

    async def forget(self) -> None:
        """Close the DuckDB so the next statement attaches every source anew (after a failure)."""
        async with self._opening:
            await self.aclose()


def source_unavailable(name: str, cause: object) -> ServiceError:
    """Return the 503 that names the source that cannot be reached."""
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
    text = _PASSWORD.sub(r"\1***", text)  # a scanner may quote its connection string
    return ServiceError(
        503, "SOURCE_UNAVAILABLE", f"the data source {name} cannot be reached: {text}"
    )


__all__ = ["Attachment", "Federation", "source_unavailable"]
