"""The run event store on PostgreSQL, as two processes sharing one database see it."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from react_agent.errors import ServiceError
from react_agent.runs.store.events import FINISHED, RUNNING, RunRecord
from react_agent.runs.store.locks import liveness_key
from react_agent.runs.store.postgres.batches import EventBatches, run_row
from react_agent.runs.store.postgres.schema import MIGRATIONS
from react_agent.runs.store.postgres.thread_ids import PostgresThreadIds
from react_agent.storage.postgres_batches import StatementBatches
from tests.support.held_runs import poll_until
from tests.support.run_stores import open_two_stores

THREAD = "wang1:20250131103000001"


def closing_events(record: RunRecord) -> list[dict]:
    """Return the events a follower writes for a run whose owner died."""
    return [{"data": {"type": "error"}}, {"data": {"type": "end"}}]


async def test_both_processes_migrate_at_once_and_the_tables_get_every_version_once(
    two_stores, postgres_database
):
    await asyncio.gather(*(store.ensure_tables() for store in two_stores))
    with psycopg.connect(postgres_database) as connection:
        versions = connection.execute(
            "SELECT version FROM run_store_versions ORDER BY version"
        ).fetchall()
    assert [v for (v,) in versions] == list(range(1, len(MIGRATIONS) + 1))


async def test_the_other_process_replays_a_run_in_order_and_stops_after_it_ended(two_stores):
    owner, other = two_stores
    record = RunRecord("run1", THREAD, "wang1", "zh-CN", owner.owner)
    await owner.open_run(record, lambda: None)
    sent = [{"n": n, "text": "答案", "z": 1, "a": 2} for n in range(1, 4)]
    for seq, payload in enumerate(sent, 1):
        await owner.append("run1", seq, payload)
    await owner.finish("run1")

    replayed = [
        item async for item in other.follow("run1", 1, idle_timeout=60, on_abandoned=closing_events)
    ]
    assert replayed == [(2, sent[1]), (3, sent[2])]
    assert [list(p) for _, p in replayed] == [["n", "text", "z", "a"]] * 2  # key order kept
    assert (await other.record("run1")).status == FINISHED


async def test_a_follower_elsewhere_is_woken_by_each_new_event(two_stores):
    owner, other = two_stores
    await owner.open_run(RunRecord("run2", THREAD, "wang1", "zh-CN", owner.owner), lambda: None)
    await owner.append("run2", 1, {"n": 1})
    other.start()
    received: list[int] = []
    arrived = asyncio.Event()

    async def follow() -> None:
        async for seq, _ in other.follow("run2", 0, idle_timeout=60, on_abandoned=closing_events):
            received.append(seq)
            arrived.set()

    follower = asyncio.create_task(follow())
    await arrived.wait()
    arrived.clear()
    await owner.append("run2", 2, {"n": 2})
    await arrived.wait()
    await owner.finish("run2")
    await asyncio.wait_for(follower, 30)
    assert received == [1, 2]


async def test_a_run_whose_owner_is_gone_is_closed_once_by_its_followers(two_stores):
    owner, other = two_stores
    await owner.open_run(RunRecord("run3", THREAD, "wang1", "zh-CN", owner.owner), lambda: None)
    await owner.append("run3", 1, {"n": 1})
    # The owner's session ends (its process died): its liveness claim goes with it.
    await owner.locks.aclose()

    async def follow() -> list[int]:
        return [
            seq
            async for seq, _ in other.follow(
                "run3", 0, idle_timeout=60, on_abandoned=closing_events
            )
        ]

    first, second = await asyncio.wait_for(asyncio.gather(follow(), follow()), 30)
    assert first == second == [1, 2, 3]
    assert (await other.record("run3")).status == "abandoned"


async def test_a_thread_id_is_reserved_by_one_process_only(two_stores):
    ids = [PostgresThreadIds(store.tables, store.ensure_tables) for store in two_stores]
    results = await asyncio.gather(*(each.reserve(THREAD) for each in ids + ids))
    assert sorted(results) == [False, False, False, True]


async def test_an_ended_run_is_deleted_after_the_ttl_and_forgotten_by_its_owner_too(
    postgres_database,
):
    async with open_two_stores(postgres_database, ttl=1.0) as (owner, other):
        await owner.open_run(RunRecord("run4", THREAD, "wang1", "zh-CN", owner.owner), lambda: None)
        await owner.append("run4", 1, {"n": 1})
        await owner.finish("run4")
        assert (await other.record("run4")).status == FINISHED
        other.start()  # its expiry runs every ttl / 2

        async def deleted() -> bool:
            return await other.record("run4") is None

        assert await poll_until(deleted, True, timeout=30)
        assert await owner.record("run4") is None  # not kept in memory past the TTL
        assert [
            seq
            async for seq, _ in owner.follow(
                "run4", 0, idle_timeout=60, on_abandoned=closing_events
            )
        ] == []
        with psycopg.connect(postgres_database) as connection:
            left = connection.execute("SELECT count(*) FROM run_events WHERE run_id = 'run4'")
            assert left.fetchone() == (0,)


async def test_events_of_many_runs_that_come_together_are_stored_in_few_statements(two_stores):
    owner, other = two_stores
    runs = [f"batch{n}" for n in range(100)]
    for run_id in runs:
        await owner.open_run(RunRecord(run_id, THREAD, "wang1", "zh-CN", owner.owner), lambda: None)
    before = owner.writer.statements

    payloads = {run_id: {"run": run_id, "文": "答案"} for run_id in runs}
    await asyncio.gather(*(owner.append(run_id, 1, payloads[run_id]) for run_id in runs))

    assert owner.writer.statements - before == 1  # the writer was idle: all in one
    for run_id in runs:
        await owner.finish(run_id)
    for run_id in runs:
        replayed = [
            item
            async for item in other.follow(run_id, 0, idle_timeout=60, on_abandoned=closing_events)
        ]
        assert replayed == [(1, payloads[run_id])]


async def test_runs_that_end_together_share_statements_and_end_for_every_follower(two_stores):
    owner, other = two_stores
    other.start()
    runs = [f"end{n}" for n in range(100)]
    for run_id in runs:
        await owner.open_run(RunRecord(run_id, THREAD, "wang1", "zh-CN", owner.owner), lambda: None)
        await owner.append(run_id, 1, {"run": run_id})
    seen = {run_id: asyncio.Event() for run_id in runs[:5]}

    async def follow(run_id: str) -> list[int]:
        received = []
        async for seq, _ in other.follow(run_id, 0, idle_timeout=60, on_abandoned=closing_events):
            received.append(seq)
            seen[run_id].set()
        return received

    followers = [asyncio.create_task(follow(run_id)) for run_id in seen]
    for arrived in seen.values():
        await arrived.wait()  # each follows from another process before its run ends
    before = owner.writer.statements

    await asyncio.gather(*(owner.finish(run_id) for run_id in runs))

    # The hundred ends went in one statement of the writer.
    assert owner.writer.statements - before == 1
    assert {(await other.record(run_id)).status for run_id in runs} == {FINISHED}
    assert await asyncio.wait_for(asyncio.gather(*followers), 30) == [[1]] * len(followers)
    # Each liveness claim is freed later, with the owner's next claim statement: nobody
    # looks at it once its run is finished.
    assert await other.locks.is_running(liveness_key(runs[0])) is True
    statements = owner.locks.session.statements
    await (await owner.locks.claim("wang1:next-question"))()
    assert owner.locks.session.statements == statements + 2  # no statement of their own
    for run_id in runs:
        assert await other.locks.is_running(liveness_key(run_id)) is False


async def test_an_event_queued_as_the_last_writer_ends_is_still_written(two_stores):
    owner, other = two_stores
    await owner.ensure_tables()
    row = run_row(RunRecord("one", THREAD, "wang1", "zh-CN", owner.owner), RUNNING)
    # One writer: each store's caller is woken before the writer is done with, so the
    # next event comes while that writer still counts as under way.
    writer = StatementBatches(owner.pool.connection)
    batches = EventBatches(writer, "run store")

    async with asyncio.timeout(30):  # awaited in this task: no hop through another one
        for seq in (1, 2, 3):
            await batches.store("one", seq, THREAD, {"n": seq}, notify=False, row=row)
        await batches.end("one")

    assert (await other.tables.read_after("one", 0))[1] == [(n, {"n": n}) for n in (1, 2, 3)]
    assert (await other.record("one")).status == FINISHED
    await batches.aclose()
    await writer.aclose()


async def test_an_event_after_the_batches_closed_is_cancelled_not_left_waiting(two_stores):
    owner, _ = two_stores
    writer = StatementBatches(owner.pool.connection)
    batches = EventBatches(writer, "run store")
    await batches.aclose()

    async with asyncio.timeout(30):
        with pytest.raises(asyncio.CancelledError):
            await batches.store("late", 1, THREAD, {"n": 1}, notify=False)
    assert writer.statements == 0


async def test_an_event_postgres_refuses_fails_alone_and_its_batch_is_stored(two_stores):
    owner, other = two_stores
    runs = [f"good{n}" for n in range(5)]
    for run_id in runs:
        await owner.open_run(RunRecord(run_id, THREAD, "wang1", "zh-CN", owner.owner), lambda: None)

    outcomes = await asyncio.gather(
        *(owner.append(run_id, 1, {"n": 1}) for run_id in runs),
        # No `runs` row: the foreign key refuses it.
        owner.batches.store("ghost", 1, THREAD, {"n": 1}, notify=False),
        return_exceptions=True,
    )

    assert outcomes[:-1] == [None] * len(runs)
    assert isinstance(outcomes[-1], ServiceError) and "run_events" in str(outcomes[-1].__cause__)
    for run_id in runs:
        assert (await other.tables.read_after(run_id, 0))[1] == [(1, {"n": 1})]


async def test_a_runs_row_is_stored_with_its_first_event_not_before(two_stores):
    owner, other = two_stores
    record = RunRecord("first", THREAD, "wang1", "zh-CN", owner.owner, trace_parent="00-ab-cd-01")
    await owner.open_run(record, lambda: None)
    assert await other.record("first") is None  # its id has reached nobody yet
    before = owner.writer.statements

    await owner.append("first", 1, {"n": 1})
    await owner.append("first", 2, {"n": 2})

    assert owner.writer.statements - before == 2
    assert await other.record("first") == record
    await owner.finish("first")
    assert (await other.record("first")).status == FINISHED


async def test_a_runs_row_goes_with_the_next_event_when_the_first_could_not_be_stored(
    two_stores,
):
    owner, other = two_stores
    await owner.open_run(RunRecord("retried", THREAD, "wang1", "zh-CN", owner.owner), lambda: None)

    # PostgreSQL refuses the first event: NaN is no JSON number.
    with pytest.raises(ServiceError):
        await owner.append("retried", 1, {"n": float("nan")})
    await owner.append("retried", 2, {"n": 2})

    assert (await other.record("retried")).status == RUNNING
    assert (await other.tables.read_after("retried", 0))[1] == [(2, {"n": 2})]


async def test_a_run_none_of_whose_events_was_stored_still_ends_with_a_row(two_stores):
    owner, other = two_stores
    await owner.open_run(RunRecord("unheard", THREAD, "wang1", "zh-CN", owner.owner), lambda: None)
    with pytest.raises(ServiceError):
        await owner.append("unheard", 1, {"n": float("nan")})

    await owner.finish("unheard")

    assert (await other.record("unheard")).status == FINISHED
    await (await owner.locks.claim("wang1:next-question"))()  # carries the liveness's free
    assert await other.locks.is_running(liveness_key("unheard")) is False


async def test_a_run_that_cannot_be_claimed_leaves_no_row(two_stores):
    owner, other = two_stores
    await owner.ensure_tables()
    await owner.locks.aclose()  # later claims get 503, as when PostgreSQL is away

    with pytest.raises(ServiceError) as refused:
        await owner.open_run(
            RunRecord("unclaimed", THREAD, "wang1", "zh-CN", owner.owner), lambda: None
        )

    assert refused.value.status == 503
    assert await other.record("unclaimed") is None
