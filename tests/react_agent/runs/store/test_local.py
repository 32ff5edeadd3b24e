"""The in-process run event store (SQLite or memory): replay, and expiry after the TTL."""

from __future__ import annotations

import asyncio

from react_agent.runs.store.events import FINISHED, RunRecord
from react_agent.runs.store.local import InProcessRunEvents
from tests.support.run_stores import FakeClock

THREAD = "wang1:20250131103000001"
TTL = 120.0


async def open_finished_run(store: InProcessRunEvents, run_id: str, events: int) -> None:
    """Store a run of `events` events that has ended."""
    await store.open_run(RunRecord(run_id, THREAD, "wang1", "zh-CN", store.owner), lambda: None)
    for seq in range(1, events + 1):
        await store.append(run_id, seq, {"n": seq})
    await store.finish(run_id)


async def replay(store: InProcessRunEvents, run_id: str, after: int = 0) -> list[int]:
    return [seq async for seq, _ in store.follow(run_id, after, idle_timeout=60)]


async def test_an_ended_run_is_replayed_until_its_ttl_then_forgotten():
    clock = FakeClock()
    store = InProcessRunEvents(TTL, clock)
    await open_finished_run(store, "run1", 3)

    clock.now += TTL - 0.5
    assert (await store.record("run1")).status == FINISHED
    assert await replay(store, "run1") == [1, 2, 3]
    assert await replay(store, "run1", after=2) == [3]

    clock.now += 0.5
    assert await store.record("run1") is None
    assert not store.has("run1")
    assert await replay(store, "run1") == []


async def test_runs_expire_in_the_order_they_ended_and_a_running_one_never_does():
    clock = FakeClock()
    store = InProcessRunEvents(TTL, clock)
    await store.open_run(RunRecord("long", THREAD, "wang1", "zh-CN", store.owner), lambda: None)
    await open_finished_run(store, "first", 1)
    clock.now += 10
    await open_finished_run(store, "second", 1)
    await store.finish("first")  # a second finish does not restart its time

    clock.now += TTL - 5
    assert [store.has(r) for r in ("long", "first", "second")] == [True, False, True]
    clock.now += 5
    assert [store.has(r) for r in ("long", "first", "second")] == [True, False, False]
    clock.now += 100 * TTL
    await store.append("long", 1, {"n": 1})
    assert await store.record("long") is not None


async def test_a_follower_gets_every_stored_event_in_one_batch_then_each_new_one():
    store = InProcessRunEvents(TTL)
    await store.open_run(RunRecord("run1", THREAD, "wang1", "zh-CN", store.owner), lambda: None)
    for seq in (1, 2, 3):
        await store.append("run1", seq, {"n": seq})
    batches = store.follow_batches("run1", 1, idle_timeout=60)
    assert [seq for seq, _ in await anext(batches)] == [2, 3]  # one write for both

    waiting = asyncio.ensure_future(anext(batches))
    await store.append("run1", 4, {"n": 4})
    assert await waiting == [(4, {"n": 4})]
    await store.finish("run1")
    assert [batch async for batch in batches] == []


async def test_an_idle_follower_gets_a_heartbeat_batch():
    store = InProcessRunEvents(TTL)
    await store.open_run(RunRecord("run1", THREAD, "wang1", "zh-CN", store.owner), lambda: None)
    await store.append("run1", 1, {"n": 1})
    batches = store.follow_batches("run1", 1, idle_timeout=0.01)
    assert await anext(batches) == [(1, None)]
    await batches.aclose()
