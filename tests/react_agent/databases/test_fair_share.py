"""A source's fair share: N at once, round robin between users, a bounded wait, on real engines."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable

import pytest

from react_agent.databases.base import SQLDatabase
from react_agent.databases.fair_share import ASKER, FairShare, ShareCounts
from react_agent.databases.gated import GatedDatabase
from react_agent.errors import ServiceError
from tests.support.sample_databases import sample_database  # noqa: F401  (fixture)
from tests.support.waiting import eventually


def as_user(user: str, make: Callable[[], Awaitable[object]]) -> asyncio.Task[object]:
    """Start `make()` in a task whose statements are `user`'s."""
    context = contextvars.copy_context()
    context.run(ASKER.set, user)
    return asyncio.get_running_loop().create_task(make(), context=context)


async def hold(share: FairShare, release: asyncio.Event) -> None:
    async with share.turn():
        await release.wait()


async def queue_in_order(share: FairShare, starts: list[tuple[str, Callable]]) -> list:
    """Start each `(user, make)` and wait until it is queued, so arrival order is known."""
    tasks = []
    for user, make in starts:
        before = share.counts().queued
        tasks.append(as_user(user, make))
        assert await eventually(lambda b=before: share.counts().queued == b + 1)
    return tasks


async def test_one_users_flood_does_not_hold_back_another_users_one_statement():
    share = FairShare("finance", max_concurrent=1, max_wait=60)
    release = asyncio.Event()
    holder = as_user("flood", lambda: hold(share, release))
    assert await eventually(lambda: share.counts().in_use == 1)
    served: list[str] = []

    def statement(tag: str) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            async with share.turn():
                served.append(tag)

        return run

    starts = [("flood", statement(f"flood{i}")) for i in range(10)] + [
        ("light", statement("light"))
    ]
    tasks = await queue_in_order(share, starts)
    assert share.counts() == ShareCounts(max_concurrent=1, in_use=1, queued=11, refused=0)
    release.set()
    await asyncio.gather(holder, *tasks)
    # The light user's one statement waits for at most one of the flood's ten.
    assert served.index("light") <= 1
    assert [tag for tag in served if tag != "light"] == [f"flood{i}" for i in range(10)]
    assert share.counts() == ShareCounts(max_concurrent=1, in_use=0, queued=0, refused=0)


async def test_turns_go_round_the_users_in_the_order_they_came():
    share = FairShare("crm", max_concurrent=1, max_wait=60)
    release = asyncio.Event()
    holder = as_user("x", lambda: hold(share, release))
    assert await eventually(lambda: share.counts().in_use == 1)
    served: list[str] = []

    def statement(tag: str) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            async with share.turn():
                served.append(tag)

        return run

    plan = ["a1", "a2", "a3", "b1", "b2", "c1"]
    tasks = await queue_in_order(share, [(tag[0], statement(tag)) for tag in plan])
    release.set()
    await asyncio.gather(holder, *tasks)
    assert served == ["a1", "b1", "c1", "a2", "b2", "a3"]


async def test_a_waiter_is_told_how_many_are_ahead_as_the_queue_moves():
    share = FairShare("sales", max_concurrent=1, max_wait=60)
    release = asyncio.Event()
    holder = as_user("a", lambda: hold(share, release))
    assert await eventually(lambda: share.counts().in_use == 1)
    places: list[tuple[str, int]] = []
    steps = [asyncio.Event() for _ in range(3)]

    def waiting(index: int) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            async with share.turn(lambda source, ahead: places.append((source, ahead))):
                await steps[index].wait()

        return run

    first, second, third = await queue_in_order(
        share, [("a", waiting(0)), ("a", waiting(1)), ("b", waiting(2))]
    )
    # b's statement is second in the round (after a's first), though it came third.
    release.set()
    await holder
    steps[0].set()
    await first
    steps[2].set()
    await third
    steps[1].set()
    await second
    assert ("sales", 1) in places and ("sales", 0) in places
    assert places[0] == ("sales", 0)  # a's first statement, alone in the queue


