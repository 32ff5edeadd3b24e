"""The catalogue of one process: built in the background, shared through the memory database."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from react_agent.catalog.semantic.checks import load_semantics
from react_agent.catalog.semantic.model import Semantics
from react_agent.catalog.store import READY, CatalogStore
from react_agent.catalog.view import ViewTable, visible_tables
from react_agent.databases.base import SQLDatabase
from react_agent.databases.catalog_model import Catalog

logger = logging.getLogger(__name__)

FRESH_SECONDS = 60.0
"""A catalogue another worker started building less than this ago is reused at start-up."""
STUCK_SECONDS = 600.0
"""A build left unfinished this long (its worker died) is taken over."""
WAIT_POLL_SECONDS = 0.5
"""How often a worker waiting for another's build looks at the memory database."""
RETRY_MAX_SECONDS = 60.0
"""Longest wait between attempts at a first build that failed (the database was down)."""
REVISION_TTL = 1.0
"""Seconds a read of the stored revision is trusted before another worker's refresh is seen."""

BuiltHook = Callable[[Catalog | None, Catalog], Awaitable[None]]
"""Called after this process built a catalogue: (the previous one, the new one)."""
SnapshotListener = Callable[["Snapshot"], None]
"""Told of each new snapshot (built here or read from another worker); must not raise."""


@dataclass(frozen=True)
class Snapshot:
    """One catalogue with the semantic file applied: what prompts, tools and routes read."""

    catalog: Catalog
    semantics: Semantics
    problems: tuple[str, ...]
    """The semantic file's problems (then none of it is applied)."""
    tables: tuple[ViewTable, ...]
    """Every table not hidden by the file, before any caller's filter."""
    derived: dict[str, object] = field(default_factory=dict, compare=False)
    """Indexes built from this snapshot on first use (react_agent.catalog.context)."""


