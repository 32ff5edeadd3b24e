"""The shared run tables (runs, run_events, thread_ids), created by versioned migrations."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import tuple_row

MIGRATION_LOCK_KEY = 7_301_846_210_554_116_211
"""Advisory lock key that serialises the run tables' migrations between processes."""

MIGRATIONS: tuple[str, ...] = (
    # 1: streamed runs and their events. The payload is `json`, not `jsonb`: json keeps
    # the envelope's text (and so its key order), so every worker replays it byte-identical.
    """
    CREATE TABLE runs (
        run_id text PRIMARY KEY,
        thread_id text NOT NULL,
        user_id text NOT NULL,
        lang text NOT NULL,
        status text NOT NULL,
        owner text NOT NULL,
        followed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX runs_updated_at ON runs (updated_at);
    CREATE TABLE run_events (
        run_id text NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        seq integer NOT NULL,
        thread_id text NOT NULL,
        payload json NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (run_id, seq)
    );
    """,
    # 2: thread ids handed out, so two processes never hand out the same one.
    """
    CREATE TABLE thread_ids (
        thread_id text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX thread_ids_created_at ON thread_ids (created_at);
    """,
    # 3: a cancel asked for is kept, so an owner that was not listening (its LISTEN
    # session was reconnecting) still finds it once it listens again.
    """
    ALTER TABLE runs ADD COLUMN cancel_requested boolean NOT NULL DEFAULT false;
    """,
    # 4: the trace of the request that started the run (a W3C traceparent), so a follower
    # on another worker links its own trace to it.
    """
    ALTER TABLE runs ADD COLUMN trace_parent text;
    """,
)
"""Each entry is one schema version; append new ones, never edit applied ones."""


async def migrate_run_tables(connection: psycopg.AsyncConnection[Any]) -> int:
    """Apply the migrations this database lacks, one process at a time; return the version."""
    async with connection.transaction():
        async with connection.cursor(row_factory=tuple_row) as cursor:
            # Held to the end of the transaction: a second process waits, then finds
            # nothing left to do.
            await cursor.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
            await cursor.execute(
                "CREATE TABLE IF NOT EXISTS run_store_versions ("
                " version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            await cursor.execute("SELECT coalesce(max(version), 0) FROM run_store_versions")
            row = await cursor.fetchone()
            current = int(row[0]) if row else 0
            for version, statements in enumerate(MIGRATIONS, 1):
                if version > current:
                    await cursor.execute(statements)
                    await cursor.execute(
                        "INSERT INTO run_store_versions (version) VALUES (%s)", (version,)
                    )
    return len(MIGRATIONS)
