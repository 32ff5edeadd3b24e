"""New thread ids taken once among every process: rows of the `thread_ids` table."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from react_agent.runs.store.postgres.tables import RunTables


class PostgresThreadIds:
    """Reserves thread ids in `thread_ids` (expired with the runs, after RUN_EVENTS_TTL).

    Args:
        tables: The run tables' statements (on the run store's pool).
        ensure_tables: Creates or migrates the run tables once per process.

    """

    def __init__(self, tables: RunTables, ensure_tables: Callable[[], Awaitable[None]]) -> None:
        self.tables = tables
        self.ensure_tables = ensure_tables

    async def reserve(self, thread_id: str) -> bool:
        """Insert the id into `thread_ids`; False if some process inserted it first."""
        await self.ensure_tables()
        rows = await self.tables.fetch(
            "INSERT INTO thread_ids (thread_id) VALUES (%s) ON CONFLICT DO NOTHING RETURNING 1",
            (thread_id,),
        )
        return bool(rows)
