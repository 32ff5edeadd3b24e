"""Sub-agents over real HTTP: nested progress, tool events with `subagent`, disconnects."""

from __future__ import annotations

import asyncio

import pytest

from tests.react_agent.subagents.test_delegate import (
    QUESTION,
    SALES,
    SALES_SQL,
    TOP,
    TOP_SQL,
    delegate_both,
    routed,
    sub_script,
)
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool
from tests.support.sse import collect_stream, open_stream
from tests.support.waiting import eventually

THREAD = "wang1:20250131103000042"


async def test_the_legacy_stream_keeps_its_shape_and_adds_nested_progress(settings):
    model = routed(
        [delegate_both(), answer("两部分都答完了")],
        sub_script(SALES_SQL, "七个地区"),
        sub_script(TOP_SQL, "三个产品"),
    )
    async with running_service(settings, model=model) as service:
        events = await collect_stream(
            service.http, json={"question": QUESTION, "user_id": "wang1", "stream_tokens": True}
        )

    types = [e.type for e in events]
    assert types[0] == "started" and types[-2:] == ["completed", "end"]
    assert set(types[1:-2]) == {"progress", "token"}
    # Old clients add up every token: without stream_tools none is a sub-agent's.
    tokens = [e.data for e in events if e.type == "token"]
    assert "".join(t["content"] for t in tokens) == "两部分都答完了"
    assert not any("subagent" in t for t in tokens)
    main = [e.data for e in events if e.type == "progress" and "subagent" not in e.data]
    assert [p["step"] for p in main] == list(range(len(main)))
    assert [p["node"] for p in main][:5] == [
        "__start__",
        "trim_messages",
        "agent",
        "prepare_tool_input",
        "tools",
    ]
    assert main[4]["tool_name"] == "delegate"
    nested = [e.data for e in events if e.type == "progress" and "subagent" in e.data]
    by_agent = {}
    for progress in nested:
        by_agent.setdefault(progress["subagent"]["id"], []).append(progress)
    assert sorted(p[0]["subagent"]["description"] for p in by_agent.values()) == [
        "sales by year",
        "top products",
    ]
    for steps in by_agent.values():
        assert steps[0]["node"] == "trim_messages"
        assert [p["step"] for p in steps] == list(range(1, len(steps) + 1))
        assert any(p.get("tool_name") == "run_sql" for p in steps)
    # Every sub-agent step comes before the delegate step that waited for them.
    delegate_at = next(i for i, e in enumerate(events) if e.data.get("tool_name") == "delegate")
    assert all(i < delegate_at for i, e in enumerate(events) if "subagent" in e.data)
    completed = events[-2].data
    assert completed["response"] == "两部分都答完了"
    assert completed["react_agent_meta"]["tools_used"] == ["delegate"]
    assert "sql" not in completed and "records" not in completed
    assert [s["sql"] for s in completed["sqls"]] == [SALES_SQL, TOP_SQL]
    assert [s["subagent"]["description"] for s in completed["sqls"]] == [
        "sales by year",
        "top products",
    ]
    assert {s["subagent"]["id"] for s in completed["sqls"]} == set(by_agent)


