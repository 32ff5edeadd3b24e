"""GET /api/v0/whoami: whom the request's key acts for (the page fills in its one bound user)."""

from __future__ import annotations

from quart import Blueprint, current_app, g
from quart_schema import document_response

from app.http.app_state import app_settings
from app.http.auth import ApiKey, api_keys_of
from app.http.envelope import success_envelope
from app.http.errors import request_lang
from app.openapi import document_errors
from app.schemas.page import WhoamiEnvelope

blueprint = Blueprint("whoami", __name__)


@blueprint.get("/api/v0/whoami")
@document_response(WhoamiEnvelope, 200)
@document_errors(401)
async def whoami() -> dict:
    """Say whom the request's key acts for: its one bound user, its users, or anyone."""
    key: ApiKey | None = getattr(g, "api_key", None)
    users = sorted(key.users) if key is not None and key.users is not None else None
    data = {
        "keys_required": api_keys_of(current_app).enabled,
        "user_id": users[0] if users and len(users) == 1 else None,
        "users": users,
        # The page offers uploads only then, instead of probing /datasets for a 404.
        "datasets": app_settings().datasets_enabled,
    }
    return success_envelope(data, request_lang())
