"""GET /ready (and /api/v0/ready): can this process answer a question now, part by part."""

from __future__ import annotations

from quart import Blueprint, Response, jsonify
from quart_schema import document_response

from app.http.app_state import agent_service
from app.http.envelope import success_envelope
from app.http.errors import ServiceErrorWithData, request_lang
from app.schemas.health import ReadyEnvelope
from react_agent.service.readiness import check_readiness

blueprint = Blueprint("ready", __name__)

PING_TIMEOUT = 3.0
"""Seconds each part's check may take: a probe gets its answer in about that."""


@blueprint.get("/ready")
@blueprint.get("/api/v0/ready")
@document_response(ReadyEnvelope, 200)
@document_response(ReadyEnvelope, 503)
async def ready() -> Response:
    """Report each part; 200 when questions can be answered now, 503 when a required one is down.

    `/health` stays the liveness check of the replaced service's clients; this is the
    readiness probe: the databases are pinged, the memory read, and the model reported from
    its last real call (no call of its own).
    """
    report, problem = await check_readiness(agent_service(), timeout=PING_TIMEOUT)
    if problem is not None:
        raise ServiceErrorWithData(problem, report)
    return jsonify(success_envelope(report, request_lang(), message_key="READY_OK"))
