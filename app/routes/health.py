"""GET /health: is the agent ready, and what is it connected to."""

from __future__ import annotations

from quart import Blueprint, Response, current_app, jsonify
from quart_schema import document_response

from app.envelope import error_envelope, success_envelope
from app.errors import request_lang
from app.schemas import HealthEnvelope
from react_agent.errors import ServiceError
from react_agent.service import AgentService, check_components, describe_components

blueprint = Blueprint("health", __name__)

PING_TIMEOUT = 3.0


@blueprint.get("/health")
@document_response(HealthEnvelope, 200)
@document_response(HealthEnvelope, 503)
async def health() -> Response:
    """Report each component; 200 when questions can be answered, else 503 with the reason."""
    service: AgentService = current_app.extensions["agent"]
    # Pinging also clears PostgreSQL problems that have gone away since start-up.
    problems = await check_components(service, timeout=PING_TIMEOUT)
    report = describe_components(service)
    for component in ("data_database", "checkpointer"):
        report[component]["ok"] = report[component]["ok"] and component not in problems
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
