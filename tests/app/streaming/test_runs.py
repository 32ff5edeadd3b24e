"""StreamRuns: a run's envelopes numbered into the store, and runs nobody follows cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from app.streaming.events import StreamContext
from app.streaming.runs import StreamRuns
from react_agent.errors import ServiceError
from react_agent.runs.events.events import RunFailed, RunStarted
from react_agent.runs.run import Run
from react_agent.runs.store.local import InProcessRunEvents

CTX = StreamContext("amy:1", "amy", "zh-CN")
HEARTBEAT = 60.0


@pytest.fixture
async def run() -> AsyncIterator[Run]:
    """Make a run whose task waits until it is cancelled (a question being answered)."""
    run = Run("amy:1", "zh-CN")
    run.task = asyncio.create_task(asyncio.Event().wait())
    yield run
    run.task.cancel()
    await asyncio.gather(run.task, return_exceptions=True)


async def published(run: Run, resume_grace: float) -> StreamRuns:
    runs = StreamRuns(InProcessRunEvents(ttl=60), resume_grace)
    await runs.publish(run, CTX)
    run.append(RunStarted(run.thread_id))
    return runs


async def follow_one(runs: StreamRuns, run: Run) -> tuple[int, dict | None]:
    """Follow the run until its first event, then leave (as a client that disconnects)."""
    batches = runs.follow(run.run_id, 0, HEARTBEAT)
    try:
        return (await anext(batches))[0]
    finally:
        await batches.aclose()


async def test_published_envelopes_are_numbered_in_the_store_from_one(run):
    runs = await published(run, resume_grace=60)
    seq, envelope = await follow_one(runs, run)
    assert seq == 1 and envelope is not None
    assert envelope["data"]["type"] == "started" and envelope["data"]["thread_id"] == "amy:1"
    assert (await runs.store.record(run.run_id)).thread_id == "amy:1"


async def test_without_grace_the_last_follower_leaving_cancels_the_run(run):
    runs = await published(run, resume_grace=0)
    await follow_one(runs, run)
    await asyncio.gather(run.task, return_exceptions=True)
    assert run.task.cancelled()


async def test_a_run_is_cancelled_once_its_grace_passes_unfollowed(run):
    runs = await published(run, resume_grace=0.01)
    await follow_one(runs, run)
    # Waits on the task itself; the generous bound only turns a hang into a failure.
    await asyncio.wait([run.task], timeout=60)
    assert run.task.cancelled()


async def test_a_client_that_reconnects_within_the_grace_keeps_the_run(run):
    runs = await published(run, resume_grace=60)
    await follow_one(runs, run)
    events = runs.follow(run.run_id, 0, HEARTBEAT)  # the reconnect
    assert (await anext(events))[0][0] == 1  # it follows again
    # The grace's check, run now rather than in 60 s: someone follows, so the run goes on.
    await runs._cancel_if_unfollowed(run.run_id)
    assert not run.task.done()
    await events.aclose()


async def test_a_finished_run_is_not_cancelled_when_its_follower_leaves(run):
    runs = await published(run, resume_grace=0)
    run.append(RunFailed(ServiceError(500, "AGENT_FAILED", "boom")))
    batches = runs.follow(run.run_id, 0, HEARTBEAT)
    seen = [env["data"]["type"] async for batch in batches for _, env in batch if env]
    assert seen[0] == "started" and seen[-2:] == ["error", "end"]
    assert run.done and not run.task.done()


async def test_a_worker_follows_its_own_run_without_asking_the_store(run):
    runs = await published(run, resume_grace=60)
    run.append(RunFailed(ServiceError(500, "AGENT_FAILED", "boom")))
    await runs.store.aclose()  # the store forgets every run: this worker still has its own
    seen = [
        env["data"]["type"]
        async for batch in runs.follow(run.run_id, 0, HEARTBEAT)
        for _, env in batch
        if env
    ]
    assert seen[0] == "started" and seen[-2:] == ["error", "end"]
