"""Several named sources as one SQLDatabase: tables as `source.table`, statements routed.

A statement that reads one source runs there natively (translated from DuckDB's dialect,
its tables unqualified); one that reads several runs in the federation (engine.py). A
source that cannot be opened at start-up, or fails during a question, is named in the
503 the question gets; the others go on serving.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

from react_agent.databases.base import QueryFailed, SessionSettings, SQLDatabase, TableInfo
from react_agent.databases.catalog_model import Catalog, CatalogTable, ForeignKey
from react_agent.databases.federation.engine import Attachment, Federation, source_unavailable
from react_agent.databases.federation.specs import SourceSpec
from react_agent.databases.federation.statements import (
    FEDERATED_DIALECT,
    check_federated,
    native_statement,
    sources_named,
)
from react_agent.databases.gated import GatedDatabase
from react_agent.databases.records import QueryResult
from react_agent.databases.row_streams import RowStream
from react_agent.errors import ServiceError

logger = logging.getLogger(__name__)
Opener = Callable[[SourceSpec], Awaitable[SQLDatabase]]


@dataclass
class Member:
    """One named source: its spec, its open database (None while down) and why it is down."""

    spec: SourceSpec
    database: SQLDatabase | None = None
    problem: str | None = None


class NamedSources:
    """The data database of DATA_SOURCES: every source's tables, qualified by its name.

    Args:
        members: The sources, opened or not (see open_sources).
        opener: Opens a source again when one that was down is asked for.
        file_options: DuckDB's memory limit and threads, for the federation.

    """

    dialect = FEDERATED_DIALECT

    def __init__(
        self, members: list[Member], opener: Opener, file_options: Mapping[str, Any]
    ) -> None:
        self.members = {member.spec.name: member for member in members}
        self.opener = opener
        self.file_options = dict(file_options)
        self._federations: dict[tuple[tuple[str, str], ...], Federation] = {}
        self._reopening = asyncio.Lock()
        self._is_view = False

    def with_private(self, spec: SourceSpec, database: SQLDatabase) -> NamedSources:
        """Return these sources plus one of a user's own (an upload, `mine`), for one run.

        The view shares the open sources and the federations (keyed by each source's URL,
        so two users' uploads never share one); closing it closes nothing.
        """
        view = NamedSources([], self.opener, self.file_options)
        view.members = {**self.members, spec.name: Member(spec, database)}
        view._federations = self._federations
        view._reopening = self._reopening
        view._is_view = True
        return view

    @property
    def specs(self) -> list[SourceSpec]:
        """Return every source's spec, in the order configured."""
        return [member.spec for member in self.members.values()]

    def prompt_dialect(self) -> str:
        """Return what the model is told of the SQL to write: which dialect runs where."""
        kinds = ", ".join(
            f"{name} ({member.database.dialect if member.database else 'down'}"
            + (f": {member.spec.description}" if member.spec.description else "")
            + ")"
            for name, member in self.members.items()
        )
        return (
            f"set of named sources: {kinds}. Name every table as source.table and write "
            "DuckDB's SQL dialect: a statement that reads one source is translated to that "
            "source's own dialect and runs there; a statement that joins tables of several "
            "sources runs in DuckDB, which attaches them read-only. Answer over them as one"
        )

    def dialect_of(self, name: str) -> str | None:
        """Return the dialect of the source `name` when it is open (None: down or unknown)."""
        member = self.members.get(name)
        return member.database.dialect if member and member.database else None

    async def source(self, name: str) -> SQLDatabase:
        """Return the open source `name`, opening it again if it was down; 503 naming it."""
        member = self.members[name]
        if member.database is None:
            async with self._reopening:
                if member.database is None:
                    try:
                        member.database = await self.opener(member.spec)
                        member.problem = None
                    except Exception as exc:
                        member.problem = str(exc)
                        raise source_unavailable(name, exc) from None
        return member.database

    async def list_tables(self) -> list[str]:
        """Return every open source's tables as `source.table`."""
        found: list[str] = []
        for name, member in self.members.items():
            if member.database is None:
                continue
            try:
                found += [f"{name}.{table}" for table in await member.database.list_tables()]
            except Exception as exc:  # one source down leaves the others' tables
                member.problem = str(exc)
                logger.warning("source %s could not list its tables: %s", name, exc)
        return found

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Describe `source.table` names, each by its source; the source's description first."""
        infos: list[TableInfo] = []
        for source, tables in _by_source(names, self.members).items():
            database = await self.source(source)
            description = self.members[source].spec.description
            for info in await database.describe_tables(tables):
                comment = _joined(description, info.comment)
                infos.append(replace(info, name=f"{source}.{info.name}", comment=comment))
        return infos

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return every open source's catalogue, tables and keys qualified by the source."""
        tables: list[CatalogTable] = []
        built = ""
        for name, member in self.members.items():
            if member.database is None:
                continue
            own = {s.split(".", 1)[1] for s in sensitive if s.startswith(f"{name}.")}
            try:
                catalog = await member.database.introspect(sensitive=own, max_distinct=max_distinct)
            except Exception as exc:  # one source down leaves the others' tables
                member.problem = str(exc)
                logger.warning("source %s could not be introspected: %s", name, exc)
                continue
            built = max(built, catalog.built_at)
            tables += [_qualified(table, name, member.spec.description) for table in catalog.tables]
        return Catalog(FEDERATED_DIALECT, tuple(tables), built)

    async def run_query(
        self,
        sql: str,
        *,
        row_limit: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> QueryResult:
        """Run `sql` on the one source it reads, or across its sources in the federation."""
        target, text, read = await self._target(sql)
        async with self._naming(read), self._turns(read):
            return await target.run_query(
                text, row_limit=row_limit, timeout=timeout, params=params, session=session
            )

    async def explain(
        self,
        sql: str,
        *,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> None:
        """Plan `sql` where it would run."""
        target, text, read = await self._target(sql)
        async with self._naming(read), self._turns(read):
            await target.explain(text, timeout=timeout, params=params, session=session)

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
        """Stream `sql`'s rows from where it runs (exports)."""
        target, text, read = await self._target(sql)
        async with (
            self._naming(read),
            self._turns(read),
            target.open_row_stream(
                text, max_rows=max_rows, timeout=timeout, params=params, session=session
            ) as stream,
        ):
            yield stream

    def sources_read(self, sql: str) -> list[str]:
        """Return the names of the sources `sql` reads (for the audit)."""
        return sources_named(sql, self.members)

    async def ping(self) -> None:
        """Ping every source, noting each one's state; raise only when none answers.

        One source down leaves the others serving (its questions get its 503), so the
        service stays ready; /health shows each source's state.
        """
        failures: list[ServiceError] = []
        for name, member in self.members.items():
            try:
                database = await self.source(name)
                await database.ping()
                member.problem = None
            except Exception as exc:
                member.problem = str(exc)
                failures.append(source_unavailable(name, exc))
        if failures and len(failures) == len(self.members):
            raise failures[0]

    async def aclose(self) -> None:
        """Close the federations and every open source (a run's view closes nothing)."""
        if self._is_view:
            return
        for federation in self._federations.values():
            await federation.aclose()
        for member in self.members.values():
            if member.database is not None:
                await member.database.aclose()

    async def _target(self, sql: str) -> tuple[SQLDatabase, str, list[str]]:
        """Return where `sql` runs, its text there and the sources it reads."""
        read = sources_named(sql, self.members)
        check_federated(sql, self.members)
        if not read:
            raise QueryFailed(
                "name every table as source.table; the sources are " + ", ".join(self.members)
            )
        if len(read) == 1:
            database = await self.source(read[0])
            return database, native_statement(sql, read[0], database.dialect), read
        return await self.federation(read), sql, read

    async def federation(self, names: list[str]) -> Federation:
        """Return the federation that attaches the sources `names` (one per set, kept)."""
        key = tuple(sorted((name, self.members[name].spec.url) for name in names))
        if key not in self._federations:
            attachments = [await self._attachment(name) for name, _ in key]
            self._federations[key] = Federation(attachments, self.file_options)
        return self._federations[key]

    async def _attachment(self, name: str) -> Attachment:
        database = await self.source(name)
        scratch = getattr(database, "scratch", None)
        built = scratch / "files.duckdb" if scratch is not None else None
        return Attachment(name, self.members[name].spec.url, built)

    @asynccontextmanager
    async def _turns(self, read: list[str]) -> AsyncIterator[None]:
        """Hold a turn of every source a federated statement reads, for the statement.

        The federation reads the sources on DuckDB's own connections, past their gates, so
        it takes their turns here: one source after the other in the order of their names
        (two statements reading A+B and B+A never hold one each while waiting for the
        other's), all given back at the end, on an error or a cancel too. A statement on
        one source takes its turn in that source's gate.
        """
        async with AsyncExitStack() as turns:
            if len(read) > 1:
                for name in sorted(read):
                    database = self.members[name].database
                    if isinstance(database, GatedDatabase):
                        await turns.enter_async_context(database.turn())
            yield

    @asynccontextmanager
    async def _naming(self, read: list[str]) -> AsyncIterator[None]:
        """Turn a failure of the sources `read` into the 503 that names the one down."""
        try:
            yield
        except QueryFailed:
            await self._name_the_source_down(read)
            raise
        except ServiceError as exc:
            busy = exc.error_type == "DATA_SOURCE_BUSY"  # already names the busy source
            if exc.status != 503 or busy or exc.error_type == "SOURCE_UNAVAILABLE":
                raise
            name = read[0] if len(read) == 1 else "/".join(read)
            raise source_unavailable(name, exc.detail) from exc

    async def _name_the_source_down(self, names: list[str]) -> None:
        """After a failure, raise the 503 of a source that no longer answers, if one does not."""
        for name in names:
            database = self.members[name].database
            if database is None:
                continue
            try:
                await database.ping()
            except Exception as exc:
                for key in [k for k in self._federations if name in dict(k)]:
                    await self._federations.pop(key).aclose()
                raise source_unavailable(name, exc) from None


def _by_source(names: list[str], members: Mapping[str, Member]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for qualified in names:
        source, dot, table = qualified.partition(".")
        if dot and source.lower() in members:
            grouped.setdefault(source.lower(), []).append(table)
    return grouped


def _joined(description: str, comment: str | None) -> str:
    return " — ".join(part for part in (description, comment or "") if part)


def _qualified(table: CatalogTable, source: str, description: str) -> CatalogTable:
    keys = tuple(
        ForeignKey(key.columns, f"{source}.{key.ref_table}", key.ref_columns)
        for key in table.foreign_keys
    )
    label = f"[{source}: {description}]" if description else f"[{source}]"
    comment = f"{label} {table.comment or ''}".strip()
    return replace(table, name=f"{source}.{table.name}", foreign_keys=keys, comment=comment)


async def open_sources(
    specs: list[SourceSpec], opener: Opener, file_options: Mapping[str, Any]
) -> NamedSources:
    """Open every source; one that fails is kept down (its problem logged), the rest serve."""
    members = []
    for spec in specs:
        member = Member(spec)
        try:
            member.database = await opener(spec)
        except Exception as exc:
            member.problem = str(exc)
            logger.warning("data source %s is down at start-up: %s", spec.name, exc)
        members.append(member)
    return NamedSources(members, opener, file_options)


__all__ = ["Member", "NamedSources", "open_sources"]
