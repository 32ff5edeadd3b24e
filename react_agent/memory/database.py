"""The memory's own database: SQLite (embedded) or PostgreSQL, as the service's own tables."""

from __future__ import annotations

from react_agent.storage.service_tables import (
    Migration,
    Migrations,
    ServiceTables,
    open_service_tables,
)

MIGRATION_LOCK_KEY = 7_261_303_551
"""PostgreSQL advisory lock key held while the memory's schema is migrated."""
VERSION_TABLE = "memory_schema_version"

MemoryDatabase = ServiceTables
"""Statements written with `?` placeholders; rows come back as dicts."""

__all__ = ["MIGRATION_LOCK_KEY", "VERSION_TABLE", "MemoryDatabase", "Migration", "Migrations"]


async def open_memory_database(url: str, *, connect_timeout: float = 5.0) -> MemoryDatabase:
    """Open the memory's database at `url` (`sqlite:///file.db`, `memory` or `postgresql://…`)."""
    return await open_service_tables(url, name="memory", connect_timeout=connect_timeout)
