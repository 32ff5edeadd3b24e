"""The service's ChatOpenAI sends the very request body plain ChatOpenAI sends."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from config import Settings
from react_agent.graph.llm import ServiceChatOpenAI, build_chat_model
from react_agent.history.tools import build_history_tools
from tests.support.openai_stub import OpenAIStub, Reply, ToolCall


@tool
def top_regions(metric: Literal["sales", "orders"], limit: int = 5, names: list[str] | None = None):
    """Return the top regions by a metric (a tool with an enum, a default and an optional list)."""
    return metric


CONVERSATION = [
    SystemMessage("你是数据助手。"),
    HumanMessage("每个地区的销售额是多少"),
    AIMessage(
        "",
        tool_calls=[{"name": "top_regions", "args": {"metric": "sales"}, "id": "call_1"}],
    ),
    ToolMessage('{"华东": 1200.5}', tool_call_id="call_1", name="top_regions"),
]


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def _models(stub: OpenAIStub, settings: Settings) -> tuple[ChatOpenAI, ChatOpenAI]:
    settings = settings.model_copy(
        update={
            "openai_base_url": stub.base_url,
            "openai_api_key": SecretStr("test-key"),
            "llm_model": "stub-model",
            "llm_max_retries": 0,
        }
    )
    ours = build_chat_model(settings)
    plain = ChatOpenAI(
        model=ours.model_name,
        api_key=SecretStr("test-key"),
        base_url=stub.base_url,
        temperature=ours.temperature,
        max_tokens=ours.max_tokens,
        max_retries=0,
        stream_usage=True,
    )
    return ours, plain


@pytest.mark.parametrize("streamed", [False, True])
async def test_the_request_body_is_the_one_plain_chatopenai_sends(
    stub: OpenAIStub, settings: Settings, streamed: bool
):
    ours, plain = _models(stub, settings)
    assert isinstance(ours, ServiceChatOpenAI)
    tools = [top_regions, *build_history_tools("sqlite")]
    for model in (plain, ours):
        stub.script(Reply(tool_calls=[ToolCall(name="top_regions", args={"metric": "orders"})]))
        bound = model.bind_tools(tools)
        if streamed:
            chunks = [chunk async for chunk in bound.astream(CONVERSATION)]
            reply = chunks[0]
            for chunk in chunks[1:]:
                reply += chunk
        else:
            reply = await bound.ainvoke(CONVERSATION)
        assert reply.tool_calls[0]["args"] == {"metric": "orders"}
    theirs_body, ours_body = stub.requests
    assert len(theirs_body["tools"]) == len(tools)
    assert theirs_body["messages"][2]["tool_calls"][0]["function"]["name"] == "top_regions"
    # The one addition: the length bound under its older name too, for local servers.
    assert ours_body == {**theirs_body, "max_tokens": 2048}
    assert theirs_body["max_completion_tokens"] == 2048  # LLM_MAX_TOKENS's default


async def test_structured_output_keeps_langchain_openais_own_path(
    stub: OpenAIStub, settings: Settings
):
    ours, _ = _models(stub, settings)
    payload = ours._get_request_payload(CONVERSATION, response_format={"type": "json_object"})
    assert len(payload["messages"]) == len(CONVERSATION)
    assert "extra_body" not in payload
    # Chat Completions without response_format: the built messages go as extra_body.
    payload = ours._get_request_payload(CONVERSATION)
    assert payload["messages"] == []
    assert len(payload["extra_body"]["messages"]) == len(CONVERSATION)


@pytest.mark.parametrize(
    ("max_tokens", "base_url", "sent"),
    [
        (0, None, {}),
        (300, None, {"max_completion_tokens": 300}),
        (300, "https://api.openai.com/v1", {"max_completion_tokens": 300}),
        (300, "http://127.0.0.1:11434/v1", {"max_completion_tokens": 300, "max_tokens": 300}),
    ],
)
def test_llm_max_tokens_is_sent_under_the_names_the_server_reads(
    settings: Settings, max_tokens: int, base_url: str | None, sent: dict[str, int]
):
    model = build_chat_model(
        settings.model_copy(update={"llm_max_tokens": max_tokens, "openai_base_url": base_url})
    )
    payload = model._get_request_payload(CONVERSATION)
    bounds = {**payload, **payload["extra_body"]}
    assert {k: bounds[k] for k in ("max_tokens", "max_completion_tokens") if k in bounds} == sent


async def test_llm_timeout_bounds_the_whole_streamed_call_not_each_chunk(stub: OpenAIStub):
    import threading

    from react_agent.errors import ServiceError

    never = threading.Event()
    stub.script(Reply(text="华东地区的销售额最高。", pause_after=(3, never)))
    # Reads may wait 30 s each; the whole call may take 0.5 s.
    model = ServiceChatOpenAI(
        model="stub-model",
        api_key=SecretStr("k"),
        base_url=stub.base_url,
        timeout=30,
        call_timeout=0.5,
        max_retries=0,
    )
    with pytest.raises(ServiceError) as caught:
        await model.ainvoke(CONVERSATION, stream=True)  # streamed, as under the graph
    assert caught.value.error_type == "LLM_TIMEOUT"
    assert caught.value.status == 504


@pytest.mark.parametrize("streamed", [False, True])
async def test_an_answer_cut_at_max_tokens_is_a_model_fault(
    stub: OpenAIStub, settings: Settings, streamed: bool
):
    from react_agent.errors import ServiceError

    ours, _ = _models(stub, settings)
    stub.script(Reply(text="华东地区的销售额最高，其次", finish_reason="length"))
    with pytest.raises(ServiceError) as caught:
        if streamed:
            [chunk async for chunk in ours.astream(CONVERSATION)]
        else:
            await ours.ainvoke(CONVERSATION)
    assert caught.value.error_type == "LLM_ANSWER_TOO_LONG"
    assert "LLM_MAX_TOKENS=2048" in caught.value.detail
