"""Closing a stored run whose owner process died: its last events, written by a survivor."""

from __future__ import annotations

import logging
from typing import Any

import psycopg
from psycopg.rows import tuple_row
from psycopg.types.json import Json

from react_agent.runs.store.events import ABANDONED, AbandonedPayloads, RunRecord
from react_agent.runs.store.postgres.notifications import EVENTS_CHANNEL

logger = logging.getLogger(__name__)


async def close_abandoned_run(
    connection: psycopg.AsyncConnection[Any], run_id: str, on_abandoned: AbandonedPayloads
) -> bool:
    """Mark the run abandoned and append the events `on_abandoned` gives; False if already.

    In one transaction, so only one follower wins: the others find the status changed.
    The followers everywhere are notified, whoever follows the run.
    """
    async with connection.transaction(), connection.cursor(row_factory=tuple_row) as cursor:
        await cursor.execute(
            "UPDATE runs SET status = %s, updated_at = now()"
            " WHERE run_id = %s AND status = 'running'"
            " RETURNING run_id, thread_id, user_id, lang, owner, status",
            (ABANDONED, run_id),
        )
        row = await cursor.fetchone()
        if row is None:
            return False
        record = RunRecord(*row)
        await cursor.execute(
            "SELECT coalesce(max(seq), 0) FROM run_events WHERE run_id = %s", (run_id,)
        )
        seq_row = await cursor.fetchone()
        seq = int(seq_row[0]) if seq_row else 0
        for offset, payload in enumerate(on_abandoned(record), 1):
            await cursor.execute(
                "INSERT INTO run_events (run_id, seq, thread_id, payload) VALUES (%s, %s, %s, %s)",
                (run_id, seq + offset, record.thread_id, Json(payload)),
            )
        await cursor.execute(f"SELECT pg_notify('{EVENTS_CHANNEL}', %s)", (run_id,))
    logger.warning("run %s: its owner %s died; closed it with an error", run_id, record.owner)
    return True
