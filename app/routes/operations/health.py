"""GET /health: is the agent ready, and (for an admin key) what is it connected to."""

from __future__ import annotations

from quart import Blueprint, Response, current_app, g, jsonify, request
from quart_schema import document_response

from app.http.app_state import agent_service
from app.http.auth import API_KEY_QUERY_PARAMETER, api_keys_of, bearer_token
from app.http.envelope import success_envelope
from app.http.errors import ServiceErrorWithData, request_lang
from app.schemas.health import HealthEnvelope
from react_agent.errors import ServiceError
from react_agent.service import check_components, describe_components

blueprint = Blueprint("health", __name__)

PING_TIMEOUT = 3.0


@blueprint.get("/health")
@document_response(HealthEnvelope, 200)
@document_response(HealthEnvelope, 503)
async def health() -> Response:
    """Report each component; 200 when questions can be answered, else 503 with the reason.

    Beside the envelope, a top-level `status` (healthy / unhealthy) for the replaced
    service's clients and load balancers. With API keys on, only an admin key (bound to no
    user) sees the components, tables and URLs; any other caller, keyless probes included,
    gets the status and the same status code.
    """
    g.error_top_level_fields = {"status": "unhealthy"}
    service = agent_service()
    # Pinging also clears PostgreSQL problems that have gone away since start-up.
    problems = await check_components(service, timeout=PING_TIMEOUT)
    if not _shows_details():
        return _status_only(problems, ready=service.runner is not None)
    report = describe_components(service)
    for component in ("data_database", "checkpointer"):
        report[component]["ok"] = report[component]["ok"] and component not in problems
    if not problems and service.runner is not None:
        ok = success_envelope({"status": "ok", **report}, request_lang(), message_key="HEALTH_OK")
        return jsonify({**ok, "status": "healthy"})
    first = next(iter(problems.values()), None) or ServiceError(
        503, "AGENT_NOT_READY", "the agent is not running", can_retry=True
    )
    report["problems"] = {name: error.detail for name, error in problems.items()}
    # Always 503, whatever the first problem's own status: the service cannot answer.
    unavailable = ServiceError(
        503, first.error_type, first.detail, can_retry=first.can_retry, **first.params
    )
    raise ServiceErrorWithData(unavailable, {"status": "degraded", **report})


def _shows_details() -> bool:
    """Whether the caller may read the components: keys off, or an admin key (no users bound).

    /health is open (probes carry no key), so the key is looked at here, never required.
    """
    keys = api_keys_of(current_app)
    if not keys.enabled:
        return True
    token = bearer_token(request.headers.get("authorization"))
    key = keys.match(token or request.args.get(API_KEY_QUERY_PARAMETER))
    return key is not None and key.users is None


def _status_only(problems: dict[str, ServiceError], *, ready: bool) -> Response:
    """Return ok (200) or not ok (503) with nothing of the components, tables or URLs."""
    if not problems and ready:
        ok = success_envelope({"status": "ok"}, request_lang(), message_key="HEALTH_OK")
        return jsonify({**ok, "status": "healthy"})
    first = next(iter(problems.values()), None)
    unavailable = ServiceError(
        503,
        first.error_type if first else "AGENT_NOT_READY",
        "the service cannot answer questions now (details: GET /health with an admin key)",
        can_retry=first.can_retry if first else True,
    )
    raise ServiceErrorWithData(unavailable, {"status": "degraded"})
