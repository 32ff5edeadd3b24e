"""HTTP metrics and a request span for an ASGI app mounted beside Quart (the MCP server).

Quart's hooks (http_metrics, http_tracing) never see a request the front hands to another
app, so the front wraps that app in `observed_app`: each request is counted by the
mount's route and its status, timed to its response headers, and served inside a server
span (an incoming `traceparent` honoured; `traceparent` and `X-Trace-Id` sent back).
The span ends when the exchange does: an MCP call's answer is a stream, the call itself.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from config import Settings

ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]
TRACE_CONTEXT_SCOPE_KEY = "sql_agent.trace_context"
"""Where the request span's context waits in the ASGI scope for work the app runs elsewhere."""


@contextmanager
def in_request_trace(scope: Any) -> Iterator[None]:
    """Run the block in the trace of the request whose ASGI scope is `scope`.

    The MCP SDK runs a tool in a task of its session, begun by an earlier request, so
    the tool does not inherit the span of the request that called it; it is attached
    here. Nothing happens when traces are off (no context was stored).
    """
    stored = scope.get(TRACE_CONTEXT_SCOPE_KEY) if isinstance(scope, dict) else None
    if stored is None:
        yield
        return
    from opentelemetry import context as otel_context

    token = otel_context.attach(stored)
    try:
        yield
    finally:
        otel_context.detach(token)


def observed_app(app: ASGIApp, route: str, settings: Settings) -> ASGIApp:
    """Return `app` counted and traced as the settings say (itself when both are off).

    Args:
        app: The mounted app (its requests only; the front dispatches to it).
        route: Its route label and span name, e.g. `/mcp` (bounded: never the full path).
        settings: METRICS and the OpenTelemetry settings.

    """
    if settings.otel_traces_exporter or settings.otel_exporter_otlp_endpoint:
        from react_agent.observability.tracing import tracing_enabled

        if tracing_enabled(settings):
            app = _traced(app, route)
    if settings.metrics:
        app = _counted(app, route)  # outermost: the span's own time is the request's too
    return app


def _counted(app: ASGIApp, route: str) -> ASGIApp:
    from react_agent.observability.metrics import process_metrics

    metrics = process_metrics()

    async def counted(scope: dict[str, Any], receive: Any, send: Any) -> None:
        started = time.perf_counter()
        method = scope.get("method", "GET")

        async def send_counted(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                metrics.http_requests.labels(method, route, str(message["status"])).inc()
                metrics.http_duration.labels(method, route).observe(time.perf_counter() - started)
            await send(message)

        await app(scope, receive, send_counted)

    return counted


def _traced(app: ASGIApp, route: str) -> ASGIApp:
    from opentelemetry import context as otel_context
    from opentelemetry import propagate, trace
    from opentelemetry.trace import SpanKind, Status, StatusCode

    from app.observability.http_tracing import TRACE_ID_HEADER
    from react_agent.log_context import bind_log_ids
    from react_agent.observability.tracing import tracer

    request_tracer = tracer()

    async def traced(scope: dict[str, Any], receive: Any, send: Any) -> None:
        headers = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope.get("headers", [])
        }
        parent = propagate.extract(headers)
        method = scope.get("method", "GET")
        span = request_tracer.start_span(
            f"{method} {route}",
            context=parent,
            kind=SpanKind.SERVER,
            attributes={
                "http.request.method": method,
                "http.route": route,
                "url.path": scope.get("path", route),
            },
        )
        trace_id = format(span.get_span_context().trace_id, "032x")

        async def send_traced(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                carrier: dict[str, str] = {}
                propagate.inject(carrier, context=trace.set_span_in_context(span))
                added = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in carrier.items()]
                added.append((TRACE_ID_HEADER.encode("latin-1"), trace_id.encode("latin-1")))
                message = {**message, "headers": [*message.get("headers", []), *added]}
                span.set_attribute("http.response.status_code", message["status"])
                if message["status"] >= 500:
                    span.set_status(Status(StatusCode.ERROR))
            await send(message)

        inside = trace.set_span_in_context(span, parent)
        scope[TRACE_CONTEXT_SCOPE_KEY] = inside
        token = otel_context.attach(inside)
        bind_log_ids(trace_id=trace_id)
        try:
            await app(scope, receive, send_traced)
        finally:
            span.end()
            otel_context.detach(token)

    return traced
