"""Streams resumed on another worker sharing one PostgreSQL, and a worker killed mid-run."""

from __future__ import annotations

import asyncio
import re
import threading
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
from httpx_sse import aconnect_sse

from react_agent.sample_data.load_postgres import load_into_postgres
from tests.support.held_runs import (
    HELD_ANSWER,
    HELD_QUESTION,
    ask_held_question,
    script_held_question,
    service_env,
    start_service,
)
from tests.support.model_requests import user_questions
from tests.support.openai_stub import OpenAIStub, Reply, ToolCall
from tests.support.service_process import ServiceProcess, stop_process
from tests.support.sse import STREAM_PATH
from tests.support.waiting import eventually

SLOW_SQL = (
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 500000000)"
    " SELECT count(*) AS n FROM r"
)
"""A query that runs far longer than the test (its SQL_TIMEOUT is longer still)."""

OWNER_DEATH_NOTICE = 15.0
"""Seconds the survivor gets to close a dead worker's run (it checks every second)."""


@dataclass(frozen=True)
class RawEvent:
    """One received SSE event, its data kept as the exact text sent."""

    id: str
    data: str


async def two_workers(
    stack: AsyncExitStack, stub: OpenAIStub, database: str, tmp_path: Path, **extra: str
) -> tuple[ServiceProcess, ServiceProcess]:
    """Start two service processes on the same PostgreSQL checkpoint database."""
    env = service_env(stub, database, STREAM_RESUME_GRACE="30", **extra)
    workers = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        worker = await start_service(env, tmp_path / name)
        stack.callback(stop_process, worker.process)
        workers.append(worker)
    return workers[0], workers[1]


async def raw_events(
    http: httpx.AsyncClient, url: str, **request: object
) -> AsyncIterator[RawEvent]:
    """Yield the events of one stream request, as sent."""
    async with aconnect_sse(http, request.pop("method", "POST"), url, **request) as source:
        assert source.response.status_code == 200, source.response.status_code
        async for sse in source.aiter_sse():
            yield RawEvent(sse.id, sse.data)


async def read_until(events: AsyncIterator[RawEvent], marker: str) -> list[RawEvent]:
    """Read events up to and including the first whose data contains `marker`."""
    seen = []
    async for event in events:
        seen.append(event)
        if marker in event.data:
            return seen
    raise AssertionError(f"the stream ended before {marker}: {seen}")


def resume_headers(event_id: str) -> dict[str, str]:
    """Return the headers of an EventSource reconnect after `event_id`."""
    return {"Last-Event-ID": event_id, "Accept": "text/event-stream"}


async def test_a_reconnect_on_the_other_worker_gets_exactly_what_a_continuous_stream_got(
    stub, postgres_database, tmp_path
):
    gate = threading.Event()
    script_held_question(stub, gate)
    thread_id = f"scale:{uuid.uuid4().hex[:12]}"
    async with AsyncExitStack() as stack:
        stack.callback(gate.set)
        first, second = await two_workers(stack, stub, postgres_database, tmp_path)
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=60))
        leaving = raw_events(http, f"{first.base_url}{STREAM_PATH}", **ask_held_question(thread_id))
        before = await read_until(leaving, '"node":"tools"')
        await leaving.aclose()  # the client drops its connection mid-run
        run_id = before[0].id.partition(":")[0]

        # A continuous follower of the whole run, on the run's own worker.
        continuous = raw_events(
            http,
            f"{first.base_url}{STREAM_PATH}",
            method="GET",
            headers=resume_headers(f"{run_id}:0"),
        )
        continuous_task = asyncio.create_task(_collect(continuous))
        # The reconnect lands on the other worker, two events back.
        resumed = raw_events(
            http,
            f"{second.base_url}{STREAM_PATH}",
            method="GET",
            headers=resume_headers(before[-3].id),
        )
        replayed = await read_until(resumed, '"node":"tools"')
        gate.set()
        rest = await _collect(resumed)
        whole = await continuous_task

        assert before[:-2] + replayed + rest == whole
        assert [e.id for e in whole] == [f"{run_id}:{n}" for n in range(1, len(whole) + 1)]
        assert '"type":"completed"' in whole[-2].data and HELD_ANSWER in whole[-2].data
        assert '"type":"end"' in whole[-1].data
        # Asked once: the model saw the question in two calls of one run, no more.
        assert len(stub.requests) == 2
        assert user_questions(stub.requests[-1]) == [HELD_QUESTION]
        for worker in (first, second):
            again = await http.get(
                f"{worker.base_url}{STREAM_PATH}", headers=resume_headers(whole[-1].id)
            )
            assert again.status_code == 204, (worker.base_url, again.text)


