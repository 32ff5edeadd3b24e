"""Tests for the OpenAI stub server, driven through the real langchain-openai client."""

from __future__ import annotations

import asyncio
import json
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_openai import ChatOpenAI

from tests.support.openai_stub import (
    DEFAULT_SALES_SQL,
    OpenAIStub,
    Reply,
    ToolCall,
    default_policy,
)
from tests.support.waiting import eventually

REPO_ROOT = Path(__file__).resolve().parents[1]

AGENT_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "list_tables",
            "description": "List the tables in the database.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "describe_tables",
            "description": "Show the schema of some tables.",
            "parameters": {
                "type": "object",
                "properties": {"table_names": {"type": "array", "items": {"type": "string"}}},
                "required": ["table_names"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "check_sql",
            "description": "Validate a SQL query.",
            "parameters": {
                "type": "object",
                "properties": {"sql": {"type": "string"}},
                "required": ["sql"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "run_sql",
            "description": "Run a read-only SQL query.",
            "parameters": {
                "type": "object",
                "properties": {"sql": {"type": "string"}},
                "required": ["sql"],
            },
        },
    },
]


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def make_llm(stub: OpenAIStub, **kwargs: Any) -> ChatOpenAI:
    """Real ChatOpenAI pointed at the stub, without retries so errors surface at once."""
    kwargs.setdefault("max_retries", 0)
    return ChatOpenAI(base_url=stub.base_url, api_key="test", model="stub-model", **kwargs)


async def collect(llm: Any, prompt: Any) -> list[AIMessageChunk]:
    return [chunk async for chunk in llm.astream(prompt)]


def merge(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


@pytest.mark.asyncio
async def test_text_answer_non_streaming(stub: OpenAIStub) -> None:
    stub.script(Reply(text="你好，世界"))

    message = await make_llm(stub).ainvoke("hi")

    assert message.content == "你好，世界"
    assert message.response_metadata["finish_reason"] == "stop"
    assert message.usage_metadata is not None
    assert message.usage_metadata["total_tokens"] > 0
    (request,) = stub.requests
    assert request["model"] == "stub-model"
    assert request["messages"] == [{"role": "user", "content": "hi"}]
    assert not request.get("stream")


def test_sync_invoke(stub: OpenAIStub) -> None:
    stub.script(Reply(text="sync works"))

    assert make_llm(stub).invoke("hi").content == "sync works"


@pytest.mark.asyncio
async def test_astream_yields_text_chunks_in_order(stub: OpenAIStub) -> None:
    text = "The quick brown fox jumps"
    stub.script(Reply(text=text, chunk_size=5))

    chunks = await collect(make_llm(stub), "hi")

    pieces = [c.content for c in chunks if c.content]
    assert pieces == ["The q", "uick ", "brown", " fox ", "jumps"]
    merged = merge(chunks)
    assert merged.content == text
    assert merged.response_metadata["finish_reason"] == "stop"
    # langchain leaves stream_usage off for custom base URLs, so no usage is requested.
    assert "stream_options" not in stub.requests[0]
    assert merged.usage_metadata is None


@pytest.mark.asyncio
async def test_stream_chunks_arrive_before_the_response_ends(stub: OpenAIStub) -> None:
    gate = threading.Event()
    # Events: role chunk, "Hel", "lo " -> then the server blocks until the gate opens.
    stub.script(Reply(text="Hello world", chunk_size=3, pause_after=(3, gate)))
    seen: list[str] = []

    async def consume() -> None:
        async for chunk in make_llm(stub).astream("hi"):
            if chunk.content:
                seen.append(chunk.content)
                # Reaching here with the gate closed proves the client did not buffer the body.
                gate.set()

    async with asyncio.timeout(5):
        await consume()
    assert "".join(seen) == "Hello world"


@pytest.mark.asyncio
async def test_stream_usage_is_honoured(stub: OpenAIStub) -> None:
    stub.script(Reply(text="counted"))

    chunks = await collect(make_llm(stub, stream_usage=True), "hi")

    assert stub.requests[0]["stream_options"] == {"include_usage": True}
    usage = merge(chunks).usage_metadata
    assert usage is not None
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > 0


@pytest.mark.asyncio
async def test_tool_call_non_streaming(stub: OpenAIStub) -> None:
    stub.script(
        Reply(tool_calls=[ToolCall("describe_tables", {"table_names": ["orders"]}, id="call_1")])
    )

    message = await make_llm(stub).bind_tools(AGENT_TOOLS).ainvoke("which tables?")

    assert message.tool_calls == [
        {
            "name": "describe_tables",
            "args": {"table_names": ["orders"]},
            "id": "call_1",
            "type": "tool_call",
        }
    ]
    assert message.response_metadata["finish_reason"] == "tool_calls"


@pytest.mark.asyncio
async def test_tool_calls_streaming_are_assembled(stub: OpenAIStub) -> None:
    stub.script(
        Reply(
            text="Let me look.",
            tool_calls=[
                ToolCall("describe_tables", {"table_names": ["orders", "stores"]}),
                ToolCall("run_sql", {"sql": "SELECT COUNT(*) FROM orders"}),
            ],
            chunk_size=3,
        )
    )

    chunks = await collect(make_llm(stub).bind_tools(AGENT_TOOLS), "hi")

    merged = merge(chunks)
    assert merged.content == "Let me look."
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [
        ("describe_tables", {"table_names": ["orders", "stores"]}),
        ("run_sql", {"sql": "SELECT COUNT(*) FROM orders"}),
    ]
    assert all(c["id"].startswith("call_") for c in merged.tool_calls)
    assert merged.response_metadata["finish_reason"] == "tool_calls"
    # Arguments really arrived as many small deltas.
    assert sum(1 for c in chunks if c.tool_call_chunks) > 10


@pytest.mark.asyncio
async def test_malformed_tool_arguments_become_invalid_tool_calls(stub: OpenAIStub) -> None:
    stub.script(Reply(tool_calls=[ToolCall("run_sql", raw_arguments='{"sql": "SELE')]))

    message = await make_llm(stub).ainvoke("hi")

    assert message.tool_calls == []
    (invalid,) = message.invalid_tool_calls
    assert invalid["name"] == "run_sql"
    assert invalid["args"] == '{"sql": "SELE'


@pytest.mark.asyncio
async def test_bind_tools_request_records_tools(stub: OpenAIStub) -> None:
    stub.script(Reply(text="ok"))

    await make_llm(stub).bind_tools(AGENT_TOOLS).ainvoke("hi")

    tools = stub.requests[0]["tools"]
    assert [t["function"]["name"] for t in tools] == [
        "list_tables",
        "describe_tables",
        "check_sql",
        "run_sql",
    ]
    assert all(t["type"] == "function" for t in tools)


@pytest.mark.asyncio
async def test_server_error_surfaces_as_internal_server_error(stub: OpenAIStub) -> None:
    stub.script(Reply(status=500))

    with pytest.raises(openai.InternalServerError) as info:
        await make_llm(stub).ainvoke("hi")

    assert info.value.status_code == 500
    assert info.value.body["type"] == "server_error"


@pytest.mark.asyncio
async def test_custom_error_body_in_stream_request(stub: OpenAIStub) -> None:
    body = {"error": {"message": "overloaded", "type": "server_error", "code": None}}
    stub.script(Reply(status=503, error_body=body))

    with pytest.raises(openai.InternalServerError, match="overloaded"):
        await collect(make_llm(stub), "hi")


@pytest.mark.asyncio
async def test_rate_limit_surfaces_as_rate_limit_error(stub: OpenAIStub) -> None:
    stub.script(Reply(status=429, headers={"Retry-After": "1"}))

    with pytest.raises(openai.RateLimitError) as info:
        await make_llm(stub).ainvoke("hi")

    assert info.value.response.headers["retry-after"] == "1"
    assert len(stub.requests) == 1


@pytest.mark.asyncio
async def test_sdk_retries_after_rate_limit(stub: OpenAIStub) -> None:
    stub.script(Reply(status=429, headers={"Retry-After-Ms": "10"}), Reply(text="second try"))

    message = await make_llm(stub, max_retries=1).ainvoke("hi")

    assert message.content == "second try"
    assert len(stub.requests) == 2


@pytest.mark.asyncio
async def test_a_hang_the_client_gives_up_on_is_recorded_as_cancelled(stub: OpenAIStub) -> None:
    stub.script(Reply(hang=True), Reply(text="answered"))

    with pytest.raises(openai.APITimeoutError):
        await make_llm(stub, timeout=0.5).ainvoke("hi")
    answered = await make_llm(stub).ainvoke("again")

    assert await asyncio.to_thread(stub.wait_until_cancelled, 0, 10)
    assert answered.content == "answered"
    assert stub.cancelled == [0]  # the answered request is not


@pytest.mark.asyncio
async def test_a_client_that_leaves_mid_stream_is_recorded_as_cancelled(stub: OpenAIStub) -> None:
    gate = threading.Event()  # never set: the stream stalls after two deltas
    stub.script(Reply(text="never finished", pause_after=(3, gate)))

    seen: list[str] = []
    async with asyncio.timeout(10), aclosing(make_llm(stub).astream("hi")) as chunks:
        async for chunk in chunks:
            seen.append(chunk.content)
            if "".join(seen) == "never fi":  # the two deltas before the stall
                break

    assert await asyncio.to_thread(stub.wait_until_cancelled, 0, 10)


@pytest.mark.asyncio
async def test_stop_releases_a_hanging_reply_and_ends_its_threads() -> None:
    before = set(threading.enumerate())
    stub = OpenAIStub().start()
    try:
        stub.script(Reply(hang=True))
        request = asyncio.create_task(make_llm(stub, timeout=60).ainvoke("hi"))
        assert await eventually(lambda: len(stub.requests) == 1)
        threads = [
            t for t in threading.enumerate() if t not in before and t.name.startswith("openai-")
        ]
        assert {t.name for t in threads} == {"openai-stub-server", "openai-stub-connection"}
    finally:
        await asyncio.to_thread(stub.stop)

    # stop() joins what it started (bounded, but a held reply must not need the bound).
    assert not [t.name for t in threads if t.is_alive()]
    async with asyncio.timeout(10):
        with pytest.raises(openai.APIConnectionError):
            await request
    assert stub.cancelled == []  # the stub cut it, the client did not leave


@pytest.mark.asyncio
async def test_dropped_stream_raises(stub: OpenAIStub) -> None:
    stub.script(Reply(text="this answer never finishes", drop_after_chunks=3))
    seen: list[str] = []

    with pytest.raises(openai.APIConnectionError):
        async for chunk in make_llm(stub).astream("hi"):
            seen.append(chunk.content)

    # The role chunk plus two text deltas got through before the cut.
    assert "".join(seen) == "this ans"


@pytest.mark.asyncio
async def test_dropped_non_streamed_answer_raises(stub: OpenAIStub) -> None:
    stub.script(Reply(text="this answer is cut in half", drop_after_chunks=0))

    with pytest.raises(openai.APIConnectionError):
        await make_llm(stub).ainvoke("hi")


@pytest.mark.asyncio
async def test_wait_for_holds_the_answer_until_released(stub: OpenAIStub) -> None:
    arrived, gate = threading.Event(), threading.Event()

    def policy(body: dict[str, Any]) -> Reply:
        arrived.set()
        return Reply(text="released", wait_for=gate)

    stub.default_policy = policy
    async with asyncio.timeout(5):
        task = asyncio.create_task(make_llm(stub).ainvoke("hi"))
        assert await asyncio.to_thread(arrived.wait, 5)
        assert not task.done()
        gate.set()
        assert (await task).content == "released"


@pytest.mark.asyncio
async def test_default_policy_runs_sql_for_a_question(stub: OpenAIStub) -> None:
    message = await make_llm(stub).bind_tools(AGENT_TOOLS).ainvoke("各地区销售额是多少？")

    (call,) = message.tool_calls
    assert call["name"] == "run_sql"
    assert call["args"] == {"sql": DEFAULT_SALES_SQL}


@pytest.mark.asyncio
async def test_default_policy_answers_a_tool_result_in_chinese(stub: OpenAIStub) -> None:
    rows = json.dumps([{"region": "华东", "sales": 123.45}] * 40, ensure_ascii=False)
    history = [
        HumanMessage("各地区销售额是多少？"),
        AIMessage(
            "",
            tool_calls=[{"name": "run_sql", "args": {"sql": DEFAULT_SALES_SQL}, "id": "call_9"}],
        ),
        ToolMessage(rows, tool_call_id="call_9"),
    ]

    chunks = await collect(make_llm(stub).bind_tools(AGENT_TOOLS), history)

    merged = merge(chunks)
    assert merged.tool_calls == []
    assert merged.content == "查询结果如下：" + rows[:300]


@pytest.mark.asyncio
async def test_default_policy_no_sql_marker_answers_directly(stub: OpenAIStub) -> None:
    message = await make_llm(stub).bind_tools(AGENT_TOOLS).ainvoke("你好 [[no-sql]]")

    assert message.tool_calls == []
    assert isinstance(message.content, str)
    assert message.content


def test_default_policy_handles_content_parts() -> None:
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": "x [[no-sql]]"}]}]}

    assert default_policy(body).tool_calls == []


@pytest.mark.asyncio
async def test_default_policy_is_replaceable(stub: OpenAIStub) -> None:
    stub.default_policy = lambda body: Reply(text=f"{len(body['messages'])} message(s)")

    assert (await make_llm(stub).ainvoke("hi")).content == "1 message(s)"


@pytest.mark.asyncio
async def test_concurrent_requests(stub: OpenAIStub) -> None:
    llm = make_llm(stub)

    answers = await asyncio.gather(*(llm.ainvoke(f"q{i} [[no-sql]]") for i in range(8)))

    assert len(answers) == 8
    assert len(stub.requests) == 8


@pytest.mark.asyncio
async def test_models_404_and_keep_alive(stub: OpenAIStub) -> None:
    async with httpx.AsyncClient(base_url=stub.base_url) as client:
        models = await client.get("/models")
        missing = await client.post("/responses", json={})
        bad = await client.post("/chat/completions", content=b"{not json")

    assert models.status_code == 200
    assert models.json()["data"][0]["id"] == "stub-model"
    assert models.http_version == "HTTP/1.1"
    assert "close" not in models.headers.get("connection", "")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    assert bad.status_code == 400
    assert stub.requests == []


@pytest.mark.asyncio
async def test_latency_is_added_to_every_response() -> None:
    with OpenAIStub(latency=0.1) as stub:
        started = time.monotonic()
        await make_llm(stub).ainvoke("hi [[no-sql]]")
        assert time.monotonic() - started >= 0.1


def test_script_clear_and_requests(stub: OpenAIStub) -> None:
    stub.script(Reply(text="never used"))
    stub.clear()

    answer = make_llm(stub).invoke("hi [[no-sql]]")

    assert answer.content != "never used"
    assert len(stub.requests) == 1
    stub.clear()
    assert stub.requests == []


def test_non_loopback_host_is_refused() -> None:
    with pytest.raises(ValueError, match="loopback"):
        OpenAIStub(host="0.0.0.0")


def run_cli(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_stub", *args],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_cli_prints_url_and_serves() -> None:
    proc = run_cli("--port", "0", "--latency-ms", "1")
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        assert ready, "stub CLI did not print its URL in time"
        line = proc.stdout.readline().strip()
        assert line.startswith("OPENAI_BASE_URL=http://127.0.0.1:")
        base_url = line.removeprefix("OPENAI_BASE_URL=")

        models = httpx.get(f"{base_url}/models", timeout=5)
        assert models.status_code == 200
        completion = httpx.post(
            f"{base_url}/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "问题"}]},
            timeout=5,
        )
        (call,) = completion.json()["choices"][0]["message"]["tool_calls"]
        assert call["function"]["name"] == "run_sql"
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=5)
    assert proc.returncode == 0
    assert "Traceback" not in stderr


def test_cli_refuses_non_loopback_host() -> None:
    proc = run_cli("--host", "0.0.0.0")
    _, stderr = proc.communicate(timeout=10)

    assert proc.returncode == 2
    assert "loopback" in stderr
