"""New thread ids stay unique across processes sharing PostgreSQL (the thread_ids table)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from urllib.parse import quote

import pytest

from app.asking.thread_ids import ThreadIdClock, unique_new_thread_id
from app.http.app_state import agent_service_of, thread_id_clock_of
from react_agent.databases.postgres.pool import open_pool
from react_agent.runs.store.open import open_run_store
from tests.support.live_server import ServiceClient, running_service
from tests.support.mcp_client import http_session
from tests.support.scripted_model import answer

NEW_CONVERSATIONS = 1000
ID_FORMAT = re.compile(r"^guest:\d{17}$")


@pytest.fixture
async def two_processes(postgres_database: str) -> AsyncIterator[list[tuple]]:
    """Yield (clock, thread ids) of two processes on one database."""
    processes = []
    async with AsyncExitStack() as stack:
        for name in ("process-1", "process-2"):
            # A thousand reservations queue for eight connections: the wait is sized from
            # the work, not the 5 s default, which a slow machine could pass.
            options = {"max_size": 8, "connect_timeout": NEW_CONVERSATIONS}
            pool = await open_pool(postgres_database, name=name, **options)
            stack.push_async_callback(pool.close)
            store = await stack.enter_async_context(
                open_run_store(pool, ttl=600, max_run_seconds=60, pool_options=options)
            )
            processes.append((ThreadIdClock(), store.thread_ids))
        yield processes


async def test_an_id_taken_by_another_process_gives_the_next_millisecond(two_processes):
    (clock, here), (_, there) = two_processes
    taken = clock.new_thread_id("guest")
    assert await there.reserve(taken)
    given = await unique_new_thread_id(clock, here, "guest", taken)
    assert given != taken and ID_FORMAT.match(given)
    assert given[-17:] > taken[-17:]


async def test_a_thousand_concurrent_new_conversations_over_two_processes_get_distinct_ids(
    two_processes,
):
    async def new_id(n: int) -> str:
        clock, store = two_processes[n % 2]
        return await unique_new_thread_id(clock, store, "guest", clock.new_thread_id("guest"))

    ids = await asyncio.gather(*(new_id(n) for n in range(NEW_CONVERSATIONS)))
    assert len(set(ids)) == NEW_CONVERSATIONS
    assert all(ID_FORMAT.match(thread_id) for thread_id in ids)


def id_at(ms: int, user_id: str) -> str:
    """Return the thread id a clock standing at `ms` hands out first."""
    return ThreadIdClock(now_ms=lambda: ms).new_thread_id(user_id)


@pytest.fixture
async def service_on_postgres(settings, model, postgres_database) -> AsyncIterator[ServiceClient]:
    """Yield the app over real HTTP keeping its state (and the thread_ids) in PostgreSQL."""
    shared = settings.model_copy(update={"checkpoint_database_url": postgres_database})
    async with running_service(shared, model=model) as client:
        yield client


async def test_every_way_in_skips_a_new_id_that_another_process_took(service_on_postgres, model):
    """The ask route, /v1/chat/completions and MCP's ask_data all reserve new ids."""
    service = service_on_postgres
    model.replies = [answer("一"), answer("二"), answer("三")]
    clock = thread_id_clock_of(service.app)
    store = agent_service_of(service.app).run_store.thread_ids
    frozen = clock.next_ms() + 3_600_000  # an hour ahead: no id of this test run is there yet
    clock.now_ms = lambda: frozen  # stopped: the clock now counts up one ms per id
    taken = [id_at(frozen + n, "wang1") for n in (0, 2, 4)]
    for thread_id in taken:
        assert await store.reserve(thread_id)  # "another process" took it

    status, body = await service.ask(question="第一", user_id="wang1")
    assert status == 200 and body["data"]["conversation_id"] == id_at(frozen + 1, "wang1")

    response = await service.http.post(
        "/v1/chat/completions",
        json={"messages": [{"role": "user", "content": "第二"}], "user": "wang1"},
    )
    assert response.status_code == 200
    assert response.headers["x-conversation-id"] == quote(id_at(frozen + 3, "wang1"), safe=":")

    async with http_session(service.base_url) as session:
        result = await session.call_tool("ask_data", {"question": "第三", "user_id": "wang1"})
    assert not result.is_error, result.content
    assert result.structured_content["conversation_id"] == id_at(frozen + 5, "wang1")
