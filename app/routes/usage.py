"""The caller's use of their quotas: questions this minute, model tokens today, the limits."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from quart import Blueprint, g
from quart_schema import document_response, validate_querystring

from app.asking.access import caller_user_id, request_actor
from app.http.app_state import agent_service
from app.http.envelope import success_envelope
from app.http.errors import request_lang
from app.openapi import document_errors
from app.schemas.audit import UsageEnvelope, UsageQuery
from react_agent.quotas.counters import windows_at
from react_agent.quotas.gate import QuotaLimits, usage_data

blueprint = Blueprint("usage", __name__)


@blueprint.get("/api/v0/usage")
@validate_querystring(UsageQuery)
@document_response(UsageEnvelope, 200)
@document_errors(400, 401, 403)
async def read_usage(query_args: UsageQuery) -> dict[str, Any]:
    """Return the caller's questions this minute, tokens today, limits and reset times."""
    g.lang = request_lang()
    actor, scope = request_actor(agent_service(), caller_user_id(query_args.user_id))
    ledger = agent_service().ledger
    if ledger is not None and ledger.quotas is not None:
        usage = await ledger.quotas.usage(actor.user_id, scope)
    else:  # nothing is counted: no limits, nothing used
        windows = windows_at(datetime.now(UTC))
        usage = usage_data(actor.user_id, {}, QuotaLimits(), windows, counted=False)
    return success_envelope(usage, g.lang)
