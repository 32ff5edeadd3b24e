"""The stream as NDJSON over real HTTP, read with a line reader like a fetch() client."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool
from tests.support.sse import STREAM_PATH, collect_stream

NDJSON = "application/x-ndjson"
COUNT_SQL = "SELECT COUNT(*) AS n FROM regions"
THREAD = "ning:20250131103000001"


@asynccontextmanager
async def open_ndjson(
    http: httpx.AsyncClient, method: str = "POST", **request: Any
) -> AsyncIterator[tuple[httpx.Response, AsyncIterator[dict[str, Any]]]]:
    """Open the stream asking for NDJSON; yield the response and its parsed lines."""
    headers = {"Accept": NDJSON, **request.pop("headers", {})}
    async with http.stream(method, STREAM_PATH, headers=headers, **request) as response:

        async def lines() -> AsyncIterator[dict[str, Any]]:
            async for line in response.aiter_lines():
                if line:
                    yield json.loads(line)

        yield response, lines()


async def read_ndjson(http: httpx.AsyncClient, method: str = "POST", **request: Any) -> list:
    """Read an NDJSON stream to its end; return its lines, parsed."""
    async with open_ndjson(http, method, **request) as (response, lines):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith(NDJSON)
        return [line async for line in lines]


async def test_ndjson_sends_the_same_envelopes_as_sse_one_per_line(service, model):
    model.replies = [call_tool("run_sql", sql=COUNT_SQL), answer("七个。")] * 2
    body = {"question": "q", "stream_tools": True}
    lines = await read_ndjson(service.http, json=body)
    sse = await collect_stream(service.http, json=body)

    assert [line["data"]["type"] for line in lines] == [event.type for event in sse]
    assert lines[0]["message"] == "任务已启动" and lines[-1]["data"]["type"] == "end"
    run_id = lines[0]["id"].split(":")[0]
    assert [line["id"] for line in lines] == [f"{run_id}:{n}" for n in range(1, len(lines) + 1)]
    completed = next(line["data"] for line in lines if line["data"]["type"] == "completed")
    assert completed["records"]["rows"] == [{"n": 7}]
    assert {"tool_call", "tool_result"} <= {line["data"]["type"] for line in lines}


async def test_get_with_format_ndjson_streams_lines_and_errors_are_lines_too(service, model):
    model.replies = [answer("好的")]
    async with service.http.stream(
        "GET", STREAM_PATH, params={"question": "q", "format": "ndjson"}
    ) as response:
        assert response.headers["content-type"].startswith(NDJSON)
        lines = [json.loads(line) async for line in response.aiter_lines() if line]
    refused = await read_ndjson(service.http, "GET", params={"question": " ", "format": "ndjson"})

    assert lines[-2]["data"]["response"] == "好的" and lines[-1]["data"]["type"] == "end"
    assert [line["data"]["type"] for line in refused] == ["error", "end"]
    assert refused[0]["data"]["error_type"] == "QUESTION_REQUIRED" and refused[0]["code"] == 400


async def test_idle_ndjson_stream_sends_ping_lines(settings):
    model = ScriptedChatModel(replies=[answer("late")])
    gate = asyncio.Event()
    model.gates[0] = gate
    quick = settings.model_copy(update={"stream_heartbeat": 0.05})
    async with running_service(quick, model=model) as svc:
        pings = 0
        lines = []
        async with open_ndjson(svc.http, json={"question": "q"}) as (_, stream):
            async for line in stream:
                lines.append(line)
                pings += line == {"type": "ping"}
                if pings == 3:
                    gate.set()
    assert pings >= 3 and lines[-1]["data"]["type"] == "end"


async def test_ndjson_client_disconnect_cancels_the_run(service, model):
    model.replies = [answer("never sent"), answer("next one works")]
    entered = asyncio.Event()
    model.gates[0], model.entered[0] = asyncio.Event(), entered  # never released
    async with open_ndjson(service.http, json={"question": "q", "thread_id": THREAD}) as (
        _,
        lines,
    ):
        assert (await anext(lines))["data"]["type"] == "started"
        await entered.wait()
        run = service.app.extensions["agent"].runner.active[THREAD]
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(run.task, 10)
    assert run.events[-1].error.error_type == "RUN_CANCELLED"


async def test_ndjson_resume_with_last_event_id_sends_the_rest_once(settings):
    model = ScriptedChatModel(replies=[call_tool("run_sql", sql=COUNT_SQL), answer("七个。")])
    gate, entered = asyncio.Event(), asyncio.Event()
    model.gates[1], model.entered[1] = gate, entered
    lenient = settings.model_copy(update={"stream_resume_grace": 30.0})
    async with running_service(lenient, model=model) as svc:
        body = {"question": "q", "stream_tools": True}
        async with open_ndjson(svc.http, json=body) as (_, lines):
            first = [await anext(lines), await anext(lines)]
            await entered.wait()
        resume = {"Last-Event-ID": first[-1]["id"]}
        async with open_ndjson(svc.http, "GET", headers=resume) as (response, lines):
            assert response.status_code == 200
            gate.set()
            rest = [line async for line in lines]

    every = first + rest
    assert [int(line["id"].split(":")[1]) for line in every] == list(range(1, len(every) + 1))
    types = [line["data"]["type"] for line in every]
    assert types.count("tool_call") == types.count("tool_result") == 1
    assert types.count("started") == 1 and types[-1] == "end" and len(model.seen) == 2
