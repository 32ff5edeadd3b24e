"""The one event log: batches from any point, heartbeats when idle, the end."""

from __future__ import annotations

import asyncio

from react_agent.runs.events.event_log import EventLog


async def test_a_follower_gets_what_is_there_in_one_batch_then_each_new_event():
    log: EventLog[str] = EventLog()
    log.append("a")
    log.append("b")
    batches = log.follow_batches(0)
    assert await anext(batches) == [(1, "a"), (2, "b")]
    waiting = asyncio.ensure_future(anext(batches))
    await asyncio.sleep(0)  # one scheduling turn: the follower now waits on the log
    assert not waiting.done()
    log.append("c")
    assert await waiting == [(3, "c")]
    log.end()
    assert [batch async for batch in batches] == []


async def test_an_idle_follower_gets_a_heartbeat_at_its_position():
    log: EventLog[str] = EventLog()
    log.append("a")
    items = log.follow(0, idle_timeout=0.01)
    assert await anext(items) == (1, "a")
    assert await anext(items) == (1, None)


async def test_a_follower_after_the_end_gets_only_the_events_after_its_position():
    log: EventLog[int] = EventLog()
    for n in range(1, 5):
        log.append(n)
    log.end()
    log.end()  # a second end changes nothing
    assert [item async for item in log.follow(2)] == [(3, 3), (4, 4)]
    assert [item async for item in log.follow(4)] == []


async def test_events_a_view_hides_do_not_put_off_the_heartbeat():
    log: EventLog[str] = EventLog()
    views = log.follow_views(lambda batch: [], idle_timeout=0.2)  # a stream shows none

    async def hidden_events() -> None:
        # An event every 0.05 s for 2 s: without a view, never idle for 0.2 s.
        for _ in range(40):
            log.append("hidden")
            await asyncio.sleep(0.05)
        log.end()

    appending = asyncio.create_task(hidden_events())
    first = await anext(views)
    assert first[0][1] is None and not log.ended  # the heartbeat came while events did
    appending.cancel()
    await asyncio.gather(appending, return_exceptions=True)


async def test_wait_ended_returns_once_the_log_ends():
    log: EventLog[str] = EventLog()
    waiting = asyncio.ensure_future(log.wait_ended())
    log.append("a")
    await asyncio.sleep(0)  # one scheduling turn: an event is not the end
    assert not waiting.done()
    log.end()
    await asyncio.wait_for(waiting, 60)
    assert log.ended
