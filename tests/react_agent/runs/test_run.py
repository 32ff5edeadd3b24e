"""A run's event log: followers get every event in order, from any point, until the end."""

from __future__ import annotations

import asyncio

import pytest

from react_agent.errors import ServiceError
from react_agent.runs.events.events import (
    NodeFinished,
    RunFailed,
    RunFinished,
    RunResult,
    RunStarted,
    TokenStreamed,
)
from react_agent.runs.run import Run

RESULT = RunResult(
    thread_id="wang1:1",
    answer="done",
    execution_path=["agent"],
    tools_used=[],
    sql=None,
    records=None,
    sql_execution_count=0,
    total_messages=2,
    conversation_rounds=1,
)


async def collect(run: Run, after: int = 0) -> list[tuple[int, object]]:
    return [item async for item in run.follow(after)]


async def test_a_follower_waiting_before_the_events_gets_each_in_order_until_the_end():
    run = Run("wang1:1", None)
    follower = asyncio.create_task(collect(run))
    await asyncio.sleep(0)  # one scheduling turn, not a wait: the follower now waits on the log
    events = [RunStarted("wang1:1"), NodeFinished("agent", 1), TokenStreamed("do")]
    for event in events:
        run.append(event)
    assert not follower.done() and not run.done
    run.append(RunFinished(RESULT))

    assert await follower == list(enumerate([*events, RunFinished(RESULT)], start=1))
    assert run.done


async def test_a_late_follower_resumes_after_the_sequence_number_it_last_saw():
    run = Run("wang1:1", None)
    for event in (RunStarted("wang1:1"), NodeFinished("agent", 1), RunFinished(RESULT)):
        run.append(event)

    assert [seq for seq, _ in await collect(run, after=1)] == [2, 3]
    assert await collect(run, after=3) == []


async def test_outcome_returns_the_result_or_raises_the_runs_error():
    finished, failed = Run("wang1:1", None), Run("wang1:2", None)
    finished.append(RunFinished(RESULT))
    error = ServiceError(504, "RUN_TIMEOUT", "too slow")
    failed.append(RunFailed(error))

    assert await finished.outcome() is RESULT
    with pytest.raises(ServiceError) as raised:
        await failed.outcome()
    assert raised.value is error


async def test_cancel_stops_the_task_and_keeps_the_reason():
    run = Run("wang1:1", None)
    run.task = asyncio.create_task(asyncio.Event().wait())
    reason = ServiceError(503, "SHUTTING_DOWN", "bye")

    run.cancel(reason)

    with pytest.raises(asyncio.CancelledError):
        await run.task
    assert run.cancel_reason is reason
