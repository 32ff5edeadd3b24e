"""RUN_EVENTS_TTL: a finished stream stays resumable that long, then a reconnect gets 204."""

from __future__ import annotations

from contextlib import AsyncExitStack

import psycopg

from react_agent.runs.store.local import InProcessRunEvents
from tests.support.held_runs import poll_until
from tests.support.live_server import ServiceClient, running_service
from tests.support.run_stores import FakeClock
from tests.support.scripted_model import ScriptedChatModel, answer
from tests.support.sse import STREAM_PATH, collect_stream

TTL = 60.0


def resume_headers(event_id: str) -> dict[str, str]:
    """Return the headers of an EventSource reconnect after `event_id`."""
    return {"Last-Event-ID": event_id, "Accept": "text/event-stream"}


async def ask_to_the_end(svc: ServiceClient, thread_id: str) -> tuple[str, list[str]]:
    """Stream a question to its end; return its run id and the event ids it was sent."""
    events = await collect_stream(svc.http, json={"question": "q", "thread_id": thread_id})
    assert [e.type for e in events][-2:] == ["completed", "end"], events
    return events[0].id.partition(":")[0], [e.id for e in events]


async def test_on_sqlite_a_finished_run_is_replayed_until_the_ttl_then_gets_204(settings):
    model = ScriptedChatModel(default=answer("好"))
    async with running_service(
        settings.model_copy(update={"run_events_ttl": TTL}), model=model
    ) as svc:
        store = svc.app.extensions["stream_runs"].store
        assert isinstance(store, InProcessRunEvents)
        store.clock = clock = FakeClock()
        run_id, sent = await ask_to_the_end(svc, "wang1:20250131103000001")

        clock.now += TTL - 1
        replayed = await collect_stream(svc.http, "GET", headers=resume_headers(f"{run_id}:0"))
        assert [e.id for e in replayed] == sent  # the whole run, again

        clock.now += 1
        for last in (f"{run_id}:0", sent[-1]):
            expired = await svc.http.get(STREAM_PATH, headers=resume_headers(last))
            assert expired.status_code == 204 and expired.content == b""
        assert len(model.seen) == 1  # never asked again


async def test_on_postgresql_a_finished_run_is_deleted_after_the_ttl_on_every_worker(
    settings, postgres_database
):
    ttl = 1.0
    shared = settings.model_copy(
        update={"run_events_ttl": ttl, "checkpoint_database_url": postgres_database}
    )
    model = ScriptedChatModel(default=answer("好"))
    async with AsyncExitStack() as stack:
        owner, other = [
            await stack.enter_async_context(running_service(shared, model=model)) for _ in range(2)
        ]
        run_id, sent = await ask_to_the_end(owner, "wang1:20250131103000002")

        async def stored_events() -> int:
            async with await psycopg.AsyncConnection.connect(postgres_database) as connection:
                cursor = await connection.execute(
                    "SELECT count(*) FROM runs r JOIN run_events e USING (run_id)"
                    " WHERE r.run_id = %s",
                    (run_id,),
                )
                row = await cursor.fetchone()
                return int(row[0]) if row else 0

        # Stored as sent, then deleted by the workers' expiry (every ttl / 2).
        assert await stored_events() in (0, len(sent))
        assert await poll_until(stored_events, 0, timeout=30)
        for worker in (owner, other):
            expired = await worker.http.get(STREAM_PATH, headers=resume_headers(f"{run_id}:0"))
            assert expired.status_code == 204, (worker.base_url, expired.text)
        assert len(model.seen) == 1
