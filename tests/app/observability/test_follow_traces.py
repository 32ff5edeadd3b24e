"""Two workers on one PostgreSQL: a stream resumed on the other worker links to the run's trace."""

from __future__ import annotations

import threading
import uuid
from contextlib import AsyncExitStack

import httpx

from tests.app.observability.test_traces import INCOMING_PARENT
from tests.app.scale_out.test_scale_out_streams import (
    raw_events,
    read_until,
    resume_headers,
    two_workers,
)
from tests.support.held_runs import ask_held_question, script_held_question
from tests.support.otlp_receiver import OTLPReceiver, ReceivedSpan
from tests.support.sse import STREAM_PATH
from tests.support.waiting import eventually

INCOMING_TRACE = "6d1b2f4a0e3c5b7d9f8a2b3c4d5e6f70"
"""A trace of this test's own: the OTLP receiver keeps every test's spans."""
TRACEPARENT = f"00-{INCOMING_TRACE}-{INCOMING_PARENT}-01"


def named(spans: list[ReceivedSpan], name: str) -> list[ReceivedSpan]:
    return [span for span in spans if span.name == name]


async def test_a_stream_resumed_on_the_other_worker_links_to_the_owners_trace(
    stub, postgres_database, tmp_path, receiver: OTLPReceiver
):
    gate = threading.Event()
    script_held_question(stub, gate)
    thread_id = f"scale:{uuid.uuid4().hex[:12]}"
    traced = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_BSP_SCHEDULE_DELAY": "50"}
    async with AsyncExitStack() as stack:
        stack.callback(gate.set)
        first, second = await two_workers(stack, stub, postgres_database, tmp_path, **traced)
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=60))
        leaving = raw_events(
            http,
            f"{first.base_url}{STREAM_PATH}",
            headers={"traceparent": TRACEPARENT},
            **ask_held_question(thread_id),
        )
        before = await read_until(leaving, '"node":"tools"')
        await leaving.aclose()  # the client drops its connection mid-run
        run_id = before[0].id.partition(":")[0]

        # The reconnect lands on the worker that does not run the question.
        resumed = raw_events(
            http,
            f"{second.base_url}{STREAM_PATH}",
            method="GET",
            headers=resume_headers(before[-1].id),
        )
        gate.set()  # the held model call answers: the run ends, and so does the stream
        rest = [event async for event in resumed]
        assert '"type":"completed"' in rest[-2].data, rest

        def follows() -> list[ReceivedSpan]:
            return [
                span
                for span in named(receiver.spans, "follow run")
                if span.attributes.get("sqlagent.run_id") == run_id
            ]

        def owner_spans() -> list[ReceivedSpan]:
            return receiver.of_trace(INCOMING_TRACE)

        # Each worker exports every 50 ms; the run's span once the run has ended.
        assert await eventually(
            lambda: (
                len(follows()) == 1
                and len(named(owner_spans(), "invoke_agent sql_react_agent")) == 1
            ),
            timeout=15,
        ), [span.name for span in receiver.spans]

    (follow,) = follows()
    (owner_request,) = named(owner_spans(), f"POST {STREAM_PATH}")
    (run,) = named(owner_spans(), "invoke_agent sql_react_agent")
    assert follow.trace_id != INCOMING_TRACE  # the follower's request has a trace of its own
    assert follow.attributes["sqlagent.follow.remote"] is True
    assert follow.links == ((INCOMING_TRACE, owner_request.span_id),)
    assert run.parent_span_id == owner_request.span_id  # the link leads to the run
    (follower_request,) = named(receiver.of_trace(follow.trace_id), f"GET {STREAM_PATH}")
    assert follow.parent_span_id == follower_request.span_id
