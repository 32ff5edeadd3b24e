"""GET /metrics: the Prometheus text of every worker's metrics (registered when METRICS is on)."""

from __future__ import annotations

from quart import Blueprint, Response

from react_agent.observability.metrics import exposition

blueprint = Blueprint("metrics", __name__)


@blueprint.get("/metrics")
async def metrics() -> Response:
    """Return the metrics in Prometheus' text format (outside the envelope, as Prometheus reads)."""
    body, content_type = exposition()
    return Response(body, status=200, content_type=content_type)