async def test_sub_agent_tool_events_and_tokens_carry_their_sub_agent(settings):
    refusing = ScriptedChatModel(
        replies=[call_tool("run_sql", sql="DELETE FROM orders"), answer("不能删除")]
    )
    model = routed([delegate_both(), answer("好")], sub_script(SALES_SQL, "七个地区"), refusing)
    async with running_service(settings, model=model) as service:
        events = await collect_stream(
            service.http, json={"question": QUESTION, "stream_tools": True, "stream_tokens": True}
        )

    tools = [e.data for e in events if e.type in ("tool_call", "tool_result")]
    parent = [t for t in tools if "subagent" not in t]
    assert [(t["type"], t["tool_name"]) for t in parent] == [
        ("tool_call", "delegate"),
        ("tool_result", "delegate"),
    ]
    refused = [t for t in tools if t["type"] == "tool_result" and t["status"] == "refused"]
    assert len(refused) == 1 and refused[0]["subagent"]["description"] == "top products"
    ok = [
        t for t in tools if t["type"] == "tool_result" and t["status"] == "ok" and "subagent" in t
    ]
    assert [t["subagent"]["description"] for t in ok] == ["sales by year"]
    assert ok[0]["row_count"] == 7 and ok[0]["result_id"]
    tokens = [e.data for e in events if e.type == "token"]
    assert "".join(t["content"] for t in tokens if "subagent" not in t) == "好"
    sub_text = {}
    for token in (t for t in tokens if "subagent" in t):
        key = token["subagent"]["description"]
        sub_text[key] = sub_text.get(key, "") + token["content"]
    assert sub_text == {"sales by year": "七个地区", "top products": "不能删除"}
    refused_sql = [s for s in events[-2].data["sqls"] if s["status"] == "refused"]
    assert refused_sql[0]["sql"] == "DELETE FROM orders"
    assert refused_sql[0]["subagent"]["description"] == "top products"


async def test_a_disconnect_cancels_every_sub_agents_model_call_and_query(settings):
    slow_sql = (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
    )
    querying = ScriptedChatModel(replies=[call_tool("run_sql", sql=slow_sql), answer("x")])
    waiting = sub_script(TOP_SQL, "y")
    waiting.gates[0], waiting.entered[0] = asyncio.Event(), asyncio.Event()  # never released
    model = routed([delegate_both(), answer("after")], querying, waiting)
    patient = settings.model_copy(update={"sql_timeout": 60.0, "stream_resume_grace": 0.0})
    async with running_service(patient, model=model) as svc:
        agent = svc.app.extensions["agent"]
        async with open_stream(svc.http, json={"question": QUESTION, "thread_id": THREAD}) as (
            _,
            events,
        ):
            assert (await anext(events)).type == "started"
            await asyncio.wait_for(waiting.entered[0].wait(), 10)
            assert await eventually(lambda: agent.database.running_queries == 1)
            run = agent.runner.active[THREAD]
        # Leaving the block closed the connection.
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(run.task, 10)
        assert run.events[-1].error.error_type == "RUN_CANCELLED"
        assert model.cancelled == [TOP]  # the held sub-agent's model call
        # The other sub-agent's query stopped long before its 60 s timeout.
        assert await eventually(lambda: agent.database.running_queries == 0)
        assert SALES not in model.cancelled  # it was in its query, not a model call


async def test_the_cancel_route_stops_every_sub_agents_model_call_and_query(settings):
    slow_sql = (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
    )
    querying = ScriptedChatModel(replies=[call_tool("run_sql", sql=slow_sql), answer("x")])
    waiting = sub_script(TOP_SQL, "y")
    waiting.gates[0], waiting.entered[0] = asyncio.Event(), asyncio.Event()  # never released
    model = routed([delegate_both(), answer("after")], querying, waiting)
    patient = settings.model_copy(update={"sql_timeout": 60.0})
    async with running_service(patient, model=model) as svc:
        agent = svc.app.extensions["agent"]
        async with open_stream(svc.http, json={"question": QUESTION, "thread_id": THREAD}) as (
            _,
            events,
        ):
            started = await anext(events)
            await asyncio.wait_for(waiting.entered[0].wait(), 10)
            assert await eventually(lambda: agent.database.running_queries == 1)
            run_id = started.id.partition(":")[0]
            cancelled = await svc.http.post(
                f"/api/v0/react/runs/{run_id}/cancel", json={"user_id": "wang1"}
            )
            rest = [event async for event in events]
        # The other sub-agent's query stopped long before its 60 s timeout.
        assert await eventually(lambda: agent.database.running_queries == 0)

    assert cancelled.status_code == 200 and cancelled.json()["data"]["status"] == "cancelling"
    assert [e.type for e in rest][-2:] == ["error", "end"]
    assert rest[-2].data["error_type"] == "RUN_CANCELLED"
    assert model.cancelled == [TOP]  # the held sub-agent's model call
    assert not any(e.type == "completed" for e in rest)