async def test_a_killed_worker_leaves_its_followers_an_error_and_end_from_the_survivor(
    stub, postgres_database, tmp_path
):
    gate = threading.Event()
    script_held_question(stub, gate)
    thread_id = f"scale:{uuid.uuid4().hex[:12]}"
    async with AsyncExitStack() as stack:
        stack.callback(gate.set)
        doomed, survivor = await two_workers(stack, stub, postgres_database, tmp_path)
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=60))
        stream = raw_events(http, f"{doomed.base_url}{STREAM_PATH}", **ask_held_question(thread_id))
        seen = await read_until(stream, '"node":"tools"')
        await stream.aclose()
        following = raw_events(
            http,
            f"{survivor.base_url}{STREAM_PATH}",
            method="GET",
            headers=resume_headers(seen[-1].id),
        )
        doomed.process.kill()  # SIGKILL: no drain, no cleanup
        doomed.process.wait()
        gate.set()  # frees the stub's handler thread; its client is gone
        async with asyncio.timeout(OWNER_DEATH_NOTICE):
            tail = await _collect(following)
        # Numbered on from where it left off: a step the owner stored between the one read
        # and its death (update_state_after_tool, before the held model call) comes first.
        run_id = seen[0].id.partition(":")[0]
        assert [e.id for e in tail] == [
            f"{run_id}:{len(seen) + n}" for n in range(1, len(tail) + 1)
        ]
        assert all('"type":"progress"' in e.data for e in tail[:-2]), tail
        assert len(tail) <= 3, tail
        assert '"type":"error"' in tail[-2].data and "RUN_ABANDONED" in tail[-2].data
        assert '"type":"end"' in tail[-1].data

        # The thread is free again and answers on the survivor.
        events = await _collect(
            raw_events(
                http,
                f"{survivor.base_url}{STREAM_PATH}",
                json={"question": "每个地区的销售额是多少", "thread_id": thread_id},
            )
        )
        assert '"type":"completed"' in events[-2].data, events
        assert '"type":"end"' in events[-1].data, events


def slow_queries_running(database: str) -> int:
    """Return how many sessions on `database` run SLOW_SQL now."""
    with psycopg.connect(database, autocommit=True) as connection:
        row = connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
            " AND query LIKE 'WITH RECURSIVE r(n)%%'"
        ).fetchone()
    return int(row[0]) if row else 0


async def test_cancel_on_the_other_worker_stops_the_model_call_and_the_sql(
    stub, postgres_database, tmp_path
):
    load_into_postgres(postgres_database)
    gate = threading.Event()
    stub.script(Reply(text="never sent", wait_for=gate))
    async with AsyncExitStack() as stack:
        stack.callback(gate.set)
        owner, other = await two_workers(
            stack,
            stub,
            postgres_database,
            tmp_path,
            DATA_DATABASE_URL=postgres_database,
            SQL_TIMEOUT="600",
        )
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=60))

        async def stream_on_the_owner(
            marker: str, thread_id: str
        ) -> tuple[str, AsyncIterator[RawEvent]]:
            """Start a stream on the owner and read it up to `marker`; return its run id."""
            stream = raw_events(
                http,
                f"{owner.base_url}{STREAM_PATH}",
                json={"question": "q", "thread_id": thread_id},
            )
            seen = await read_until(stream, marker)
            return seen[0].id.partition(":")[0], stream

        # 1. A model call held open by the stub.
        run_id, stream = await stream_on_the_owner('"node":"trim_messages"', "c1:1")
        assert await eventually(lambda: len(stub.requests) == 1, 30)
        response = await http.post(
            f"{other.base_url}/api/v0/react/runs/{run_id}/cancel", json={"user_id": "c1"}
        )
        assert response.json()["data"]["status"] == "cancelling", response.text
        tail = await _collect(stream)
        assert ["RUN_CANCELLED" in tail[0].data, '"type":"end"' in tail[1].data] == [True, True]
        assert not gate.is_set() and len(stub.requests) == 1  # it never answered

        # 2. A query that would run for minutes.
        gate.set()
        stub.script(Reply(tool_calls=[ToolCall("run_sql", {"sql": SLOW_SQL})]))
        run_id, stream = await stream_on_the_owner('"node":"prepare_tool_input"', "c2:1")
        assert await eventually(lambda: slow_queries_running(postgres_database) == 1, 30)
        response = await http.post(
            f"{other.base_url}/api/v0/react/runs/{run_id}/cancel", json={"user_id": "c2"}
        )
        assert response.status_code == 200, response.text
        tail = await _collect(stream)
        assert "RUN_CANCELLED" in tail[-2].data and '"type":"end"' in tail[-1].data
        assert await eventually(lambda: slow_queries_running(postgres_database) == 0, 30)


