"""The memory's schema migration: versioned, idempotent, safe when processes start together."""

from __future__ import annotations

import asyncio

from react_agent.memory.database import open_memory_database
from react_agent.memory.migrations import MIGRATIONS, migrate_memory


async def test_migrating_twice_and_concurrently_applies_each_version_once(memory_url: str) -> None:
    databases = [await open_memory_database(memory_url) for _ in range(3)]
    try:
        versions = await asyncio.gather(*(migrate_memory(db) for db in databases))
        assert await migrate_memory(databases[0]) == len(MIGRATIONS["sqlite"])
        assert set(versions) == {len(MIGRATIONS["sqlite"])}
        rows = await databases[0].fetch_all("SELECT version FROM memory_schema_version")
        assert [row["version"] for row in rows] == list(range(1, len(MIGRATIONS["sqlite"]) + 1))
        revisions = await databases[0].fetch_all("SELECT revision FROM memory_revision")
        assert len(revisions) == 1
    finally:
        for database in databases:
            await database.aclose()
