"""/mcp, served beside Quart, has the HTTP metrics and the request span every route has."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from opentelemetry.trace import SpanKind
from pydantic import SecretStr

from tests.app.mcp.test_mcp_server import REGION_SQL
from tests.app.observability.conftest import flush_spans
from tests.app.observability.test_metrics import moved, scrape
from tests.app.observability.test_traces import INCOMING_PARENT
from tests.support.live_server import running_service
from tests.support.scripted_model import answer, call_tool
from tests.support.waiting import eventually

MCP_ROUTE = "/mcp"
INCOMING_TRACE = "5c0a1e3f9d2b4a6c8e7f1a2b3c4d5e6f"
"""A trace of these tests' own: the OTLP receiver keeps every test's spans."""
TRACEPARENT = f"00-{INCOMING_TRACE}-{INCOMING_PARENT}-01"


@asynccontextmanager
async def tallied_session(
    base_url: str, seen: Counter[tuple[str, int]], headers: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """Yield an MCP session whose every HTTP answer is tallied by (method, status)."""

    async def tally(response: httpx.Response) -> None:
        seen[(response.request.method, response.status_code)] += 1

    async with create_mcp_http_client(headers=headers) as http:
        http.event_hooks["response"].append(tally)
        async with (
            streamable_http_client(f"{base_url}{MCP_ROUTE}", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def test_an_mcp_tool_call_moves_the_http_counters_of_the_mcp_route(settings, model):
    on = settings.model_copy(update={"metrics": True})
    seen: Counter[tuple[str, int]] = Counter()
    async with running_service(on, model=model) as service:
        before = await scrape(service)
        async with tallied_session(service.base_url, seen) as session:
            listed = await session.call_tool("list_tables", {})
        after = await scrape(service)

    assert not listed.is_error and "regions" in listed.structured_content["result"]
    changes = moved(before, after)
    counted = {
        (dict(labels)["method"], int(dict(labels)["status"])): value
        for (name, labels), value in changes.items()
        if name == "sqlagent_http_requests_total" and dict(labels)["route"] == MCP_ROUTE
    }
    # initialize and the tool call at least; each answer the client had, counted once.
    assert seen[("POST", 200)] >= 2
    assert counted[("POST", 200)] == seen[("POST", 200)]
    assert counted.keys() <= seen.keys() | {("GET", 200)}  # a GET stream may be cut short
    timed = (
        "sqlagent_http_request_duration_seconds_count",
        (("method", "POST"), ("route", MCP_ROUTE)),
    )
    assert changes[timed] == sum(n for (method, _), n in counted.items() if method == "POST")


async def test_an_mcp_request_refused_for_its_key_is_counted(settings, model):
    on = settings.model_copy(update={"metrics": True, "api_keys": SecretStr("s3cret-key")})
    key = {"Authorization": "Bearer s3cret-key"}
    async with running_service(on, model=model) as service:
        before = await scrape_with(service, key)
        refused = await service.http.post(MCP_ROUTE, json={"jsonrpc": "2.0", "id": 1})
        after = await scrape_with(service, key)

    assert refused.status_code == 401
    refusal = ("method", "POST"), ("route", MCP_ROUTE), ("status", "401")
    assert moved(before, after)[("sqlagent_http_requests_total", refusal)] == 1


async def scrape_with(service, headers: dict[str, str]):
    service.http.headers.update(headers)
    try:
        return await scrape(service)
    finally:
        for name in headers:
            del service.http.headers[name]


async def test_an_mcp_tool_call_is_served_in_a_server_span_of_the_incoming_trace(
    traced, span_exporter, receiver
):
    seen: Counter[tuple[str, int]] = Counter()
    async with tallied_session(traced.base_url, seen, {"traceparent": TRACEPARENT}) as session:
        listed = await session.call_tool("list_tables", {})
    assert not listed.is_error

    def mcp_spans() -> list:
        return [
            s
            for s in span_exporter.get_finished_spans()
            if format(s.context.trace_id, "032x") == INCOMING_TRACE and s.name == "POST /mcp"
        ]

    # A span ends when its exchange does, just after the client has read the last byte.
    posts = sum(n for (method, _), n in seen.items() if method == "POST")
    assert seen[("POST", 200)] >= 2
    assert await eventually(lambda: len(mcp_spans()) == posts), (seen, len(mcp_spans()))
    for span in mcp_spans():
        assert span.kind == SpanKind.SERVER
        assert span.parent.span_id == int(INCOMING_PARENT, 16)
        assert span.attributes["http.route"] == MCP_ROUTE
        assert span.attributes["http.response.status_code"] in (200, 202)
    flush_spans()
    received = [s for s in receiver.of_trace(INCOMING_TRACE) if s.name == "POST /mcp"]
    assert {s.span_id for s in received} >= {format(s.context.span_id, "016x") for s in mcp_spans()}


async def test_an_mcp_question_runs_inside_the_trace_of_the_request_that_asked_it(
    traced, model, span_exporter
):
    trace_id = "7e2d4c6a8b0f1e3d5c7b9a0f2e4d6c8b"
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("七个地区都有门店。")]
    seen: Counter[tuple[str, int]] = Counter()
    headers = {"traceparent": f"00-{trace_id}-{INCOMING_PARENT}-01"}
    async with tallied_session(traced.base_url, seen, headers) as session:
        asked = await session.call_tool("ask_data", {"question": "每个地区有几家门店"})
    assert not asked.is_error, asked.content

    def of_trace(name: str) -> list:
        return [
            s
            for s in span_exporter.get_finished_spans()
            if format(s.context.trace_id, "032x") == trace_id and s.name == name
        ]

    # The SDK runs the tool in its session's task; the run is still the request's child.
    assert await eventually(lambda: len(of_trace("invoke_agent sql_react_agent")) == 1)
    [run] = of_trace("invoke_agent sql_react_agent")
    posts = {s.context.span_id for s in of_trace("POST /mcp")}
    assert run.parent.span_id in posts
    assert run.attributes["sqlagent.outcome"] == "completed"
    in_trace = [
        s
        for s in span_exporter.get_finished_spans()
        if format(s.context.trace_id, "032x") == trace_id
    ]
    assert [s.attributes["db.query.text"] for s in in_trace if "db.query.text" in s.attributes] == [
        REGION_SQL
    ]
