"""The tables the audit and the quotas keep in the conversation database, per dialect."""

from __future__ import annotations

import asyncio

from react_agent.audit.database import LedgerDatabase
from react_agent.storage.service_tables import Migrations


def _statements(id_column: str, amount_type: str) -> tuple[str, ...]:
    return (
        "CREATE TABLE IF NOT EXISTS audit_records ("
        f"id {id_column}, record_id TEXT NOT NULL UNIQUE, at TEXT NOT NULL, key_id TEXT, "
        "user_id TEXT NOT NULL, roles TEXT NOT NULL, thread_id TEXT, run_id TEXT, "
        "question TEXT, model_sql TEXT, run_sql TEXT, tables TEXT NOT NULL, row_count "
        "INTEGER, duration_ms INTEGER, outcome TEXT NOT NULL, reason TEXT, subagent TEXT)",
        "CREATE INDEX IF NOT EXISTS audit_records_by_time ON audit_records (at)",
        "CREATE INDEX IF NOT EXISTS audit_records_by_user ON audit_records (user_id, at)",
        # One row per user, counter kind and window (the minute, the UTC day).
        "CREATE TABLE IF NOT EXISTS quota_counters (user_id TEXT NOT NULL, kind TEXT NOT NULL, "
        f"window_start TEXT NOT NULL, amount {amount_type} NOT NULL, "
        "PRIMARY KEY (user_id, kind, window_start))",
    )


SCHEMA_LOCK_KEY = 7_261_303_552
"""PostgreSQL advisory lock key held while the audit's and quotas' tables are migrated."""

_KIND = ("ALTER TABLE audit_records ADD COLUMN kind TEXT NOT NULL DEFAULT 'run'",)
"""Version 2: what each statement was for (run, check, export); older records ran."""

MIGRATIONS = Migrations(
    versions={
        "sqlite": [_statements("INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER"), _KIND],
        "postgres": [_statements("BIGSERIAL PRIMARY KEY", "BIGINT"), _KIND],
    },
    version_table="ledger_schema_version",
    lock_key=SCHEMA_LOCK_KEY,
)
"""Version 1 is idempotent, so a database whose tables predate the version table keeps them."""


async def create_ledger_schema(database: LedgerDatabase) -> None:
    """Create or migrate the audit's and the quotas' tables (safe across workers)."""
    await database.migrate(MIGRATIONS)


class SchemaOnce:
    """Creates the tables on first use; a failure (database away) is retried on the next."""

    def __init__(self, database: LedgerDatabase) -> None:
        self.database = database
        self.created = False
        self._lock = asyncio.Lock()

    async def ready(self) -> None:
        """Create the tables unless done; raise the database's error if it cannot."""
        if self.created:
            return
        async with self._lock:
            if not self.created:
                await create_ledger_schema(self.database)
                self.created = True
