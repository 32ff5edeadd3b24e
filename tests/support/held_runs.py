"""A service subprocess whose run is held at a known step, to crash or stop it mid-run.

Crash and shutdown tests share the setup: the stub LLM in the test process (so the test
scripts it and reads its requests), the service as `python -m app` on a checkpoint
database that survives it, and a streamed question whose second model call waits on a
`threading.Event` until the test releases it (or never does). After a restart,
`check_interrupted_thread_recovers` checks what the thread must look like.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import httpx

from tests.support.model_requests import tool_results, unanswered_tool_call_ids, user_questions
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub, Reply, ToolCall
from tests.support.service_process import ServiceProcess, spawn_service, wait_until_ready
from tests.support.sse import StreamEvent, collect_stream
from tests.support.waiting import eventually

HELD_QUESTION = "有哪些地区"
"""The question whose run is held."""

REGION_SQL = "SELECT region_name FROM regions ORDER BY region_name"
"""The query of the held question's first model call."""

HELD_ANSWER = "七个地区：东北、华北、华东、华南、华中、西北、西南。"
"""The answer the held second model call gives once released."""

NEXT_QUESTION = "每个地区的销售额是多少"
"""The question asked on the thread after the restart (the stub's default policy)."""


def service_env(stub: OpenAIStub, checkpoint_url: str, **extra: str) -> dict[str, str]:
    """Return the environment of a service on `stub` keeping conversations at `checkpoint_url`."""
    return {
        "OPENAI_BASE_URL": stub.base_url,
        "CHECKPOINT_DATABASE_URL": checkpoint_url,
        "LLM_MAX_RETRIES": "0",
        "LLM_TIMEOUT": "30",
        "LOG_LEVEL": "WARNING",
        **extra,
    }


async def start_service(env: Mapping[str, str], tmp_path: Path) -> ServiceProcess:
    """Spawn the service and wait (polling /health, with a deadline) until it is ready."""
    service = spawn_service(env, tmp_path)
    try:
        await asyncio.to_thread(wait_until_ready, service)
    except BaseException:
        service.process.kill()
        service.process.wait()
        raise
    return service


def script_held_question(stub: OpenAIStub, gate: threading.Event) -> None:
    """Script a run_sql call on the regions, then an answer held until `gate` is set."""
    stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": REGION_SQL})]),
        Reply(text=HELD_ANSWER, wait_for=gate),
    )


def ask_held_question(thread_id: str) -> dict[str, Any]:
    """Return the stream request body of the held question."""
    return {"json": {"question": HELD_QUESTION, "thread_id": thread_id}}


async def read_until_held(
    events: AsyncIterator[StreamEvent], stub: OpenAIStub, *, timeout: float = 30.0
) -> list[StreamEvent]:
    """Read the stream up to the `tools` progress event, then wait for the held model call.

    Once the stub has the second model request, the tools step's checkpoint is written
    (steps are checkpointed before the next one starts).
    """
    seen: list[StreamEvent] = []
    async with asyncio.timeout(timeout):
        async for event in events:
            seen.append(event)
            if event.type == "progress" and event.data["node"] == "tools":
                break
    assert seen and seen[-1].type == "progress", [e.type for e in seen]
    assert await eventually(lambda: len(stub.requests) >= 2, timeout), stub.requests
    return seen


async def poll_until(
    read: Callable[[], Awaitable[Any]], expected: Any, *, timeout: float = 10.0
) -> bool:
    """Await `read()` until it returns `expected`; False if it still does not at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        if await read() == expected:
            return True
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)


async def check_interrupted_thread_recovers(
    base_url: str, stub: OpenAIStub, thread_id: str
) -> None:
    """Check a thread whose held question was cut short, on a restarted service.

    Its history holds the question, the tool call and the tool result, and no answer; its
    status is `interrupted`; the next question completes, and the model's request for it
    holds both questions with every tool call answered; afterwards the conversation shows
    the first question closed by an answer marked `interrupted`.
    """
    user_id = thread_id.partition(":")[0]
    params = {"user_id": user_id}
    statuses: list[str] = []
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:

        async def status() -> str:
            response = await http.get(f"/api/v0/react/status/{thread_id}", params=params)
            statuses.append(response.json()["data"]["status"])
            return statuses[-1]

        # With PostgreSQL the dead process's claim on the thread lasts until the server
        # notices its session is gone; meanwhile the thread may look busy.
        assert await poll_until(status, "interrupted"), statuses
        assert set(statuses) <= {"interrupted", "running"}, statuses

        conversation = await http.get(
            f"/api/v0/react/conversations/{thread_id}", params={**params, "include_tools": "true"}
        )
        messages = conversation.json()["data"]["messages"]
        assert [m["role"] for m in messages] == ["human", "ai", "tool"], messages
        assert messages[0]["content"] == HELD_QUESTION
        assert messages[1]["tool_calls"] == [{"name": "run_sql", "args": {"sql": REGION_SQL}}]
        assert messages[2]["tool_name"] == "run_sql" and "7 row(s)" in messages[2]["content"]

        before = len(stub.requests)
        events = await collect_stream(
            http, json={"question": NEXT_QUESTION, "thread_id": thread_id}
        )
        assert [e.type for e in events][-2:] == ["completed", "end"], events
        completed = events[-2].data
        assert completed["sql"] == DEFAULT_SALES_SQL
        assert completed["react_agent_meta"]["conversation_rounds"] == 2

        first_call = stub.requests[before]
        assert user_questions(first_call) == [HELD_QUESTION, NEXT_QUESTION]
        assert any("7 row(s)" in result for result in tool_results(first_call))
        for request in stub.requests[before:]:
            assert unanswered_tool_call_ids(request) == []

        assert await status() == "completed"
        after = await http.get(f"/api/v0/react/conversations/{thread_id}", params=params)
        shown = after.json()["data"]["messages"]
        assert [(m["role"], m.get("interrupted", False)) for m in shown] == [
            ("human", False),
            ("ai", True),
            ("human", False),
            ("ai", False),
        ]
        assert HELD_ANSWER not in str(shown)
