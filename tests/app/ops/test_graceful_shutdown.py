"""SIGTERM: runs in flight finish within SHUTDOWN_GRACE or end with an error event.

The service runs as `python -m app` with a small grace. A run that finishes in time
streams to `completed` as usual; one that would outlast the grace gets a 503
SHUTTING_DOWN `error` event, then `end`, and the process exits soon after. Nothing is
half-written: after a restart the cut-short question is shown as interrupted and the next
question on its thread works.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.support.held_runs import (
    HELD_ANSWER,
    REGION_SQL,
    ask_held_question,
    check_interrupted_thread_recovers,
    poll_until,
    read_until_held,
    script_held_question,
    service_env,
    start_service,
)
from tests.support.openai_stub import OpenAIStub
from tests.support.service_process import ServiceProcess, health_status, stop_process
from tests.support.sse import open_stream

GRACE = 5.0
"""SHUTDOWN_GRACE of the service under test, in seconds (room to finish on a busy machine)."""

EXIT_MARGIN = 10.0
"""Seconds the process may take to exit beyond the grace (closing pools, the loop).

Generous, because a shared CI machine may be slow; still far below the held model call's
LLM_TIMEOUT (30 s), so an exit that waited for the model instead of the grace fails.
"""


@pytest.fixture
def env(stub: OpenAIStub, tmp_path: Path) -> dict[str, str]:
    """Return the environment of a service with a short grace and a SQLite checkpointer."""
    return service_env(
        stub, f"sqlite:///{tmp_path / 'conversations.db'}", SHUTDOWN_GRACE=str(GRACE)
    )


async def terminate(service: ServiceProcess) -> float:
    """Send SIGTERM, wait until the service stops accepting connections; return when sent."""
    sent = time.monotonic()
    service.process.send_signal(signal.SIGTERM)

    async def accepting() -> bool:
        return await asyncio.to_thread(health_status, service.base_url, 0.5) is not None

    assert await poll_until(accepting, False, timeout=GRACE), "still accepting after SIGTERM"
    return sent


async def wait_for_exit(service: ServiceProcess, timeout: float) -> int:
    """Wait for the process to exit and return its code."""
    return await asyncio.to_thread(service.process.wait, timeout)


async def test_run_that_finishes_within_the_grace_completes_after_sigterm(stub, env, tmp_path):
    gate = threading.Event()
    script_held_question(stub, gate)
    thread_id = f"drain:{uuid.uuid4().hex[:12]}"
    service = await start_service(env, tmp_path)
    try:
        async with (
            httpx.AsyncClient(base_url=service.base_url, timeout=30) as http,
            open_stream(http, **ask_held_question(thread_id)) as (_, events),
        ):
            await read_until_held(events, stub)
            sent = await terminate(service)
            assert service.process.poll() is None  # waiting for the run, not gone
            gate.set()
            async with asyncio.timeout(GRACE + EXIT_MARGIN):
                rest = [event async for event in events]
        finished = time.monotonic() - sent

        types = [e.type for e in rest]
        assert types[-2:] == ["completed", "end"], types
        assert "error" not in types
        completed = rest[-2].data
        assert completed["response"] == HELD_ANSWER and completed["sql"] == REGION_SQL
        # Finishing within the grace is what `completed` (not a SHUTTING_DOWN error) shows.
        assert finished < GRACE + EXIT_MARGIN, finished
        assert await wait_for_exit(service, GRACE + EXIT_MARGIN) == 0
    finally:
        gate.set()
        stop_process(service.process)


async def test_run_that_outlasts_the_grace_gets_an_error_event_and_nothing_half_written(
    stub, env, tmp_path
):
    gate = threading.Event()  # never set while the service runs: the model never answers
    script_held_question(stub, gate)
    thread_id = f"drain:{uuid.uuid4().hex[:12]}"
    service = await start_service(env, tmp_path)
    try:
        async with (
            httpx.AsyncClient(base_url=service.base_url, timeout=30) as http,
            open_stream(http, **ask_held_question(thread_id)) as (_, events),
        ):
            await read_until_held(events, stub)
            sent = await terminate(service)
            async with asyncio.timeout(GRACE + EXIT_MARGIN):
                rest = [event async for event in events]
            cut_after = rest[-2].arrived - sent
            code = await wait_for_exit(service, GRACE + EXIT_MARGIN)
            exited_after = time.monotonic() - sent
    finally:
        gate.set()
        stop_process(service.process)

    types = [e.type for e in rest]
    assert types[-2:] == ["error", "end"] and set(types[:-2]) <= {"progress"}, types
    error = rest[-2].envelope
    assert error["code"] == 503 and error["success"] is False
    assert error["data"]["error_type"] == "SHUTTING_DOWN"
    assert error["data"]["can_retry"] is True
    assert error["data"]["conversation_id"] == thread_id
    assert rest[-1].data == {"type": "end", "thread_id": thread_id}
    # Cut at the grace: not before it (the run got its time), nor at the model's timeout.
    assert GRACE - 0.5 <= cut_after < GRACE + EXIT_MARGIN, cut_after
    assert code == 0
    assert exited_after < GRACE + EXIT_MARGIN, exited_after

    restarted = await start_service(env, tmp_path)
    try:
        await check_interrupted_thread_recovers(restarted.base_url, stub, thread_id)
    finally:
        stop_process(restarted.process)
