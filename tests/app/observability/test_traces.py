"""Traces: one per question, from the HTTP request through the run's nodes, model calls and SQL."""

from __future__ import annotations

import asyncio
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from tests.app.observability.conftest import flush_spans
from tests.react_agent.subagents.test_delegate import (
    QUESTION,
    SALES_SQL,
    TOP_SQL,
    delegate_both,
    routed,
    sub_script,
)
from tests.support.live_server import running_service
from tests.support.scripted_model import answer, call_tool
from tests.support.sse import STREAM_PATH, open_stream
from tests.support.waiting import eventually

SQL = "SELECT region_name FROM regions ORDER BY region_name"
INCOMING_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
INCOMING_PARENT = "00f067aa0ba902b7"
TRACEPARENT = f"00-{INCOMING_TRACE}-{INCOMING_PARENT}-01"


def spans_of(exporter: Any, trace_id: str) -> list[ReadableSpan]:
    return [
        s for s in exporter.get_finished_spans() if format(s.context.trace_id, "032x") == trace_id
    ]


def children(spans: list[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    """Return `parent`'s child spans in start order."""
    found = [
        s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id
    ]
    return sorted(found, key=lambda s: s.start_time)


def one(spans: list[ReadableSpan], name: str) -> ReadableSpan:
    (found,) = [s for s in spans if s.name == name]
    return found


async def test_a_question_with_a_query_is_one_trace_from_the_request_to_the_sql(
    traced, model, span_exporter, receiver
):
    model.replies = [call_tool("run_sql", sql=SQL), answer("七个地区")]
    response = await traced.http.post(
        "/api/v0/ask_react_agent",
        json={"question": "有哪些地区？", "user_id": "wang1"},
        headers={"traceparent": TRACEPARENT},
    )
    assert response.status_code == 200
    data = response.json()["data"]
    # The incoming trace is honoured, and told back in the header and the final data.
    assert response.headers["X-Trace-Id"] == INCOMING_TRACE
    assert response.headers["traceparent"].split("-")[1] == INCOMING_TRACE
    assert data["react_agent_meta"]["trace_id"] == INCOMING_TRACE

    spans = spans_of(span_exporter, INCOMING_TRACE)
    request = one(spans, "POST /api/v0/ask_react_agent")
    assert request.kind == SpanKind.SERVER and request.parent.span_id == int(INCOMING_PARENT, 16)
    assert request.attributes["http.response.status_code"] == 200
    (run,) = children(spans, request)
    assert run.name == "invoke_agent sql_react_agent"
    assert run.attributes["sqlagent.thread_id"] == data["conversation_id"]
    assert run.attributes["sqlagent.user_id"] == "wang1"
    assert run.attributes["sqlagent.outcome"] == "completed"
    nodes = children(spans, run)
    assert [n.attributes["langgraph.node"] for n in nodes] == data["react_agent_meta"][
        "execution_path"
    ]
    agents = [n for n in nodes if n.name == "node agent"]
    chats = [c for agent in agents for c in children(spans, agent)]
    assert [c.name for c in chats] == ["chat gpt-4o-mini"] * 2
    assert chats[0].attributes["gen_ai.request.model"] == "gpt-4o-mini"
    assert chats[0].attributes["gen_ai.operation.name"] == "chat"
    (query,) = children(spans, one(spans, "node tools"))
    assert query.name == "SELECT regions" and query.kind == SpanKind.CLIENT
    assert query.attributes["db.system"] == "sqlite"
    assert query.attributes["db.query.text"] == SQL
    assert query.attributes["db.response.returned_rows"] == 7
    # Children lie within their parents.
    for span in [run, *nodes, *chats, query]:
        parent = next(s for s in spans if s.context.span_id == span.parent.span_id)
        assert parent.start_time <= span.start_time <= span.end_time
        if parent is not request:  # the request's span ends with its headers
            assert span.end_time <= parent.end_time

    flush_spans()
    received = receiver.of_trace(INCOMING_TRACE)
    assert sorted(s.name for s in received) == sorted(s.name for s in spans)
    got_query = next(s for s in received if s.name == "SELECT regions")
    assert got_query.attributes["db.query.text"] == SQL
    assert got_query.parent_span_id == format(one(spans, "node tools").context.span_id, "016x")


async def test_a_refused_query_has_a_span_saying_why(traced, model, span_exporter):
    model.replies = [call_tool("run_sql", sql="DELETE FROM regions"), answer("不能删除")]
    response = await traced.http.post(
        "/api/v0/ask_react_agent", json={"question": "删掉地区表", "user_id": "wang1"}
    )
    trace_id = response.headers["X-Trace-Id"]
    assert response.json()["data"]["react_agent_meta"]["trace_id"] == trace_id

    spans = spans_of(span_exporter, trace_id)
    (refused,) = children(spans, one(spans, "node tools"))
    assert refused.name == "SELECT refused"
    assert refused.attributes["sqlagent.query.outcome"] == "refused"
    assert "DELETE is not allowed" in refused.attributes["sqlagent.query.reason"]
    assert refused.attributes["db.query.text"] == "DELETE FROM regions"
    assert "db.response.returned_rows" not in refused.attributes


async def test_a_cancelled_stream_ends_its_trace_with_the_cancelled_model_call(
    traced, model, span_exporter
):
    model.replies = [answer("never sent")]
    entered = asyncio.Event()
    model.gates[0], model.entered[0] = asyncio.Event(), entered  # never released
    thread = "wang1:20250131103000077"
    async with open_stream(traced.http, json={"question": "q", "thread_id": thread}) as (
        response,
        events,
    ):
        trace_id = response.headers["X-Trace-Id"]
        started = await anext(events)
        await entered.wait()
        cancel = f"/api/v0/react/runs/{started.id.partition(':')[0]}/cancel"
        assert (await traced.http.post(cancel, json={"user_id": "wang1"})).status_code == 200
        rest = [event async for event in events]
    assert rest[-2].data["error_type"] == "RUN_CANCELLED"

    spans = spans_of(span_exporter, trace_id)
    run = one(spans, "invoke_agent sql_react_agent")
    assert run.parent.span_id == one(spans, "POST /api/v0/ask_react_agent_stream").context.span_id
    assert run.attributes["sqlagent.outcome"] == "cancelled"
    assert run.attributes["error.type"] == "RUN_CANCELLED"
    assert run.status.status_code != StatusCode.ERROR  # cancelled is not a failure
    nodes = children(spans, run)
    assert [n.name for n in nodes if n.name.startswith("node ")] == ["node trim_messages"]
    # The model call was cut off while the agent node ran: it belongs to the run itself.
    (chat,) = [s for s in nodes if s.name.startswith("chat ")]
    assert chat.attributes["sqlagent.outcome"] == "cancelled"


async def test_sub_agents_are_child_spans_of_the_node_that_ran_them(traced_settings, span_exporter):
    sales, top = sub_script(SALES_SQL, "七个地区"), sub_script(TOP_SQL, "三个产品")
    model = routed([delegate_both(), answer("两部分都答完了")], sales, top)
    on = traced_settings.model_copy(update={"subagents": True})
    async with running_service(on, model=model) as client:
        response = await client.http.post(
            "/api/v0/ask_react_agent", json={"question": QUESTION, "user_id": "wang1"}
        )
    assert response.status_code == 200
    spans = spans_of(span_exporter, response.headers["X-Trace-Id"])
    run = one(spans, "invoke_agent sql_react_agent")
    (tools,) = [n for n in children(spans, run) if n.name == "node tools"]
    subagents = children(spans, tools)
    assert sorted(s.attributes["gen_ai.agent.description"] for s in subagents) == [
        "sales by year",
        "top products",
    ]
    for subagent in subagents:
        nodes = children(spans, subagent)
        assert [n.name for n in nodes][:2] == ["node trim_messages", "node agent"]
        (query,) = children(spans, next(n for n in nodes if n.name == "node tools"))
        assert query.attributes["db.query.text"] in (SALES_SQL, TOP_SQL)
        assert len([c for n in nodes for c in children(spans, n) if c.name.startswith("chat")]) == 2


async def test_without_traceparent_a_new_trace_starts_and_is_sent_back(traced, model):
    model.replies = [answer("好")]
    response = await traced.http.post(
        "/api/v0/ask_react_agent", json={"question": "你好", "user_id": "wang1"}
    )
    trace_id = response.headers["X-Trace-Id"]
    assert len(trace_id) == 32 and trace_id != INCOMING_TRACE and int(trace_id, 16)
    assert response.headers["traceparent"].startswith(f"00-{trace_id}-")
    assert response.json()["data"]["react_agent_meta"]["trace_id"] == trace_id


async def test_a_resumed_stream_follows_in_a_span_linked_to_the_request_that_ran_it(
    traced, model, span_exporter
):
    model.replies = [answer("好")]
    body = {"question": "你好", "thread_id": "wang1:20250131103000078"}
    async with open_stream(traced.http, json=body) as (response, events):
        owner_trace = response.headers["X-Trace-Id"]
        sent = [event async for event in events]
    run_id = sent[0].id.partition(":")[0]
    resumed = await traced.http.get(
        STREAM_PATH, headers={"Last-Event-ID": f"{run_id}:1", "Accept": "text/event-stream"}
    )
    assert resumed.status_code == 200 and f"id: {run_id}:{len(sent)}" in resumed.text
    follower_trace = resumed.headers["X-Trace-Id"]
    assert follower_trace != owner_trace  # a reconnect is a request, and a trace, of its own

    def follow_spans() -> list[ReadableSpan]:
        return [s for s in spans_of(span_exporter, follower_trace) if s.name == "follow run"]

    assert await eventually(lambda: len(follow_spans()) == 1)  # it ends with the stream
    (follow,) = follow_spans()
    request = one(spans_of(span_exporter, follower_trace), f"GET {STREAM_PATH}")
    assert follow.parent.span_id == request.context.span_id
    assert follow.attributes["sqlagent.run_id"] == run_id
    assert follow.attributes["sqlagent.follow.remote"] is False  # this process ran it
    (link,) = follow.links
    owner_spans = spans_of(span_exporter, owner_trace)
    owner_request = one(owner_spans, f"POST {STREAM_PATH}")
    assert link.context.trace_id == owner_request.context.trace_id
    assert link.context.span_id == owner_request.context.span_id
    # The linked span is the run's parent: the follower's trace leads to the run.
    assert one(owner_spans, "invoke_agent sql_react_agent").parent.span_id == link.context.span_id
