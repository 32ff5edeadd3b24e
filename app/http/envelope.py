"""The response envelope `{code, success, message, data}` shared by every endpoint."""

from __future__ import annotations

from typing import Any

from app.http.faults import InputFaults
from config import DEFAULT_LANG, localize, resolve_lang
from config.legacy_messages import legacy_text
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
    timestamp: str | None = None,
) -> dict[str, Any]:
    """Wrap an error in the envelope; `legacy` adds the sync API's top-level `error` string.

    In zh-CN the legacy envelope's `message` and `error` are the replaced service's texts
    where it had them (its clients match on them), several faults joined with `; `;
    elsewhere, and in en-US, `error` is the detail.

    Args:
        error: The error to report.
        lang: Language of `message`.
        conversation_id: The thread the request was about, when known.
        legacy: Whether to add the top-level `error` string the legacy sync clients read.
        extra: More fields for `data` (e.g. the health report).
        timestamp: When the error happened (a stream's: its event's); None: now.

    """
    data: dict[str, Any] = {
        "error": error.detail,
        "error_type": error.error_type,
        "can_retry": error.can_retry,
        "timestamp": timestamp or now_timestamp(),
    }
    if conversation_id:
        data["conversation_id"] = conversation_id
    if "retry_after" in error.params:  # 429 QUOTA_EXCEEDED, 503 QUEUE_FULL: as Retry-After
        data["retry_after"] = error.params["retry_after"]
    if extra:
        data.update(extra)
    body: dict[str, Any] = {
        "code": error.status,
        "success": False,
        "message": localize(error.message_key, lang, **error.params),
        "data": data,
    }
    if legacy:
        body["error"] = error.detail
        if resolve_lang(lang) == DEFAULT_LANG:
            _use_legacy_texts(body, error)
    return body


def _use_legacy_texts(body: dict[str, Any], error: ServiceError) -> None:
    faults = error.faults if isinstance(error, InputFaults) else [error]
    texts = [legacy_text(fault.error_type, **fault.params) for fault in faults]
    if not any(texts):
        return
    body["error"] = "; ".join(
        text.error if text else localize(fault.message_key, DEFAULT_LANG, **fault.params)
        for fault, text in zip(faults, texts, strict=True)
    )
    if texts[0] is not None:
        body["message"] = texts[0].message
