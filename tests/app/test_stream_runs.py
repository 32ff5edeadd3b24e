"""StreamRuns: runs kept for reconnecting clients, cancelled when nobody comes back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from app.stream_events import StreamContext
from app.stream_runs import StreamRuns
from react_agent.errors import ServiceError
from react_agent.runs.runner import Run, RunFailed

CTX = StreamContext("amy:1", "amy", "zh-CN")


@pytest.fixture
async def run() -> AsyncIterator[Run]:
    """Make a run whose task waits until it is cancelled (a question being answered)."""
    run = Run("amy:1", "zh-CN")
    run.task = asyncio.create_task(asyncio.Event().wait())
    yield run
    run.task.cancel()
    await asyncio.gather(run.task, return_exceptions=True)


async def test_an_added_run_is_found_by_its_run_id(run):
    runs = StreamRuns(resume_grace=5)
    followed = runs.add(run, CTX)
    assert runs.get(run.run_id) is followed
    assert followed.ctx == CTX and followed.followers == 0
    assert runs.get("no-such-run") is None


async def test_without_grace_the_last_follower_leaving_cancels_the_run(run):
    runs = StreamRuns(resume_grace=0)
    followed = runs.add(run, CTX)
    runs.attach(followed)
    runs.detach(followed)
    await asyncio.gather(run.task, return_exceptions=True)
    assert run.task.cancelled()


async def test_a_run_is_cancelled_once_its_grace_passes_unfollowed(run):
    runs = StreamRuns(resume_grace=0.01)
    followed = runs.add(run, CTX)
    runs.attach(followed)
    runs.detach(followed)
    assert followed.cancel_timer is not None and not run.task.done()
    # Waits on the task itself; the generous bound only turns a hang into a failure.
    await asyncio.wait([run.task], timeout=60)
    assert run.task.cancelled()


async def test_a_client_that_reconnects_within_the_grace_calls_off_the_cancellation(run):
    runs = StreamRuns(resume_grace=60)
    followed = runs.add(run, CTX)
    runs.attach(followed)
    runs.detach(followed)
    timer = followed.cancel_timer
    assert timer is not None
    runs.attach(followed)
    assert timer.cancelled() and followed.cancel_timer is None
    assert followed.followers == 1 and not run.task.done()


async def test_a_run_with_another_follower_left_goes_on(run):
    runs = StreamRuns(resume_grace=0)
    followed = runs.add(run, CTX)
    runs.attach(followed)
    runs.attach(followed)
    runs.detach(followed)
    assert followed.followers == 1
    assert followed.cancel_timer is None and not run.task.done()


async def test_a_finished_run_is_not_cancelled_when_its_follower_leaves(run):
    runs = StreamRuns(resume_grace=0)
    followed = runs.add(run, CTX)
    runs.attach(followed)
    run.append(RunFailed(ServiceError(500, "AGENT_FAILED", "boom")))
    runs.detach(followed)
    assert run.done and not run.task.done()
    assert followed.cancel_timer is None
    assert runs.get(run.run_id) is followed  # still there for a client that lost the end
