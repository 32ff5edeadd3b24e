"""HTTP metrics: every request counted by route template and status, with its latency."""

from __future__ import annotations

import time

from quart import Quart, Response, g, request

from react_agent.observability.metrics import process_metrics

UNMATCHED_ROUTE = "unmatched"
"""The route label of a request that matched no route (a 404 by any path)."""

REJECTIONS = {
    "QUEUE_FULL": "queue_full",
    "SHUTTING_DOWN": "shutting_down",
    "QUOTA_EXCEEDED": "quota",
    "RATE_LIMITED": "quota",
}
"""Error types that refuse a question at admission, and their label value."""


def install_http_metrics(app: Quart) -> None:
    """Count each request (sqlagent_http_requests_total) and time it, and count rejections.

    Installed before the API keys' check, so that refused requests are counted too. A
    stream is timed to its headers; its run has metrics of its own.
    """
    metrics = process_metrics()

    @app.before_request
    async def start_request_timer() -> None:
        g.request_started = time.perf_counter()

    @app.after_request
    async def count_request(response: Response) -> Response:
        rule = request.url_rule.rule if request.url_rule is not None else UNMATCHED_ROUTE
        metrics.http_requests.labels(request.method, rule, str(response.status_code)).inc()
        started = getattr(g, "request_started", None)
        if started is not None:
            elapsed = time.perf_counter() - started
            metrics.http_duration.labels(request.method, rule).observe(elapsed)
        rejection = REJECTIONS.get(getattr(g, "error_type", ""))
        if rejection is not None and response.status_code in (429, 503):
            metrics.rejections.labels(rejection).inc()
        return response
