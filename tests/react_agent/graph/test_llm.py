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
    assert ours_body == theirs_body


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
