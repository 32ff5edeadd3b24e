"""The memory's schema, one list of statements per version, for each dialect."""

from __future__ import annotations

from react_agent.memory.database import (
    MIGRATION_LOCK_KEY,
    VERSION_TABLE,
    MemoryDatabase,
    Migration,
    Migrations,
)


def _version_1(id_column: str) -> Migration:
    return (
        "CREATE TABLE IF NOT EXISTS qa_feedback ("
        f"id {id_column}, question TEXT NOT NULL, sql TEXT NOT NULL, "
        "is_thumb_up INTEGER NOT NULL, user_id TEXT NOT NULL, thread_id TEXT, run_id TEXT, "
        "create_time TEXT NOT NULL, update_time TEXT NOT NULL, "
        "is_in_training_data INTEGER NOT NULL DEFAULT 0, training_data_id TEXT)",
        "CREATE INDEX IF NOT EXISTS qa_feedback_by_time ON qa_feedback (create_time)",
        "CREATE INDEX IF NOT EXISTS qa_feedback_by_user ON qa_feedback (user_id)",
        "CREATE TABLE IF NOT EXISTS memory_items ("
        "id TEXT PRIMARY KEY, training_data_type TEXT NOT NULL, question TEXT, "
        "content TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, "
        "source_feedback_id INTEGER)",
        "CREATE INDEX IF NOT EXISTS memory_items_by_type ON memory_items (training_data_type)",
        # Bumped by every change of memory_items, so each process knows when to re-index.
        "CREATE TABLE IF NOT EXISTS memory_revision (id INTEGER PRIMARY KEY, "
        "revision INTEGER NOT NULL)",
        "INSERT INTO memory_revision (id, revision) VALUES (1, 0)",
    )


# Version 2: each item's embedding (JSON floats), filled in when EMBEDDING_MODEL is set.
_VERSION_2: Migration = ("ALTER TABLE memory_items ADD COLUMN embedding TEXT",)

# Version 3: each item's review status (react_agent/memory/curation/verification.py). Items stored
# before it were all served, and were written by an admin or moved by one from feedback:
# they stay served as `verified`. `check_result` is the one run of a proposed example's SQL.
_VERSION_3_REVIEW_STATUS: Migration = (
    "ALTER TABLE memory_items ADD COLUMN status TEXT NOT NULL DEFAULT 'verified'",
    "ALTER TABLE memory_items ADD COLUMN check_result TEXT",
    "CREATE INDEX IF NOT EXISTS memory_items_by_status ON memory_items (status)",
)


def _version_4(time_column: str) -> Migration:
    # Version 4: the schema catalogue every worker shares; examples schema drift made stale.
    return (
        "CREATE TABLE IF NOT EXISTS schema_catalog (source TEXT PRIMARY KEY, "
        "status TEXT NOT NULL, revision INTEGER NOT NULL DEFAULT 0, builder TEXT, "
        f"started_at {time_column}, built_at TEXT, body TEXT)",
        "ALTER TABLE memory_items ADD COLUMN stale INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE memory_items ADD COLUMN stale_reason TEXT",
    )


# Version 5: why a person rated an answer down (the page asks after a thumbs-down); optional,
# so every rating stored before it reads back with no reason.
_VERSION_5_FEEDBACK_REASON: Migration = ("ALTER TABLE qa_feedback ADD COLUMN reason TEXT",)


MIGRATIONS: dict[str, list[Migration]] = {
    "sqlite": [
        _version_1("INTEGER PRIMARY KEY AUTOINCREMENT"),
        _VERSION_2,
        _VERSION_3_REVIEW_STATUS,
        _version_4("REAL"),
        _VERSION_5_FEEDBACK_REASON,
    ],
    "postgres": [
        _version_1("BIGSERIAL PRIMARY KEY"),
        _VERSION_2,
        _VERSION_3_REVIEW_STATUS,
        _version_4("DOUBLE PRECISION"),
        _VERSION_5_FEEDBACK_REASON,
    ],
}
"""Versions in order; a new version is appended, an applied one is never edited."""


async def migrate_memory(database: MemoryDatabase) -> int:
    """Bring the memory's schema up to date (idempotent; safe with several processes)."""
    return await database.migrate(
        Migrations(MIGRATIONS, version_table=VERSION_TABLE, lock_key=MIGRATION_LOCK_KEY)
    )
