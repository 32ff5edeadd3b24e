"""The memory's retrieval as a step of the stream: automatic before the model, and the tool's."""

from __future__ import annotations

from typing import Any

from tests.react_agent.subagents.test_delegate import (
    QUESTION,
    SALES,
    SALES_SQL,
    TOP_SQL,
    delegate_both,
    routed,
    sub_script,
)
from tests.support.live_server import ServiceClient, running_service
from tests.support.openai_stub import Reply, ToolCall
from tests.support.scripted_model import answer
from tests.support.sse import collect_stream

SALES_EXAMPLE = {
    "training_data_type": "sql",
    "question": "每个地区的销售额",
    "sql": "SELECT region, SUM(amount) FROM orders GROUP BY region",
}
GMV_NOTE = {"training_data_type": "documentation", "content": "GMV excludes refunds"}


async def store(service: ServiceClient, item: dict[str, Any]) -> str:
    response = await service.http.post("/api/v0/training_data/create", json={"data": item})
    assert response.status_code == 200, response.text
    return response.json()["data"]["training_id"]


def search_events(events):
    return [
        e
        for e in events
        if e.type in ("tool_call", "tool_result") and e.data["tool_name"] == "search_examples"
    ]


async def test_a_retrieval_before_the_model_is_a_step_and_an_automatic_tool_pair(
    stub_settings, stub
):
    stub.script(Reply(text="华东最多。"))
    async with running_service(stub_settings) as service:
        example_id = await store(service, SALES_EXAMPLE)
        events = await collect_stream(
            service.http, json={"question": "各个地区的销售额", "stream_tools": True}
        )

    call, result = search_events(events)
    assert call.type == "tool_call" and result.type == "tool_result"
    assert call.data["auto"] is True and result.data["auto"] is True
    assert call.data["args"] == {"query": "各个地区的销售额"}
    assert call.data["tool_call_id"] == result.data["tool_call_id"]
    assert result.data["status"] == "ok"
    assert result.data["example_ids"] == [example_id] and result.data["example_count"] == 1
    assert isinstance(result.data["duration_ms"], int)
    step = next(e for e in events if e.type == "progress" and e.data["node"] == "retrieve_examples")
    assert step.data["display_name"] == "检索示例"
    assert step.data["tool_names"] == ["search_examples"]
    # Before the model's step, numbered as it is, and the tool pair after the progress step.
    order = [e.data.get("node", e.type) for e in events if e.type != "token"]
    assert order.index("retrieve_examples") < order.index("tool_call") < order.index("agent")
    agent = next(e for e in events if e.type == "progress" and e.data["node"] == "agent")
    assert call.data["step"] == step.data["step"] == agent.data["step"]
    completed = next(e for e in events if e.type == "completed")
    assert completed.data["react_agent_meta"]["examples_used"] == [example_id]


async def test_the_legacy_stream_gets_the_step_and_no_tool_events(stub_settings, stub):
    stub.script(Reply(text="Most in the east."))
    async with running_service(stub_settings) as service:
        await store(service, SALES_EXAMPLE)
        events = await collect_stream(
            service.http,
            "GET",
            params={"question": "各个地区的销售额", "lang": "en-US"},
        )
    nodes = [e.data["node"] for e in events if e.type == "progress"]
    assert nodes[:3] == ["__start__", "trim_messages", "retrieve_examples"]
    step = next(e for e in events if e.type == "progress" and e.data["node"] == "retrieve_examples")
    assert step.data["display_name"] == "Retrieving examples"
    assert not [e for e in events if e.type in ("tool_call", "tool_result")]


async def test_the_models_own_search_shows_its_ids_and_a_miss_shows_no_step(stub_settings, stub):
    stub.script(
        Reply(tool_calls=[ToolCall("search_examples", {"query": "GMV"}, id="call_search")]),
        Reply(text="GMV 不含退款。"),
    )
    async with running_service(stub_settings) as service:
        note_id = await store(service, GMV_NOTE)
        events = await collect_stream(
            service.http, json={"question": "hello there", "stream_tools": True}
        )

    auto_call, auto_result, call, result = search_events(events)
    # The automatic search found nothing: its pair says so, and there is no progress step.
    assert auto_call.data["auto"] is True and auto_result.data["example_count"] == 0
    assert auto_result.data["example_ids"] == []
    assert "retrieve_examples" not in [e.data["node"] for e in events if e.type == "progress"]
    assert call.data["tool_call_id"] == result.data["tool_call_id"] == "call_search"
    assert call.data["auto"] is False and result.data["auto"] is False
    assert call.data["args"] == {"query": "GMV"}
    assert result.data["example_ids"] == [note_id] and result.data["example_count"] == 1
    completed = next(e for e in events if e.type == "completed")
    assert completed.data["react_agent_meta"]["examples_used"] == [note_id]


async def test_an_empty_memory_is_not_searched_so_no_retrieval_shows(stub_settings, stub):
    stub.script(Reply(text="好的。"))
    async with running_service(stub_settings) as service:
        events = await collect_stream(
            service.http, json={"question": "各个地区的销售额", "stream_tools": True}
        )
    assert search_events(events) == []
    assert "retrieve_examples" not in [e.data["node"] for e in events if e.type == "progress"]


async def test_a_sub_agents_retrieval_is_its_own_step_marked_with_the_sub_agent(settings):
    model = routed(
        [delegate_both(), answer("两部分都答完了")],
        sub_script(SALES_SQL, "七个地区"),
        sub_script(TOP_SQL, "三个产品"),
    )
    async with running_service(settings, model=model) as service:
        example_id = await store(service, SALES_EXAMPLE)
        events = await collect_stream(
            service.http, json={"question": QUESTION, "user_id": "wang1", "stream_tools": True}
        )

    auto = [e.data for e in search_events(events) if e.data["auto"]]
    main = [data for data in auto if "subagent" not in data]
    assert [data["type"] for data in main] == ["tool_call", "tool_result"]
    assert main[1]["example_ids"] == [example_id]
    sales = [d for d in auto if d.get("subagent", {}).get("description") == "sales by year"]
    assert [data["type"] for data in sales] == ["tool_call", "tool_result"]
    assert sales[0]["args"] == {"query": SALES} and example_id in sales[1]["example_ids"]
    sales_steps = [
        e.data
        for e in events
        if e.type == "progress" and e.data.get("subagent", {}).get("description") == "sales by year"
    ]
    retrieval = next(p for p in sales_steps if p["node"] == "retrieve_examples")
    agent = next(p for p in sales_steps if p["node"] == "agent")
    # Numbered in the sub-agent's own steps: the step of the model call it comes before.
    assert retrieval["step"] == agent["step"] == sales[0]["step"] == 2
