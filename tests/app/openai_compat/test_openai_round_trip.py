"""The real ChatOpenAI path: the service over Hypercorn, its model on the suite's stub server."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import SAMPLE_QUESTION
from tests.support.live_server import running_service
from tests.support.openai_stub import DEFAULT_SALES_SQL, Reply, ToolCall
from tests.support.sse import collect_stream


@pytest.fixture
def llm_settings(stub_settings):
    """Return the stub-LLM settings (ChatOpenAI on the suite's server)."""
    return stub_settings


async def test_sync_question_gets_answer_sql_and_rows_through_chat_openai(llm_settings, stub):
    async with running_service(llm_settings) as service:
        status, body = await service.ask(question=SAMPLE_QUESTION, user_id="wang1")

    assert status == 200, body
    data = body["data"]
    assert data["sql"] == DEFAULT_SALES_SQL
    assert data["records"]["columns"] == ["region", "sales"]
    assert data["records"]["total_row_count"] == 7 == len(data["records"]["rows"])
    assert data["response"].startswith("查询结果如下") and "华东" in data["response"]
    first, second = stub.requests
    assert first["model"] == "stub-model"
    assert {tool["function"]["name"] for tool in first["tools"]} == {
        "list_tables",
        "describe_tables",
        "run_sql",  # check_sql only for runs that ask for approval (SQL_CHECK_TOOL)
        "search_schema",  # the schema is in the prompt (SCHEMA_PROMPT_BUDGET)
        "read_result",
        "search_examples",
        "search_history",
        "read_history",
        "list_history",
        "delegate",  # sub-agents (react_agent/subagents), on unless SUBAGENTS=off
    }
    assert first["messages"][0]["role"] == "system"
    assert first["messages"][-1] == {"role": "user", "content": SAMPLE_QUESTION}
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and "7 row(s)" in tool_message["content"]


async def test_streamed_question_uses_streaming_completions_and_streams_tokens(llm_settings, stub):
    async with running_service(llm_settings) as service:
        events = await collect_stream(
            service.http, json={"question": SAMPLE_QUESTION, "stream_tokens": True}
        )

    assert all(request.get("stream") is True for request in stub.requests)
    completed = next(e.data for e in events if e.type == "completed")
    tokens = "".join(e.data["content"] for e in events if e.type == "token")
    assert tokens == completed["response"] and len(tokens) > 20
    assert completed["sql"] == DEFAULT_SALES_SQL
    tools = next(e.data for e in events if e.type == "progress" and e.data["node"] == "tools")
    assert tools["tool_name"] == "run_sql"


async def test_tool_call_arguments_streamed_in_pieces_are_reassembled(llm_settings, stub):
    sql = "SELECT COUNT(*) AS n FROM orders WHERE status = '已完成'"
    stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": sql})], chunk_size=3),
        Reply(text="已完成的订单共有这么多。"),
    )
    async with running_service(llm_settings) as service:
        events = await collect_stream(service.http, json={"question": "q", "stream_tokens": True})
    completed = next(e.data for e in events if e.type == "completed")
    assert completed["sql"] == sql and completed["records"]["rows"][0]["n"] > 3000


async def test_llm_server_error_is_a_retryable_503(llm_settings, stub):
    stub.script(Reply(status=500))
    async with running_service(llm_settings) as service:
        status, body = await service.ask(question="q")
    assert status == 503 and body["data"]["error_type"] == "LLM_UNAVAILABLE"
    assert body["data"]["can_retry"] is True


async def test_llm_that_never_answers_ends_by_llm_timeout_as_504(llm_settings, stub):
    # The hung call can only end by LLM_TIMEOUT (the client's own 30 s timeout is the hang
    # guard); the stub's answers to the next question come at once, far within it.
    stub.script(Reply(hang=True))
    quick = llm_settings.model_copy(update={"llm_timeout": 1.0})
    async with running_service(quick) as service:
        status, body = await service.ask(question="q")
        # The service closed the hung request rather than leaving it open.
        assert await asyncio.to_thread(stub.wait_until_cancelled, 0, 30)
        # The same thread answers the next question (the stub's default policy).
        thread_id = body["data"]["conversation_id"]
        again_status, _ = await service.ask(question="again", thread_id=thread_id)
    assert status == 504 and body["data"]["error_type"] == "LLM_TIMEOUT"
    assert again_status == 200