class CatalogService:
    """Builds or reads the catalogue; `status` is `building` until the first one is there.

    Args:
        database: The data source.
        store: Where workers share the build; None builds in this process only.
        semantic_file: The SEMANTIC_FILE, or None.
        max_distinct: SCHEMA_VALUES_MAX_DISTINCT.
        sensitive: Lower-case `table.column` names whose values are never read.
        refresh_seconds: Rebuild this often (0: only on demand).
        on_built: Told of each build this process makes (schema drift).
        revision_ttl: Seconds a read of the stored revision is trusted (REVISION_TTL).

    """

    def __init__(
        self,
        database: SQLDatabase,
        store: CatalogStore | None,
        *,
        semantic_file: Path | None = None,
        max_distinct: int = 200,
        sensitive: frozenset[str] = frozenset(),
        refresh_seconds: float = 0.0,
        on_built: BuiltHook | None = None,
        revision_ttl: float = REVISION_TTL,
    ) -> None:
        self.database = database
        self.store = store
        self.semantic_file = semantic_file
        self.max_distinct = max_distinct
        self.sensitive = sensitive
        self.refresh_seconds = refresh_seconds
        self.on_built = on_built
        self.revision_ttl = revision_ttl
        self.builder = f"{uuid.uuid4()}"
        self.builds = 0
        """Catalogues this process introspected (the others were read from the store)."""
        self.snapshot: Snapshot | None = None
        self.error: str | None = None
        """Why the last build failed (None after a good one)."""
        self.stale_examples = 0
        """Examples schema drift made stale (read by check_components for /health)."""
        self.listeners: list[SnapshotListener] = []
        """Told of every new snapshot (the MCP server notifies its clients)."""
        self._revision = -1
        self._checked_at = -float("inf")
        self._ready = asyncio.Event()
        self._build_lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    @property
    def revision(self) -> int:
        """The stored build this process holds (-1 before one, or without a store)."""
        return self._revision

    @property
    def status(self) -> str:
        """`ready` once a catalogue is there, else `building`."""
        return READY if self.snapshot is not None else "building"

    def start(self) -> None:
        """Build (or wait for another worker's build) in the background, then keep refreshing."""
        self._task = asyncio.create_task(self._run(), name="schema-catalog")

    async def wait_ready(self) -> Snapshot:
        """Return the first snapshot once there is one."""
        await self._ready.wait()
        assert self.snapshot is not None
        return self.snapshot

    async def _run(self) -> None:
        delay = 1.0
        while self.snapshot is None:
            try:
                await self.refresh(force=False)
            except Exception as exc:
                # The data database may be down at start-up; keep trying, less and less often.
                self.error = str(exc)
                logger.warning("the schema catalogue could not be built: %s", exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_SECONDS)
        while self.refresh_seconds > 0:
            await asyncio.sleep(self.refresh_seconds)
            try:
                await self.refresh(force=True)
            except Exception as exc:
                self.error = str(exc)
                logger.warning("refreshing the schema catalogue failed: %s", exc)

    async def refresh(self, *, force: bool = True) -> Snapshot:
        """Introspect again (`force`), or reuse a fresh build of another worker; return it."""
        async with self._build_lock:
            if self.store is None:
                return await self._build(None)
            fresh = 0.0 if force else FRESH_SECONDS
            now = time.time()
            if await self.store.claim(
                self.builder, now, fresh_seconds=fresh, stuck_seconds=STUCK_SECONDS
            ):
                return await self._build(self.store)
            return await self._wait_for_other_build()

    async def _build(self, store: CatalogStore | None) -> Snapshot:
        previous = self.snapshot.catalog if self.snapshot else None
        if previous is None and store is not None:
            # After a restart, the catalogue stored before it is what drift compares with.
            previous = (await store.read()).catalog
        try:
            catalog = await self.database.introspect(
                sensitive=self.sensitive, max_distinct=self.max_distinct
            )
        except BaseException:
            if store is not None:
                await store.release(self.builder)
            raise
        self.builds += 1
        if store is not None and not await store.save(self.builder, catalog):
            logger.info("another worker took the schema build over; its catalogue is used")
            return await self._wait_for_other_build()
        if store is not None:
            self._revision = await store.revision()
        snapshot = self._apply(catalog)
        if self.on_built is not None:
            try:
                await self.on_built(previous, catalog)
            except Exception as exc:
                logger.warning("checking the examples against the new schema failed: %s", exc)
        return snapshot

    async def _wait_for_other_build(self) -> Snapshot:
        """Wait for another worker's build; take it over if that worker failed or died."""
        assert self.store is not None
        while True:
            stored = await self.store.read()
            if stored.status == READY and stored.catalog is not None:
                self._revision = stored.revision
                return self._apply(stored.catalog)
            if await self.store.claim(
                self.builder, time.time(), fresh_seconds=FRESH_SECONDS, stuck_seconds=STUCK_SECONDS
            ):
                return await self._build(self.store)
            await asyncio.sleep(WAIT_POLL_SECONDS)

    def _apply(self, catalog: Catalog) -> Snapshot:
        semantics, problems = load_semantics(self.semantic_file, catalog)
        for problem in problems:
            logger.warning("semantic file: %s", problem)
        tables = tuple(visible_tables(catalog, semantics))
        self.snapshot = Snapshot(catalog, semantics, tuple(problems), tables)
        self.error = None
        self._ready.set()
        for listener in self.listeners:
            listener(self.snapshot)
        return self.snapshot

    def reload_semantics(self) -> None:
        """Apply the semantic file again to this process's catalogue (after an edit of it).

        Other workers apply it at their next catalogue refresh (SCHEMA_REFRESH_SECONDS, or
        POST /api/v0/schema/refresh).
        """
        if self.snapshot is not None:
            self._apply(self.snapshot.catalog)

    async def current(self) -> Snapshot | None:
        """Return the newest snapshot, reading another worker's refresh when there is one."""
        now = time.monotonic()
        if (
            self.store is None
            or self.snapshot is None
            or now - self._checked_at < self.revision_ttl
        ):
            return self.snapshot
        self._checked_at = now
        try:
            revision = await self.store.revision()
            if revision != self._revision and not self._build_lock.locked():
                stored = await self.store.read()
                if stored.catalog is not None:
                    self._revision = stored.revision
                    self._apply(stored.catalog)
        except Exception as exc:
            logger.warning("could not read the shared schema catalogue: %s", exc)
        return self.snapshot

    async def aclose(self) -> None:
        """Stop building and refreshing."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
