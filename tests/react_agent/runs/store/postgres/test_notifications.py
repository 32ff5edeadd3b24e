"""LISTEN/NOTIFY when the listening connection dies: followers and cancels carry on."""

from __future__ import annotations

import asyncio

import psycopg

from react_agent.runs.store.events import RunRecord
from react_agent.runs.store.postgres.notifications import EVENTS_CHANNEL
from tests.react_agent.runs.store.postgres.test_events import THREAD, closing_events
from tests.support.run_stores import RECONNECTED, terminate, wait_for_listeners


async def test_a_listener_whose_connection_died_listens_again_and_loses_nothing(
    two_stores, postgres_database
):
    owner, other = two_stores
    owner.start()
    other.start()
    first_listeners = await wait_for_listeners(postgres_database, 2, set())
    cancelled = asyncio.Event()
    await owner.open_run(RunRecord("run1", THREAD, "wang1", "zh-CN", owner.owner), cancelled.set)
    await owner.append("run1", 1, {"n": 1})
    received: list[int] = []
    arrived = asyncio.Condition()

    async def follow() -> None:
        async for seq, payload in other.follow(
            "run1", 0, idle_timeout=60, on_abandoned=closing_events
        ):
            assert payload == {"n": seq}
            async with arrived:
                received.append(seq)
                arrived.notify_all()

    async def until_received(count: int) -> None:
        async with arrived:
            await asyncio.wait_for(arrived.wait_for(lambda: len(received) >= count), RECONNECTED)

    follower = asyncio.create_task(follow())
    try:
        await until_received(1)
        await terminate(postgres_database, first_listeners)
        # Sent while nobody listens: the follower still gets them.
        await owner.append("run1", 2, {"n": 2})
        await owner.append("run1", 3, {"n": 3})
        await until_received(3)
        await wait_for_listeners(postgres_database, 2, first_listeners)
        await owner.append("run1", 4, {"n": 4})
        await until_received(4)

        # A cancel asked for on the other store reaches the owner through its new LISTEN.
        assert not cancelled.is_set()
        await other.request_cancel("run1")
        await asyncio.wait_for(cancelled.wait(), RECONNECTED)
        await owner.finish("run1")
        await asyncio.wait_for(follower, RECONNECTED)
    finally:
        follower.cancel()
    assert received == [1, 2, 3, 4]


async def test_an_interrupt_notice_after_the_listener_reconnected_reaches_the_thread(
    two_stores, postgres_database
):
    owner, other = two_stores
    interrupted: asyncio.Queue[str] = asyncio.Queue()
    owner.on_thread_cancel = lambda thread_id: interrupted.put_nowait(thread_id) or True
    owner.start()
    first = await wait_for_listeners(postgres_database, 1, set())
    await terminate(postgres_database, first)
    await wait_for_listeners(postgres_database, 1, first)
    await other.request_thread_cancel(THREAD)
    assert await asyncio.wait_for(interrupted.get(), RECONNECTED) == THREAD


async def test_a_cancel_asked_while_the_owner_was_not_listening_reaches_it_once_it_listens(
    two_stores,
):
    owner, other = two_stores
    cancelled, untouched = asyncio.Event(), asyncio.Event()
    await owner.open_run(RunRecord("run2", THREAD, "wang1", "zh-CN", owner.owner), cancelled.set)
    await owner.open_run(RunRecord("run3", THREAD, "wang1", "zh-CN", owner.owner), untouched.set)
    for run_id in ("run2", "run3"):  # a client knows a run's id from its events
        await owner.append(run_id, 1, {"n": 1})
    await other.request_cancel("run2")  # nobody listens in the owner: the NOTIFY is lost
    assert not cancelled.is_set()
    owner.start()  # listening now (as after a reconnect): it finds the cancel asked for
    await asyncio.wait_for(cancelled.wait(), RECONNECTED)
    assert not untouched.is_set()


async def test_events_are_notified_only_once_another_process_follows_the_run(
    two_stores, postgres_database
):
    owner, other = two_stores
    owner.start()
    await wait_for_listeners(postgres_database, 1, set())
    await owner.open_run(RunRecord("run5", THREAD, "wang1", "zh-CN", owner.owner), lambda: None)
    async with await psycopg.AsyncConnection.connect(postgres_database, autocommit=True) as tap:
        await tap.execute(f"LISTEN {EVENTS_CHANNEL}")
        notices = tap.notifies()  # holds the connection until closed (below)

        async def next_notice() -> str:
            return (await asyncio.wait_for(anext(notices), RECONNECTED)).payload

        async def follow() -> list[int]:
            stream = other.follow("run5", 0, idle_timeout=60, on_abandoned=closing_events)
            return [seq async for seq, _ in stream]

        follower = None
        try:
            # Followed in its own process only: stored, no NOTIFY (none before the marker).
            await owner.append("run5", 1, {"n": 1})
            await tap.execute(f"SELECT pg_notify('{EVENTS_CHANNEL}', 'marker')")
            assert await next_notice() == "marker"

            follower = asyncio.create_task(follow())
            # The owner hears of the follower: it notifies at once, then every event.
            assert await next_notice() == "run5"
            await owner.append("run5", 2, {"n": 2})
            assert await next_notice() == "run5"
            await owner.finish("run5")
            assert await asyncio.wait_for(follower, RECONNECTED) == [1, 2]
        finally:
            if follower is not None:
                follower.cancel()
            await notices.aclose()
