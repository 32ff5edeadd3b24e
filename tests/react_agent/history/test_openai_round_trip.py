"""The history tools through the real ChatOpenAI and the OpenAI-compatible stub server."""

from __future__ import annotations

import json

from pydantic import SecretStr

from react_agent.service import open_agent_service
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub, Reply, ToolCall


async def test_the_model_is_offered_the_history_tools_and_searches_an_earlier_turn(settings):
    with OpenAIStub() as stub:
        stub_settings = settings.model_copy(
            update={
                "openai_base_url": stub.base_url,
                "openai_api_key": SecretStr("test-key"),
                "llm_model": "stub-model",
                "llm_max_retries": 0,
            }
        )
        async with open_agent_service(stub_settings) as service:
            await service.runner.ask("每个地区的销售额是多少", "wang1:stub")
            stub.script(
                Reply(tool_calls=[ToolCall("search_history", {"query": "地区销售额"})]),
                Reply(text="华东最高"),
            )
            result = await service.runner.ask("上次那个地区销售额的 SQL 是什么", "wang1:stub")
        requests = stub.requests

    tools = {tool["function"]["name"]: tool["function"] for tool in requests[-1]["tools"]}
    assert {"search_history", "read_history", "list_history", "read_result"} <= set(tools)
    assert set(tools["search_history"]["parameters"]["properties"]) == {"query", "limit"}
    assert set(tools["list_history"]["parameters"]["properties"]) == {"offset", "limit"}
    found = json.loads(requests[-1]["messages"][-1]["content"])
    assert found["block_id"] == "turn-1" and found["queries"][0]["sql"] == DEFAULT_SALES_SQL
    assert result.answer == "华东最高" and result.tools_used == ["search_history"]
