"""Reading a request's payload before validation: its JSON body, or a GET query's arguments."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote_to_bytes

from quart import Request

from react_agent.errors import ServiceError, bad_request


async def read_json_object(request: Request, *, allow_empty: bool = False) -> dict[str, Any]:
    """Return the request's JSON object body, or raise a 400 that says what is wrong.

    `{}` is refused (EMPTY_BODY, as the replaced service did) unless `allow_empty`: a query
    whose every filter has a default may be sent as `{}`.
    """
    mimetype = request.mimetype
    if mimetype and mimetype != "application/json" and not mimetype.endswith("+json"):
        raise ServiceError(
            400,
            "UNSUPPORTED_CONTENT_TYPE",
            f"unsupported Content-Type {mimetype!r}; send application/json",
        )
    raw = await request.get_data(as_text=False)
    if not raw.strip():
        raise bad_request("EMPTY_BODY", "the body is empty")
    try:
        payload = json.loads(raw)
    except UnicodeDecodeError as exc:
        raise bad_request("INVALID_JSON", f"the body is not UTF-8: {exc}") from exc
    except (json.JSONDecodeError, RecursionError) as exc:
        raise bad_request("INVALID_JSON", f"the body is not valid JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise bad_request(
            "INVALID_REQUEST",
            "the body must be a JSON object",
            reason="the body must be a JSON object",
        )
    if not payload and not allow_empty:
        raise bad_request("EMPTY_BODY", "the body is an empty JSON object")
    return payload


async def optional_json_object(request: Request) -> dict[str, Any] | None:
    """Return the body as a JSON object, or None when it is absent, not UTF-8 or not an object.

    For code that only looks for a field (a user id) and must not fail on a body it cannot
    read: the route that needs the body says what is wrong with it.
    """
    raw = await request.get_data(as_text=False)
    try:
        payload = json.loads(raw) if raw.strip() else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return payload if isinstance(payload, dict) else None


QUERY_FLAGS = ("stream_tokens", "stream_tools", "approve_sql", "clarify")
"""Boolean fields a GET query may carry as true/false/1/0/yes/no/on/off."""


def query_args_payload(args: Any, raw_query: bytes = b"") -> dict[str, Any]:
    """Turn GET query parameters into an ask payload (stream_tokens from true/false/1/0).

    Raises:
        ServiceError: 400 when `raw_query`, percent-decoded, is not UTF-8 (Werkzeug would
            pass the bad bytes on still percent-encoded, as if they were the question).

    """
    try:
        unquote_to_bytes(raw_query.replace(b"+", b" ")).decode("utf-8")
    except UnicodeDecodeError as exc:
        detail = "the query string is not valid UTF-8"
        raise bad_request("INVALID_REQUEST", detail, reason=detail) from exc
    payload: dict[str, Any] = {key: args.get(key) for key in args}
    for name in QUERY_FLAGS:
        if name in payload:
            flag = str(payload[name]).strip().lower()
            if flag in ("1", "true", "yes", "on"):
                payload[name] = True
            elif flag in ("", "0", "false", "no", "off"):
                payload[name] = False
    if isinstance(payload.get("resume"), str):
        # GET carries the decision as JSON text; what does not parse stays text (a 400).
        try:
            payload["resume"] = json.loads(payload["resume"])
        except json.JSONDecodeError:
            pass
    return payload
