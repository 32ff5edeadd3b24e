"""GET /health: is the agent ready, and what is it connected to."""

from __future__ import annotations

import asyncio

from quart import Blueprint, Response, current_app, jsonify

from app.envelope import error_envelope, success_envelope
from app.errors import request_lang
from react_agent.errors import ServiceError
from react_agent.service import AgentService, describe_components

blueprint = Blueprint("health", __name__)

PING_TIMEOUT = 3.0


@blueprint.get("/health")
async def health() -> Response:
    """Report each component; 200 when questions can be answered, else 503 with the reason."""
    service: AgentService = current_app.extensions["agent"]
    report = describe_components(service)
    problems = dict(service.problems)
    if service.database is not None:
        try:
            await asyncio.wait_for(service.database.ping(), PING_TIMEOUT)
        except Exception as exc:
            report["data_database"]["ok"] = False
            problems.setdefault(
                "data_database",
                ServiceError(503, "DATABASE_UNAVAILABLE", f"data database: {exc}", can_retry=True),
            )
    lang = request_lang()
    if not problems and service.runner is not None:
        return jsonify(success_envelope({"status": "ok", **report}, lang, message_key="HEALTH_OK"))
    first = next(iter(problems.values()), None) or ServiceError(
        503, "AGENT_NOT_READY", "the agent is not running", can_retry=True
    )
    report["problems"] = {name: error.detail for name, error in problems.items()}
    body = error_envelope(first, lang, extra={"status": "degraded", **report})
    response = jsonify(body)
    response.status_code = 503
    return response
