"""The OpenAI-compatible API, driven by the official `openai` client over real HTTP."""

from __future__ import annotations

import asyncio
import re
from urllib.parse import unquote

import httpx
import openai
import pytest

from tests.support.scripted_model import answer, call_tool

REGION_SQL = (
    "SELECT r.region_name AS region, COUNT(*) AS stores FROM stores s "
    "JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name"
)
MODEL = "sql-react-agent"


def sql_script(text: str = "七个地区都有门店。") -> list:
    return [call_tool("run_sql", sql=REGION_SQL), answer(text)]


def async_client(service, **options) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=f"{service.base_url}/v1", api_key="unused", max_retries=0, **options
    )


def sync_client(service) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{service.base_url}/v1", api_key="unused", max_retries=0)


async def test_models_lists_the_agent_as_the_only_model(service):
    models = await async_client(service).models.list()
    assert [m.id for m in models.data] == [MODEL]


async def test_async_completion_has_the_answer_sql_table_and_steps(service, model):
    model.replies = sql_script()
    raw = await async_client(service).chat.completions.with_raw_response.create(
        model=MODEL, messages=[{"role": "user", "content": "每个地区有几家门店"}], user="wang1"
    )
    completion = raw.parse()
    conversation_id = raw.headers["x-conversation-id"]
    assert re.fullmatch(r"wang1:\d{17}", conversation_id)
    assert completion.model_extra["conversation_id"] == conversation_id
    content = completion.choices[0].message.content
    assert content.startswith("七个地区都有门店。")
    assert f"```sql\n{REGION_SQL}\n```" in content
    table = [line for line in content.splitlines() if line.startswith("|")]
    assert table[0] == "| region | stores |" and len(table) == 2 + 7
    reasoning = completion.choices[0].message.model_extra["reasoning_content"].splitlines()
    assert reasoning[:3] == ["📝 准备中", "🤖 AI思考中", "🔧 准备工具"]
    assert "⚙️ 执行查询 run_sql" in reasoning
    assert completion.choices[0].finish_reason == "stop"


async def test_async_stream_sends_steps_then_answer_then_the_conversation_id(service, model):
    model.replies = sql_script()
    stream = await async_client(service).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "门店"}], stream=True
    )
    chunks = [chunk async for chunk in stream]
    deltas = [chunk.choices[0].delta for chunk in chunks]
    reasoning = [d.model_extra.get("reasoning_content") for d in deltas]
    steps = [r for r in reasoning if r]
    assert steps[1] == "🤖 AI思考中\n" and "⚙️ 执行查询 run_sql\n" in steps
    content = "".join(d.content or "" for d in deltas)
    assert content.startswith("七个地区都有门店。") and "```sql" in content
    # Every step comes before the answer.
    first_content = next(i for i, d in enumerate(deltas) if d.content)
    assert all(not r for r in reasoning[first_content:])
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert re.fullmatch(r"guest:\d{17}", chunks[-1].model_extra["conversation_id"])


async def test_sync_client_in_a_thread_continues_the_conversation_it_was_given(service, model):
    model.replies = [answer("一"), answer("二")]

    def ask_both() -> tuple[str, str, str]:
        client = sync_client(service)
        whole = client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "第一"}], user="li"
        )
        conversation_id = whole.model_extra["conversation_id"]
        streamed = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "第二"}],
            stream=True,
            extra_headers={"X-Conversation-Id": conversation_id},
        )
        text = "".join(chunk.choices[0].delta.content or "" for chunk in streamed)
        return conversation_id, whole.choices[0].message.content, text

    conversation_id, first, second = await asyncio.to_thread(ask_both)
    assert (first, second) == ("一", "二")
    # The second question was asked in the same conversation: the model saw the first.
    assert "第一" in str(model.seen[1]) and conversation_id.startswith("li:")


async def test_errors_come_in_openai_format_with_the_right_status(service, model):
    client = async_client(service)
    with pytest.raises(openai.NotFoundError) as not_found:
        await client.chat.completions.create(
            model="gpt-4", messages=[{"role": "user", "content": "q"}]
        )
    assert not_found.value.body["code"] == "model_not_found"
    with pytest.raises(openai.BadRequestError) as too_long:
        await client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "长" * 2001}]
        )
    assert too_long.value.body["code"] == "question_too_long"
    with pytest.raises(openai.BadRequestError) as no_question:
        await client.chat.completions.create(
            model=MODEL, messages=[{"role": "system", "content": "be brief"}]
        )
    assert no_question.value.body["type"] == "invalid_request_error"
    with pytest.raises(openai.BadRequestError) as mismatch:
        await client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "q"}],
            user="bob",
            metadata={"conversation_id": "alice:20250101000000000"},
        )
    assert mismatch.value.body["code"] == "thread_ownership_mismatch"
    response = await service.http.post("/v1/chat/completions", content=b"{")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_json"


async def test_a_failing_run_ends_the_stream_with_an_error_the_client_raises(service, model):
    model.replies = [RuntimeError("model exploded")]
    stream = await async_client(service).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "q"}], stream=True
    )
    with pytest.raises(openai.APIError, match="model exploded"):
        async for _ in stream:
            pass


async def test_client_disconnect_cancels_the_streamed_run(service, model):
    entered = asyncio.Event()
    model.replies = [answer("never sent")]
    model.gates[0], model.entered[0] = asyncio.Event(), entered  # never released
    thread = "zhao:20250101000000000"
    async with httpx.AsyncClient(base_url=service.base_url, timeout=30) as http:
        async with http.stream(
            "POST",
            "/v1/chat/completions",
            json={"messages": [{"role": "user", "content": "q"}], "stream": True},
            headers={"X-Conversation-Id": thread},
        ) as response:
            assert response.status_code == 200
            await entered.wait()
            run = service.app.extensions["agent"].runner.active[thread]
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(run.task, 10)
    assert run.events[-1].error.error_type == "RUN_CANCELLED"


async def test_a_non_ascii_user_id_round_trips_in_the_conversation_header(service, model):
    model.replies = [answer("一"), answer("二")]
    client = async_client(service)
    first = await client.chat.completions.with_raw_response.create(
        model=MODEL, messages=[{"role": "user", "content": "第一"}], user="王五"
    )
    header = first.headers["x-conversation-id"]
    assert first.parse().model_extra["conversation_id"] == unquote(header)
    assert unquote(header).startswith("王五:")
    second = await client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "第二"}],
        extra_headers={"X-Conversation-Id": header},
    )
    assert second.model_extra["conversation_id"] == unquote(header)


async def test_client_disconnect_cancels_a_non_streamed_run(service, model):
    entered = asyncio.Event()
    model.replies = [answer("never sent")]
    model.gates[0], model.entered[0] = asyncio.Event(), entered  # never released
    thread = "qian:20250101000000000"
    request = asyncio.create_task(
        service.http.post(
            "/v1/chat/completions",
            json={"messages": [{"role": "user", "content": "q"}]},
            headers={"X-Conversation-Id": thread},
        )
    )
    await entered.wait()
    run = service.app.extensions["agent"].runner.active[thread]
    request.cancel()  # closes the connection
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(run.task, 10)
    assert run.events[-1].error.error_type == "RUN_CANCELLED"
