"""The HTTP request's span: an incoming `traceparent` honoured, the trace id sent back.

Each request gets a server span, current while its handler runs, so the run a question
starts is its child (react_agent/observability/run_tracing). The response carries
`traceparent` and `X-Trace-Id`; the final data carries `react_agent_meta.trace_id`.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode
from quart import Quart, Response, g, request

from react_agent.log_context import bind_log_ids, bind_trace_parent
from react_agent.observability.tracing import tracer

TRACE_ID_HEADER = "X-Trace-Id"


def install_http_tracing(app: Quart) -> None:
    """Open a server span per request and end it with the response's status."""
    request_tracer = tracer()  # once: get_tracer builds a new Tracer on every call

    @app.before_request
    async def start_request_span() -> None:
        parent = propagate.extract(request.headers)
        rule = request.url_rule.rule if request.url_rule is not None else request.path
        span = request_tracer.start_span(
            f"{request.method} {rule}",
            context=parent,
            kind=SpanKind.SERVER,
            attributes={
                "http.request.method": request.method,
                "http.route": rule,
                "url.path": request.path,
            },
        )
        g.trace_span = span
        g.trace_token = otel_context.attach(trace.set_span_in_context(span, parent))
        trace_id = format(span.get_span_context().trace_id, "032x")
        bind_log_ids(trace_id=trace_id)
        bind_trace_parent(traceparent_of(span.get_span_context()))

    @app.after_request
    async def end_request_span(response: Response) -> Response:
        span = getattr(g, "trace_span", None)
        if span is None:
            return response
        carrier: dict[str, Any] = {}
        propagate.inject(carrier, context=trace.set_span_in_context(span))
        for name, value in carrier.items():
            response.headers[name] = value
        response.headers[TRACE_ID_HEADER] = format(span.get_span_context().trace_id, "032x")
        span.set_attribute("http.response.status_code", response.status_code)
        if response.status_code >= 500:
            span.set_status(Status(StatusCode.ERROR))
        span.end()
        g.trace_span = None
        return response

    @app.teardown_request
    async def end_unanswered_span(_exc: BaseException | None) -> None:
        span = getattr(g, "trace_span", None)
        if span is not None:  # no response was made (the client went away)
            span.end()
        token = getattr(g, "trace_token", None)
        if token is not None:
            try:
                otel_context.detach(token)
            except Exception:  # another task's context: nothing of ours is left attached
                pass
            g.trace_token = None


def traceparent_of(context: SpanContext) -> str:
    """Return a span's W3C `traceparent` (version 00)."""
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags):02x}"
