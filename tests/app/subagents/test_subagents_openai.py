"""Sub-agents through the real ChatOpenAI on the OpenAI-compatible stub: streamed, concurrent.

The stub answers each conversation from its own script, chosen by the request's first
user message (tests/support/stub_routes.py), since the sub-agents' requests interleave.
"""

from __future__ import annotations

import asyncio
import threading

from tests.react_agent.subagents.test_delegate import QUESTION, SALES, SALES_SQL, TOP, TOP_SQL
from tests.support.live_server import running_service
from tests.support.model_requests import tool_results, user_questions
from tests.support.openai_stub import Reply, ToolCall
from tests.support.sse import collect_stream
from tests.support.stub_routes import RoutedReplies, first_question
from tests.support.waiting import eventually

TASKS = [
    {"description": "sales by year", "question": SALES},
    {"description": "top products", "question": TOP},
]


def tool_names(request: dict) -> list[str]:
    """Return the names of the tools a chat-completions request offers the model."""
    return [tool["function"]["name"] for tool in request.get("tools") or []]


async def test_two_sub_agents_run_at_once_on_chatopenai_and_the_parent_reads_their_answers(
    stub_settings, stub
):
    held = threading.Event()
    routes = RoutedReplies(
        {
            SALES: [
                Reply(tool_calls=[ToolCall("run_sql", {"sql": SALES_SQL})], wait_for=held),
                Reply(text="七个地区"),
            ],
            TOP: [
                Reply(tool_calls=[ToolCall("run_sql", {"sql": TOP_SQL})]),
                Reply(text="三个产品"),
            ],
        },
        parent=[
            Reply(tool_calls=[ToolCall("delegate", {"tasks": TASKS})]),
            Reply(text="两部分都答完了"),
        ],
    )
    stub.default_policy = routes
    async with running_service(stub_settings) as service:
        body = {"question": QUESTION, "stream_tools": True, "stream_tokens": True}
        asking = asyncio.create_task(collect_stream(service.http, json=body))
        try:
            # The second sub-agent queries and asks for its answer while the first one's
            # first model call is still held: they run at the same time.
            assert await eventually(lambda: routes.routed.count(TOP) == 2, 30), routes.routed
            assert routes.routed.count(SALES) == 1
        finally:
            held.set()
        events = await asyncio.wait_for(asking, 60)

    assert [e.type for e in events][-2:] == ["completed", "end"], events
    completed = events[-2].data
    assert completed["response"] == "两部分都答完了"
    assert completed["react_agent_meta"]["tools_used"] == ["delegate"]
    assert [(s["sql"], s["subagent"]["description"]) for s in completed["sqls"]] == [
        (SALES_SQL, "sales by year"),
        (TOP_SQL, "top products"),
    ]
    ids = {s["subagent"]["id"] for s in completed["sqls"]}
    assert len(ids) == 2 and all(s["status"] == "ok" and s["result_id"] for s in completed["sqls"])

    requests = stub.requests
    parent = [r for r in requests if first_question(r) == QUESTION]
    assert len(parent) == 2 and len(requests) == 6
    # The parent's second request: its question, its delegate call and one tool message
    # with the sub-agents' final answers, none of their own calls or results.
    # (The second system message is the question's context, #48.)
    roles = [m["role"] for m in parent[1]["messages"]]
    assert roles == ["system", "system", "user", "assistant", "tool"]
    (summary,) = tool_results(parent[1])
    assert "Answer: 七个地区" in summary and "Answer: 三个产品" in summary
    assert "row(s); columns" not in str(parent[1]["messages"])  # no run_sql result
    assert "delegate" in tool_names(parent[0])
    for question in (SALES, TOP):
        own = [r for r in requests if first_question(r) == question]
        assert len(own) == 2 and user_questions(own[0]) == [question]
        assert QUESTION not in str(own[0]["messages"])
        # The sub-agents' model is offered the SQL tools, not delegate: no delegating again.
        assert "run_sql" in tool_names(own[0]) and "delegate" not in tool_names(own[0])
        assert own[0].get("stream") is True
    # Their tool events in the stream carry their sub-agent.
    results = [e.data for e in events if e.type == "tool_result" and "subagent" in e.data]
    assert {r["subagent"]["id"] for r in results} == ids
    assert sorted(r["row_count"] for r in results) == [3, 7]
    sub_tokens = "".join(
        e.data["content"] for e in events if e.type == "token" and "subagent" in e.data
    )
    assert "七个地区" in sub_tokens and "三个产品" in sub_tokens


async def test_subagents_off_offers_the_model_no_delegate_tool(stub_settings, stub):
    async with running_service(stub_settings.model_copy(update={"subagents": False})) as service:
        status, body = await service.ask(question="有哪些地区", user_id="wang1")

    assert status == 200 and body["data"]["response"]
    offered = tool_names(stub.requests[0])
    assert "run_sql" in offered and "delegate" not in offered