async def test_a_wait_past_the_bound_is_503_naming_the_source_and_nothing_runs():
    share = FairShare("finance", max_concurrent=1, max_wait=0.2)
    release = asyncio.Event()
    holder = as_user("flood", lambda: hold(share, release))
    assert await eventually(lambda: share.counts().in_use == 1)
    ran = []

    async def statement() -> None:
        async with share.turn():
            ran.append(True)

    with pytest.raises(ServiceError) as refused:
        await as_user("light", statement)
    assert refused.value.status == 503 and refused.value.error_type == "DATA_SOURCE_BUSY"
    assert "finance" in refused.value.detail and refused.value.params["source"] == "finance"
    assert ran == [] and share.counts().refused == 1 and share.counts().queued == 0
    release.set()
    await holder
    assert share.counts().in_use == 0


async def test_a_cancelled_waiter_leaves_the_queue_and_a_cancelled_holder_frees_its_slot():
    share = FairShare("crm", max_concurrent=1, max_wait=60)
    release = asyncio.Event()
    holder = as_user("a", lambda: hold(share, release))
    assert await eventually(lambda: share.counts().in_use == 1)
    (waiter,) = await queue_in_order(share, [("b", lambda: hold(share, asyncio.Event()))])
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert share.counts().queued == 0 and share.counts().in_use == 1
    holder.cancel()
    with pytest.raises(asyncio.CancelledError):
        await holder
    assert share.counts() == ShareCounts(max_concurrent=1, in_use=0, queued=0, refused=0)


async def test_counts_are_reported_at_each_change():
    reports: list[tuple[str, ShareCounts]] = []
    share = FairShare("crm", 1, 60, on_change=lambda s, c: reports.append((s, c)))
    async with share.turn():
        pass
    assert [c.in_use for _, c in reports] == [1, 0] and {s for s, _ in reports} == {"crm"}


async def test_statements_on_a_real_engine_take_fair_turns(sample_database: SQLDatabase):  # noqa: F811
    """The gate on the sample (SQLite and PostgreSQL): an export holds the one slot."""
    share = FairShare("default", max_concurrent=1, max_wait=60)
    database = GatedDatabase(sample_database, share)
    served: list[str] = []
    release = asyncio.Event()

    async def export() -> None:
        stream = database.open_row_stream("SELECT * FROM stores", max_rows=10, timeout=30)
        async with stream as rows:
            await anext(rows.batches)
            await release.wait()

    def query(tag: str) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            result = await database.run_query(f"SELECT '{tag}' AS tag", row_limit=1, timeout=30)
            served.append(result.rows[0]["tag"])

        return run

    holder = as_user("flood", export)
    assert await eventually(lambda: share.counts().in_use == 1)
    starts = [("flood", query(f"flood{i}")) for i in range(4)] + [("light", query("light"))]
    tasks = await queue_in_order(share, starts)
    release.set()
    await asyncio.gather(holder, *tasks)
    assert served.index("light") <= 1 and len(served) == 5


async def test_a_waiter_whose_report_fails_leaves_the_queue_and_the_holder_keeps_its_slot():
    share = FairShare("crm", max_concurrent=1, max_wait=60)
    release = asyncio.Event()
    holder = as_user("a", lambda: hold(share, release))
    assert await eventually(lambda: share.counts().in_use == 1)

    def broken(source: str, ahead: int) -> None:
        raise RuntimeError(f"no stream for {source} at {ahead}")

    async def statement() -> None:
        async with share.turn(broken):
            raise AssertionError("the statement must not run")

    with pytest.raises(RuntimeError, match="no stream for crm at 0"):
        await as_user("b", statement)
    assert share.counts() == ShareCounts(max_concurrent=1, in_use=1, queued=0, refused=0)
    release.set()
    await holder
    assert share.counts() == ShareCounts(max_concurrent=1, in_use=0, queued=0, refused=0)