async def _collect(events: AsyncIterator[RawEvent]) -> list[RawEvent]:
    return [event async for event in events]


async def test_a_thousand_new_conversations_over_two_workers_get_distinct_ids(
    stub, postgres_database, tmp_path
):
    conversations = 1000
    stub.script(*[Reply(text="好") for _ in range(conversations)])
    async with AsyncExitStack() as stack:
        # 500 new conversations at once per worker queue for its pooled connections; how
        # long the last one waits depends on the machine, so the pool's wait is sized from
        # the work (the default, 5 s, answers 503 to a burst on a slow machine).
        workers = await two_workers(
            stack,
            stub,
            postgres_database,
            tmp_path,
            LOG_LEVEL="ERROR",
            POSTGRES_CONNECT_TIMEOUT=str(conversations),
        )
        # One connection per request, as many clients would; no deadline but the work's.
        http = await stack.enter_async_context(
            httpx.AsyncClient(timeout=None, limits=httpx.Limits(max_connections=conversations))
        )

        async def ask(n: int) -> httpx.Response:
            base = workers[n % 2].base_url
            return await http.post(f"{base}/api/v0/ask_react_agent", json={"question": f"q{n}"})

        answers = await asyncio.gather(*(ask(n) for n in range(conversations)))
    failed = [(a.status_code, a.text[:300]) for a in answers if a.status_code != 200]
    assert not failed, failed[:3]
    ids = [a.json()["data"]["conversation_id"] for a in answers]
    assert len(set(ids)) == conversations
    assert all(re.fullmatch(r"guest:\d{17}", thread_id) for thread_id in ids)


async def test_a_follower_on_the_other_worker_keeps_the_run_going_past_the_grace(
    stub, postgres_database, tmp_path
):
    grace = 2.0
    gate = threading.Event()
    script_held_question(stub, gate)
    thread_id = f"scale:{uuid.uuid4().hex[:12]}"
    async with AsyncExitStack() as stack:
        stack.callback(gate.set)
        env = service_env(stub, postgres_database, STREAM_RESUME_GRACE=str(grace))
        workers = []
        for name in ("a", "b"):
            (tmp_path / name).mkdir()
            worker = await start_service(env, tmp_path / name)
            stack.callback(stop_process, worker.process)
            workers.append(worker)
        owner, other = workers
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=60))
        leaving = raw_events(http, f"{owner.base_url}{STREAM_PATH}", **ask_held_question(thread_id))
        seen = await read_until(leaving, '"node":"tools"')
        await leaving.aclose()  # nobody follows on the owner from here on
        following = raw_events(
            http,
            f"{other.base_url}{STREAM_PATH}",
            method="GET",
            headers=resume_headers(seen[-1].id),
        )
        reader = asyncio.create_task(_collect(following))
        # What is tested is time passing: three graces without a follower on the owner.
        await asyncio.sleep(3 * grace)
        assert not reader.done()
        gate.set()
        rest = await reader
    assert '"type":"completed"' in rest[-2].data and HELD_ANSWER in rest[-2].data
