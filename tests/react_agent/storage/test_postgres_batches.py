"""One writer for the checkpointer's writes and the run store's events: one statement for both."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import empty_checkpoint

from react_agent.conversations.postgres_checkpointer import open_postgres_checkpointer
from react_agent.errors import ServiceError
from react_agent.runs.store.events import RunRecord
from react_agent.runs.store.postgres.opening import open_postgres_store
from react_agent.storage.postgres_batches import Share, statement
from tests.support.held_runs import poll_until


class _Given:
    def __init__(self, share: Share) -> None:
        self._share = share

    def share(self) -> Share:
        return self._share


def test_a_statement_holds_every_share_as_ctes_and_ends_with_their_selects():
    sql, params = statement(
        [
            _Given(Share(["INSERT INTO a SELECT %b", "INSERT INTO b SELECT %b"], [1, 2])),
            _Given(Share(["UPDATE c SET x = %b"], [3], "SELECT %b", [4])),
            _Given(Share([], [], "SELECT %b", [5])),
        ]  # type: ignore[list-item]
    )
    assert sql == (
        "WITH p0 AS (INSERT INTO a SELECT %b), p1 AS (INSERT INTO b SELECT %b),"
        " p2 AS (UPDATE c SET x = %b) (SELECT %b) UNION ALL (SELECT %b)"
    )
    assert params == [1, 2, 3, 4, 5]  # the CTEs' first, then the selects'
    assert statement([_Given(Share(["DELETE FROM d"], []))]) == (  # type: ignore[list-item]
        "WITH p0 AS (DELETE FROM d) SELECT 1",
        [],
    )


def _config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


@asynccontextmanager
async def _writers(database: str) -> AsyncIterator[tuple[Any, Any]]:
    """Open the checkpointer, and a run store whose events go with its writes."""
    async with (
        open_postgres_checkpointer(database) as saver,
        open_postgres_store(
            saver.pool, ttl=60, max_run_seconds=60, pool_options={}, writer=saver.writes
        ) as runs,
    ):
        assert runs.events.writer is saver.writes
        yield saver, runs.events


async def _open_runs(events, count: int) -> None:
    """Open runs run0… on threads wang1:t0…, as the runner does before their first event."""
    await events.ensure_tables()
    for n in range(count):
        record = RunRecord(f"run{n}", f"wang1:t{n}", "wang1", "zh-CN", events.owner)
        await events.open_run(record, lambda: None)


async def _step(saver, events, n: int, payload: dict[str, Any]) -> None:
    """Store a question's step: its checkpoint and its event, as they come under load."""
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"answer": f"{n}"}
    checkpoint["channel_versions"] = {"answer": 1}
    await asyncio.gather(
        saver.aput(_config(f"wang1:t{n}"), checkpoint, {"step": 0}, {"answer": 1}),
        events.append(f"run{n}", 1, payload),
    )


async def test_checkpoints_and_events_that_come_together_go_in_one_statement(
    postgres_database,
):
    async with _writers(postgres_database) as (saver, events):
        await _open_runs(events, 20)
        before = saver.writes.statements

        await asyncio.gather(*(_step(saver, events, n, {"n": n}) for n in range(20)))

        # The first statement goes at once; all that came meanwhile go in the next.
        assert saver.writes.statements - before <= 2
        for n in range(20):
            stored = await saver.aget_tuple(_config(f"wang1:t{n}"))
            assert stored is not None and stored.checkpoint["channel_values"]["answer"] == f"{n}"
            assert (await events.tables.read_after(f"run{n}", 0))[1] == [(1, {"n": n})]
        # Nothing left to write, nothing left running (no writer started over and over).
        assert await poll_until(lambda: _writers_running(), 0)


async def _writers_running() -> int:
    return sum(t.get_name() == "statement-batches" for t in asyncio.all_tasks())


async def test_a_refused_event_fails_alone_and_the_checkpoints_beside_it_are_stored(
    postgres_database,
):
    async with _writers(postgres_database) as (saver, events):
        await _open_runs(events, 6)

        outcomes = await asyncio.gather(
            *(_step(saver, events, n, {"n": float("nan") if n == 3 else n}) for n in range(6)),
            return_exceptions=True,
        )

        assert [type(outcome) for outcome in outcomes] == [
            type(None),
            type(None),
            type(None),
            ServiceError,  # its event: NaN is no JSON number, PostgreSQL refuses it
            type(None),
            type(None),
        ]
        assert outcomes[3].status == 503  # type: ignore[union-attr]
        for n in range(6):
            assert await saver.aget_tuple(_config(f"wang1:t{n}")) is not None
            expected = [] if n == 3 else [(1, {"n": n})]
            assert (await events.tables.read_after(f"run{n}", 0))[1] == expected
