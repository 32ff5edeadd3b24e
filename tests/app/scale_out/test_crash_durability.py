"""What a `kill -9` mid-run loses under each CHECKPOINT_DURABILITY, and that the thread lives on.

The run is held at its second model call (after run_sql ran), then the service process
is killed with SIGKILL and restarted on the same SQLite file:

- `sync` keeps every step that finished before the one running at the kill: the
  question, the tool call and its result are there, the turn shows as interrupted, and
  the next question closes it and answers. `async` writes a step while the next one
  runs, so a kill can still find the last one in flight: the test waits until the service
  reads it back before killing, and then the same holds.
- `exit` writes once, when the run ends: the held question leaves nothing at all; the
  thread is as it was before that question, and it answers again.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.support.held_runs import (
    HELD_QUESTION,
    NEXT_QUESTION,
    ask_held_question,
    read_until_held,
    script_held_question,
    service_env,
    start_service,
)
from tests.support.openai_stub import OpenAIStub, Reply
from tests.support.service_process import stop_process
from tests.support.sse import collect_stream, open_stream

FIRST_QUESTION = "你好"
FIRST_ANSWER = "你好！"


async def _kill_while_held(
    env: dict[str, str],
    tmp_path: Path,
    stub: OpenAIStub,
    thread_id: str,
    *,
    after_written: bool = False,
):
    """Ask a finished first question, then the held one; SIGKILL the service mid-run.

    With `after_written`, the kill waits until the service reads back the held question's
    tool result (asynchronous checkpoint writes may still be in flight when it is held).
    """
    gate = threading.Event()
    service = await start_service(env, tmp_path)
    try:
        async with httpx.AsyncClient(base_url=service.base_url, timeout=30) as http:
            stub.script(Reply(text=FIRST_ANSWER))
            first = await collect_stream(
                http, json={"question": FIRST_QUESTION, "thread_id": thread_id}
            )
            assert [e.type for e in first][-2:] == ["completed", "end"], first
            script_held_question(stub, gate)
            async with open_stream(http, **ask_held_question(thread_id)) as (_, events):
                await read_until_held(events, stub)
                if after_written:
                    await _until_written(http, thread_id, deadline=time.monotonic() + 60)
                service.process.kill()  # SIGKILL: no drain, no cleanup
                assert service.process.wait(10) == -9
    finally:
        gate.set()  # frees the stub's handler thread; its client is gone
        stop_process(service.process)


@pytest.mark.parametrize("durability", ["sync", "async"])
async def test_sync_and_async_keep_the_finished_steps_and_the_thread_recovers(
    stub, tmp_path, durability
):
    thread_id = f"durable:{uuid.uuid4().hex[:12]}"
    checkpoint_url = f"sqlite:///{tmp_path / 'conversations.db'}"
    env = service_env(stub, checkpoint_url, CHECKPOINT_DURABILITY=durability)
    await _kill_while_held(env, tmp_path, stub, thread_id, after_written=durability == "async")

    restarted = await start_service(env, tmp_path)
    try:
        async with httpx.AsyncClient(base_url=restarted.base_url, timeout=30) as http:
            # The first turn whole; of the held one, the question, the tool call, its result.
            assert await _messages(http, thread_id, include_tools=True) == [
                ("human", FIRST_QUESTION, False),
                ("ai", FIRST_ANSWER, False),
                ("human", HELD_QUESTION, False),
                ("ai", "", False),
                ("tool", "run_sql", False),
            ]
            assert await _status(http, thread_id) == "interrupted"
            await _ask_next(http, thread_id, rounds=3)
            assert await _messages(http, thread_id) == [
                ("human", FIRST_QUESTION, False),
                ("ai", FIRST_ANSWER, False),
                ("human", HELD_QUESTION, False),
                ("ai", None, True),  # the turn repair's closing answer, marked interrupted
                ("human", NEXT_QUESTION, False),
                ("ai", None, False),
            ]
    finally:
        stop_process(restarted.process)


async def test_exit_loses_the_whole_interrupted_question_and_the_thread_answers_again(
    stub, tmp_path
):
    thread_id = f"durable:{uuid.uuid4().hex[:12]}"
    checkpoint_url = f"sqlite:///{tmp_path / 'conversations.db'}"
    env = service_env(stub, checkpoint_url, CHECKPOINT_DURABILITY="exit")
    await _kill_while_held(env, tmp_path, stub, thread_id)

    restarted = await start_service(env, tmp_path)
    try:
        async with httpx.AsyncClient(base_url=restarted.base_url, timeout=30) as http:
            # Nothing of the held question was written, not even the question.
            assert await _messages(http, thread_id, include_tools=True) == [
                ("human", FIRST_QUESTION, False),
                ("ai", FIRST_ANSWER, False),
            ]
            assert await _status(http, thread_id) == "completed"
            await _ask_next(http, thread_id, rounds=2)
            assert await _messages(http, thread_id) == [
                ("human", FIRST_QUESTION, False),
                ("ai", FIRST_ANSWER, False),
                ("human", NEXT_QUESTION, False),
                ("ai", None, False),
            ]
    finally:
        stop_process(restarted.process)


async def _messages(
    http: httpx.AsyncClient, thread_id: str, *, include_tools: bool = False
) -> list[tuple[str, str | None, bool]]:
    """Return (role, text, interrupted) of the thread's messages.

    A tool message's text is its tool's name; an answer given after the restart is None.
    """
    params = {"user_id": "durable", "include_tools": str(include_tools).lower()}
    response = await http.get(f"/api/v0/react/conversations/{thread_id}", params=params)
    assert response.status_code == 200, response.text
    shown = []
    for m in response.json()["data"]["messages"]:
        text = m.get("tool_name") if m["role"] == "tool" else m["content"]
        if m["role"] == "ai" and text not in (FIRST_ANSWER, ""):
            text = None
        shown.append((m["role"], text, m.get("interrupted", False)))
    return shown


async def _until_written(http: httpx.AsyncClient, thread_id: str, *, deadline: float) -> None:
    """Return once the thread's checkpoints hold the held question's run_sql result."""
    while ("tool", "run_sql", False) not in await _messages(http, thread_id, include_tools=True):
        assert time.monotonic() < deadline, "the run_sql step was never written"
        await asyncio.sleep(0.05)


async def _status(http: httpx.AsyncClient, thread_id: str) -> str:
    response = await http.get(f"/api/v0/react/status/{thread_id}", params={"user_id": "durable"})
    return response.json()["data"]["status"]


async def _ask_next(http: httpx.AsyncClient, thread_id: str, *, rounds: int) -> None:
    events = await collect_stream(http, json={"question": NEXT_QUESTION, "thread_id": thread_id})
    assert [e.type for e in events][-2:] == ["completed", "end"], events
    assert events[-2].data["react_agent_meta"]["conversation_rounds"] == rounds
