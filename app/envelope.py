"""The response envelope `{code, success, message, data}` shared by every endpoint."""

from __future__ import annotations

from typing import Any

from config import localize
from react_agent.errors import ServiceError
from react_agent.timestamps import now_timestamp


def success_envelope(
    data: Any, lang: str | None, *, message_key: str = "SUCCESS", **params: object
) -> dict[str, Any]:
    """Wrap `data` in a success envelope; `params` fill the message's placeholders."""
    message = localize(message_key, lang, **params)
    return {"code": 200, "success": True, "message": message, "data": data}


def error_envelope(
    error: ServiceError,
    lang: str | None,
    *,
    conversation_id: str | None = None,
    legacy: bool = False,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Wrap an error in the envelope; `legacy` adds the sync API's top-level `error` string.

    Args:
        error: The error to report.
        lang: Language of `message`.
        conversation_id: The thread the request was about, when known.
        legacy: Whether to add the top-level `error` string the legacy sync clients read.
        extra: More fields for `data` (e.g. the health report).

    """
    data: dict[str, Any] = {
        "error": error.detail,
        "error_type": error.error_type,
        "can_retry": error.can_retry,
        "timestamp": now_timestamp(),
    }
    if conversation_id:
        data["conversation_id"] = conversation_id
    if extra:
        data.update(extra)
    body: dict[str, Any] = {
        "code": error.status,
        "success": False,
        "message": localize(error.error_type, lang, **error.params),
        "data": data,
    }
    if legacy:
        body["error"] = error.detail
    return body
