"""`kill -9` of the service mid-run, then a restart on the same checkpoint database.

The thread's history must be intact, the interrupted question visible as such, and the
next question on the thread must work, with SQLite and with PostgreSQL keeping the
conversations.
"""

from __future__ import annotations

import threading
import uuid

import httpx
import pytest

from tests.support.held_runs import (
    ask_held_question,
    check_interrupted_thread_recovers,
    read_until_held,
    script_held_question,
    service_env,
    start_service,
)
from tests.support.service_process import stop_process
from tests.support.sse import open_stream


async def test_killed_run_leaves_an_intact_interrupted_thread_that_answers_again(
    stub, checkpoint_url, tmp_path
):
    thread_id = f"crash:{uuid.uuid4().hex[:12]}"
    gate = threading.Event()
    script_held_question(stub, gate)
    env = service_env(stub, checkpoint_url)

    service = await start_service(env, tmp_path)
    try:
        async with (
            httpx.AsyncClient(base_url=service.base_url, timeout=30) as http,
            open_stream(http, **ask_held_question(thread_id)) as (_, events),
        ):
            await read_until_held(events, stub)
            service.process.kill()  # SIGKILL: no drain, no cleanup
            assert service.process.wait(10) == -9
            with pytest.raises(httpx.TransportError):
                # The stream breaks off: no `error`, no `end`.
                async for event in events:
                    assert event.type not in ("completed", "end")
    finally:
        gate.set()  # frees the stub's handler thread; its client is gone
        stop_process(service.process)

    restarted = await start_service(env, tmp_path)
    try:
        await check_interrupted_thread_recovers(restarted.base_url, stub, thread_id)
    finally:
        stop_process(restarted.process)
