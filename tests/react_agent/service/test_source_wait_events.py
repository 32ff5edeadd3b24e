"""A statement's wait on a busy source is told in its own run's events, never another run's."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from react_agent.databases.fair_share import ASKER, FairShare
from react_agent.runs.events.event_sink import CURRENT_EVENT_SINK, EventSink
from react_agent.runs.events.events import SourceWaiting
from react_agent.service.data_sources import report_source_wait

Arrival = tuple[str, str, int]
"""`(run, source, ahead)`: which run's events a SourceWaiting landed in, and what it said."""


STARTED: list[asyncio.Task[None]] = []
"""The test's tasks, stopped at its end when an assertion ended it early."""


@pytest.fixture(autouse=True)
async def stop_started() -> AsyncIterator[None]:
    yield
    for task in STARTED:
        task.cancel()
    await asyncio.gather(*STARTED, return_exceptions=True)
    STARTED.clear()


def as_run(
    run: str, user: str, arrivals: asyncio.Queue[Arrival], make: Callable[[], Awaitable[None]]
) -> asyncio.Task[None]:
    """Start `make()` as `user`'s run `run`, whose events go to `arrivals` tagged `run`."""

    def append(event: object) -> None:
        if isinstance(event, SourceWaiting):
            arrivals.put_nowait((run, event.source, event.ahead))

    context = contextvars.copy_context()
    context.run(ASKER.set, user)
    context.run(CURRENT_EVENT_SINK.set, EventSink(append))
    task = asyncio.get_running_loop().create_task(make(), context=context)
    STARTED.append(task)
    return task


def statement(
    share: FairShare, inside: asyncio.Event, leave: asyncio.Event
) -> Callable[[], Awaitable[None]]:
    """Return a statement that takes a turn (the service's report), says so, and holds it."""

    async def run() -> None:
        async with share.turn(report_source_wait):
            inside.set()
            await leave.wait()

    return run


async def test_a_waiters_new_place_is_told_in_its_own_run_not_the_one_that_freed_the_slot():
    share = FairShare("default", max_concurrent=1, max_wait=60)
    arrivals: asyncio.Queue[Arrival] = asyncio.Queue()
    inside = {run: asyncio.Event() for run in "abc"}
    leave = {run: asyncio.Event() for run in "abc"}
    tasks = {}
    tasks["a"] = as_run("a", "ann", arrivals, statement(share, inside["a"], leave["a"]))
    await inside["a"].wait()
    tasks["b"] = as_run("b", "bob", arrivals, statement(share, inside["b"], leave["b"]))
    assert await arrivals.get() == ("b", "default", 0)
    tasks["c"] = as_run("c", "cid", arrivals, statement(share, inside["c"], leave["c"]))
    assert await arrivals.get() == ("c", "default", 1)
    leave["a"].set()  # a frees the slot: b runs, c becomes next
    # The next SourceWaiting anywhere is c's move, and it is in c's events (not a's).
    assert await arrivals.get() == ("c", "default", 0)
    await tasks["a"]
    await inside["b"].wait()
    leave["b"].set()
    await inside["c"].wait()
    leave["c"].set()
    await asyncio.gather(*tasks.values())
    assert arrivals.empty()
    assert share.counts().in_use == 0 and share.counts().queued == 0


async def test_a_newcomer_that_moves_a_waiter_back_tells_the_waiter_in_its_own_run():
    """Round robin puts b's first statement before a's second: a's is told, in a's run."""
    share = FairShare("default", max_concurrent=1, max_wait=60)
    arrivals: asyncio.Queue[Arrival] = asyncio.Queue()
    runs = ["x", "a1", "a2", "b1"]
    inside = {run: asyncio.Event() for run in runs}
    leave = {run: asyncio.Event() for run in runs}
    users = {"x": "xen", "a1": "ann", "a2": "ann", "b1": "bob"}

    def start(run: str) -> asyncio.Task[None]:
        return as_run(run, users[run], arrivals, statement(share, inside[run], leave[run]))

    tasks = [start("x")]
    await inside["x"].wait()
    tasks.append(start("a1"))
    assert await arrivals.get() == ("a1", "default", 0)
    tasks.append(start("a2"))
    assert await arrivals.get() == ("a2", "default", 1)
    tasks.append(start("b1"))
    assert await arrivals.get() == ("b1", "default", 1)
    assert await arrivals.get() == ("a2", "default", 2)  # in a2's run, not b1's
    for run in runs:
        leave[run].set()
    await asyncio.gather(*tasks)
    assert share.counts().in_use == 0 and share.counts().queued == 0
