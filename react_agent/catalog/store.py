"""The catalogue in the memory database: one build per data source, shared by every worker."""

from __future__ import annotations

import json
from dataclasses import dataclass

from react_agent.databases.catalog_model import Catalog
from react_agent.memory.database import MemoryDatabase

EMPTY, BUILDING, READY, FAILED = "empty", "building", "ready", "failed"


@dataclass(frozen=True)
class StoredCatalog:
    """The row of one data source: its status, revision and catalogue (None before a build)."""

    status: str
    revision: int
    catalog: Catalog | None
    started_at: float | None


class CatalogStore:
    """Claims, saves and reads the catalogue of one data source (`source`, a URL's digest)."""

    def __init__(self, database: MemoryDatabase, source: str) -> None:
        self.database = database
        self.source = source

    async def claim(
        self, builder: str, now: float, *, fresh_seconds: float, stuck_seconds: float
    ) -> bool:
        """Take the build if nobody built it within `fresh_seconds` or is building it now.

        One UPDATE decides, so of several workers starting together exactly one wins; a
        build left `building` for `stuck_seconds` (its worker died) may be taken over.

        Args:
            builder: Who builds (a process-unique id).
            now: Epoch seconds.
            fresh_seconds: A catalogue started less than this ago is reused (0: always build).
            stuck_seconds: A build older than this is taken over.

        """
        await self.database.execute(
            "INSERT INTO schema_catalog (source, status, revision) VALUES (?, ?, 0) "
            "ON CONFLICT (source) DO NOTHING",
            (self.source, EMPTY),
        )
        claimed = await self.database.execute(
            "UPDATE schema_catalog SET status = ?, builder = ?, started_at = ? "
            "WHERE source = ? AND (status IN (?, ?) "
            "OR (status = ? AND started_at < ?) OR (status = ? AND started_at < ?))",
            (
                BUILDING,
                builder,
                now,
                self.source,
                EMPTY,
                FAILED,
                READY,
                now - fresh_seconds,
                BUILDING,
                now - stuck_seconds,
            ),
        )
        return claimed == 1

    async def save(self, builder: str, catalog: Catalog) -> bool:
        """Store a finished build, unless another worker took the build over meanwhile."""
        return bool(
            await self.database.execute(
                "UPDATE schema_catalog SET status = ?, body = ?, built_at = ?, "
                "revision = revision + 1 WHERE source = ? AND builder = ?",
                (READY, json.dumps(catalog.as_json()), catalog.built_at, self.source, builder),
            )
        )

    async def release(self, builder: str) -> None:
        """Give a failed build back, so the next claim may try again at once."""
        await self.database.execute(
            "UPDATE schema_catalog SET status = CASE WHEN body IS NULL THEN ? ELSE ? END "
            "WHERE source = ? AND builder = ? AND status = ?",
            (FAILED, READY, self.source, builder, BUILDING),
        )

    async def revision(self) -> int:
        """Return how many builds were saved; it grows with each, in any worker."""
        rows = await self.database.fetch_all(
            "SELECT revision FROM schema_catalog WHERE source = ?", (self.source,)
        )
        return int(rows[0]["revision"]) if rows else 0

    async def read(self) -> StoredCatalog:
        """Return the stored row (status `empty` when there is none yet)."""
        rows = await self.database.fetch_all(
            "SELECT status, revision, body, started_at FROM schema_catalog WHERE source = ?",
            (self.source,),
        )
        if not rows:
            return StoredCatalog(EMPTY, 0, None, None)
        row = rows[0]
        body = Catalog.from_json(json.loads(row["body"])) if row["body"] else None
        return StoredCatalog(row["status"], int(row["revision"]), body, row["started_at"])
