"""RunEnvelopes: a run's envelopes made from its own events, the same bytes every read."""

from __future__ import annotations

import json

from app.streaming.events import StreamContext
from app.streaming.run_envelopes import RunEnvelopes
from react_agent.errors import ServiceError
from react_agent.runs.events.event_log import EventLog
from react_agent.runs.events.events import NodeFinished, RunEvent, RunFailed, RunStarted, RunWaiting

CTX = StreamContext("amy:1", "amy", "zh-CN")
AT = "2026-03-01T10:00:00.000"
LATER = "2026-03-01T10:00:07.250"


def ended_log() -> EventLog[RunEvent]:
    """Return the log of a run that waited, started, ran a node and failed, at known times."""
    log: EventLog[RunEvent] = EventLog()
    log.append(RunWaiting("amy:1", "capacity", 1, timestamp=AT))
    log.append(RunStarted("amy:1", timestamp=AT))
    log.append(NodeFinished("agent", 1, timestamp=LATER))
    log.append(RunFailed(ServiceError(500, "AGENT_FAILED", "boom"), timestamp=LATER))
    log.end()
    return log


async def read(envelopes: RunEnvelopes, after: int = 0) -> list[tuple[int, dict | None]]:
    return [item async for batch in envelopes.follow_batches(after) for item in batch]


async def test_envelopes_carry_the_time_of_their_event_not_of_the_read():
    items = await read(RunEnvelopes(ended_log(), CTX))
    data = [envelope["data"] for _, envelope in items if envelope is not None]
    assert [d["type"] for d in data] == [
        "started",
        "progress",  # queued
        "progress",  # __start__
        "progress",  # agent
        "error",
        "end",
    ]
    assert [d.get("timestamp") for d in data] == [AT, AT, AT, LATER, LATER, None]


async def test_a_second_read_gives_the_same_bytes_numbered_the_same():
    envelopes = RunEnvelopes(ended_log(), CTX)
    first, again = await read(envelopes), await read(envelopes)
    assert [seq for seq, _ in first] == [1, 2, 3, 4, 5, 6]  # the second `started` is not sent
    assert json.dumps(first, ensure_ascii=False) == json.dumps(again, ensure_ascii=False)


async def test_a_read_after_a_number_gives_the_rest_as_numbered_before():
    envelopes = RunEnvelopes(ended_log(), CTX)
    assert await read(envelopes, after=3) == (await read(envelopes))[3:]
    assert await read(envelopes, after=6) == []
