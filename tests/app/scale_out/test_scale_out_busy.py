"""on_busy across two workers sharing PostgreSQL: reject, enqueue and interrupt, sync and stream."""

from __future__ import annotations

import asyncio
import threading
import uuid
from contextlib import AsyncExitStack

import httpx

from tests.app.scale_out.test_scale_out_streams import RawEvent, raw_events, read_until, two_workers
from tests.support.openai_stub import OpenAIStub, Reply
from tests.support.sse import STREAM_PATH
from tests.support.waiting import eventually

ASK = "/api/v0/ask_react_agent"


async def test_on_busy_rejects_enqueues_or_interrupts_a_question_running_on_another_worker(
    postgres_database, tmp_path
):
    thread_id = f"busy:{uuid.uuid4().hex[:12]}"
    gates = [threading.Event() for _ in range(3)]
    with OpenAIStub() as stub:
        async with AsyncExitStack() as stack:
            for gate in gates:
                stack.callback(gate.set)
            one, two = await two_workers(stack, stub, postgres_database, tmp_path)
            http = await stack.enter_async_context(httpx.AsyncClient(timeout=120))

            def ask(worker, on_busy: str, question: str):
                body = {"question": question, "thread_id": thread_id, "on_busy": on_busy}
                return http.post(f"{worker.base_url}{ASK}", json=body)

            def stream(worker, on_busy: str, question: str):
                body = {"question": question, "thread_id": thread_id, "on_busy": on_busy}
                return raw_events(http, f"{worker.base_url}{STREAM_PATH}", json=body)

            async def hold(worker, gate: threading.Event, text: str):
                """Start a stream on `worker` whose model call the stub holds."""
                stub.script(Reply(text=text, wait_for=gate))
                calls = len(stub.requests)
                events = stream(worker, "reject", "held")
                await read_until(events, '"node":"trim_messages"')
                assert await eventually(lambda: len(stub.requests) == calls + 1, 60)
                return events

            # reject (the default): 409 on the sync call, an error event on the stream.
            held = await hold(one, gates[0], "A")
            refused = await ask(two, "reject", "again")
            assert refused.status_code == 409
            assert refused.json()["data"]["error_type"] == "THREAD_BUSY"
            refused_stream = [e async for e in stream(two, "reject", "again")]
            assert "THREAD_BUSY" in refused_stream[0].data

            # enqueue: both wait (the stream says so), then run after the held question.
            stub.script(Reply(text="B"), Reply(text="C"))
            waiting_stream = stream(two, "enqueue", "B?")
            shown = await read_until(waiting_stream, '"node":"__queued__"')
            assert [_type(e) for e in shown] == ["started", "progress"]
            waiting_sync = asyncio.create_task(ask(one, "enqueue", "C?"))
            gates[0].set()
            first = [e async for e in held]
            assert "completed" in first[-2].data and '"response":"A"' in first[-2].data
            rest = [e async for e in waiting_stream]
            assert [_type(e) for e in rest][-2:] == ["completed", "end"]
            assert (await waiting_sync).status_code == 200

            # interrupt: the held question ends with RUN_INTERRUPTED, the new one answers.
            for gate, newcomer in ((gates[1], "sync"), (gates[2], "stream")):
                held = await hold(one, gate, "never")
                stub.script(Reply(text="E"))
                if newcomer == "sync":
                    answered = asyncio.create_task(ask(two, "interrupt", "E?"))
                else:
                    answered = asyncio.create_task(_collect(stream(two, "interrupt", "E?")))
                cut = [e async for e in held]
                gate.set()  # frees the stub's handler; its client is gone
                assert "RUN_INTERRUPTED" in cut[-2].data and _type(cut[-1]) == "end"
                result = await answered
                if newcomer == "sync":
                    assert result.status_code == 200 and result.json()["data"]["response"] == "E"
                else:
                    assert [_type(e) for e in result][-2:] == ["completed", "end"]
                    assert '"response":"E"' in result[-2].data


def _type(event: RawEvent) -> str:
    return event.data.split('"type":"', 1)[1].split('"', 1)[0]


async def _collect(events) -> list[RawEvent]:
    return [event async for event in events]
