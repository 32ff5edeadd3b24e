"""Tool events on the stream (`stream_tools`), through the real ChatOpenAI and the stub server."""

from __future__ import annotations

import threading

import pytest

from tests.support.live_server import running_service
from tests.support.openai_stub import DEFAULT_SALES_SQL, Reply, ToolCall
from tests.support.sse import collect_stream, open_stream

REFUSED_SQL = "DELETE FROM orders"
COUNT_SQL = "SELECT COUNT(*) AS n FROM regions"


@pytest.fixture
def lenient_settings(stub_settings):
    """Return stub settings under which a run waits 30 s for its client to come back."""
    return stub_settings.model_copy(update={"stream_resume_grace": 30.0})


def tool_events(events):
    """Return the tool_call and tool_result events, in order."""
    return [e for e in events if e.type in ("tool_call", "tool_result")]


async def test_each_tool_call_is_followed_by_its_result_and_a_refusal_says_why(stub_settings, stub):
    stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": REFUSED_SQL}, id="call_bad")]),
        # The trailing ";" makes prepare_tool_input re-send the model's message, tidied.
        Reply(tool_calls=[ToolCall("run_sql", {"sql": DEFAULT_SALES_SQL + ";"}, id="call_ok")]),
        Reply(text="华东最多。"),
    )
    async with running_service(stub_settings) as service:
        events = await collect_stream(service.http, json={"question": "q", "stream_tools": True})

    tools = tool_events(events)
    assert [(e.type, e.data["tool_call_id"]) for e in tools] == [
        ("tool_call", "call_bad"),
        ("tool_result", "call_bad"),
        ("tool_call", "call_ok"),
        ("tool_result", "call_ok"),
    ]
    bad_call, bad_result, ok_call, ok_result = (e.data for e in tools)
    assert bad_call["sql"] == REFUSED_SQL and bad_call["args"] == {"sql": REFUSED_SQL}
    assert bad_call["tool_name"] == "run_sql" and bad_call["thread_id"]
    assert ok_call["sql"] == DEFAULT_SALES_SQL + ";" and ok_call["step"] > bad_call["step"]
    assert tools[0].envelope["message"] == "调用工具: run_sql"
    assert tools[1].envelope["message"] == "工具结果: run_sql"
    assert bad_result["status"] == "refused" and "read-only" in bad_result["error"]
    assert bad_result["row_count"] is None and bad_result["rows"] is None
    assert bad_result["result_id"] is None
    assert "error" not in ok_result and ok_result["status"] == "ok"
    assert ok_result["row_count"] == 7 and ok_result["columns"] == ["region", "sales"]
    assert ok_result["rows"] and len(ok_result["rows"]) <= 7
    assert set(ok_result["rows"][0]) == {"region", "sales"}
    assert ok_result["is_limited"] is False and ok_result["result_id"] == "call_ok"
    assert all(
        isinstance(e.data["duration_ms"], int) and e.data["duration_ms"] >= 0 for e in tools[1::2]
    )
    # Each call comes after the model's step and before its tools run; results after them.
    order = [
        e.data.get("node", e.type)
        for e in events
        if e.type in ("progress", "tool_call", "tool_result")
    ]
    first = order.index("tool_call")
    assert order[first - 1] == "agent" and order[first + 1] == "prepare_tool_input"
    assert order[order.index("tool_result") - 1] == "tools"


async def test_tool_events_for_a_non_sql_tool_have_null_row_fields(stub_settings, stub):
    stub.script(
        Reply(tool_calls=[ToolCall("list_tables", {}, id="call_list")]),
        Reply(text="有这些表。"),
    )
    async with running_service(stub_settings) as service:
        events = await collect_stream(
            service.http, "GET", params={"question": "q", "stream_tools": "true", "lang": "en-US"}
        )
    call, result = tool_events(events)
    assert "sql" not in call.data and call.data["args"] == {}
    assert call.envelope["message"] == "Calling tool: list_tables"
    assert result.data["status"] == "ok" and "error" not in result.data
    assert result.data["row_count"] is None and result.data["columns"] is None
    assert result.envelope["message"] == "Tool result: list_tables"


async def test_a_stream_without_stream_tools_has_no_tool_events(stub_settings, stub):
    async with running_service(stub_settings) as service:
        events = await collect_stream(service.http, json={"question": "q"})
    assert tool_events(events) == []
    assert next(e for e in events if e.type == "completed").data["sql"] == DEFAULT_SALES_SQL


async def test_tool_events_come_exactly_once_across_a_last_event_id_resume(lenient_settings, stub):
    hold = threading.Event()
    stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": COUNT_SQL}, id="call_one")]),
        Reply(tool_calls=[ToolCall("run_sql", {"sql": DEFAULT_SALES_SQL}, id="call_two")]),
        Reply(text="完成。", wait_for=hold),
    )
    async with running_service(lenient_settings) as service:
        body = {"question": "q", "stream_tools": True}
        async with open_stream(service.http, json=body) as (_, events):
            before = []
            async for event in events:
                before.append(event)
                if event.type == "tool_call":
                    break  # the client goes away right after the first call
        resume = {"Last-Event-ID": before[-1].id}
        async with open_stream(service.http, "GET", headers=resume) as (response, events):
            assert response.status_code == 200
            hold.set()  # the run may finish only now that the client is back
            after = [event async for event in events]

    seen = tool_events(before + after)
    assert [(e.type, e.data["tool_call_id"]) for e in seen] == [
        ("tool_call", "call_one"),
        ("tool_result", "call_one"),
        ("tool_call", "call_two"),
        ("tool_result", "call_two"),
    ]
    ids = [int(e.id.split(":")[1]) for e in before + after]
    assert ids == list(range(1, len(ids) + 1))
    assert after[-1].type == "end" and len(stub.requests) == 3


async def test_a_call_with_broken_json_arguments_shows_an_error_result(stub_settings, stub):
    stub.script(
        Reply(tool_calls=[ToolCall("run_sql", raw_arguments='{"sql": "SELECT', id="call_broken")]),
        Reply(text="参数坏了。"),
    )
    async with running_service(stub_settings) as service:
        events = await collect_stream(service.http, json={"question": "q", "stream_tools": True})
    call, result = tool_events(events)
    assert call.data["tool_call_id"] == result.data["tool_call_id"] == "call_broken"
    assert call.data["args"] == {} and "sql" not in call.data
    assert result.data["status"] == "error" and "not valid JSON" in result.data["error"]
    before_result = events[: events.index(result)]
    assert [e for e in before_result if e.type == "progress"][-1].data["node"] == (
        "prepare_tool_input"
    )
