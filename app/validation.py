"""The one validation of ask requests, shared by the sync route and the stream route."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_to_bytes

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError
from quart import Request

from app.thread_ids import ThreadIdClock
from config import resolve_lang
from react_agent.errors import ServiceError, bad_request
from react_agent.runs.busy_threads import OnBusy

MAX_QUESTION_CHARS = 2000
MAX_USER_ID_CHARS = 50
MAX_THREAD_ID_CHARS = 128
GUEST_USER_ID = "guest"
THREAD_ID_PATTERN = r"^[^:]{1,50}:\S.*$"


class AskBody(BaseModel):
    """The fields of an ask request, as clients send them."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    # The length and format rules are checked below, with their own error codes; the
    # json_schema_extra entries only document them in the OpenAPI schema.
    question: StrictStr = Field(
        description="The question; 1–2000 characters after stripping.",
        json_schema_extra={"minLength": 1, "maxLength": MAX_QUESTION_CHARS, "pattern": r"\S"},
    )
    user_id: StrictStr | None = Field(
        default=None,
        description="At most 50 characters, no ':'; default from thread_id or guest.",
        json_schema_extra={"maxLength": MAX_USER_ID_CHARS, "pattern": "^[^:]*$"},
    )
    thread_id: StrictStr | None = Field(
        default=None,
        description="`user_id:…`; a new one is made when absent.",
        json_schema_extra={"maxLength": MAX_THREAD_ID_CHARS, "pattern": THREAD_ID_PATTERN},
    )
    conversation_id: StrictStr | None = Field(
        default=None,
        description="Alias of thread_id.",
        json_schema_extra={"maxLength": MAX_THREAD_ID_CHARS, "pattern": THREAD_ID_PATTERN},
    )
    lang: StrictStr | None = Field(default=None, description="zh-CN (default) or en-US.")
    stream_tokens: StrictBool = Field(
        default=False, description="Stream endpoint only: also send the answer's text as it comes."
    )
    on_busy: OnBusy = Field(
        default="reject",
        description="When the thread is answering another question: reject (409 "
        "THREAD_BUSY), enqueue (wait for it, then answer; the stream shows a `__queued__` "
        "progress event meanwhile) or interrupt (cancel it, then answer).",
    )


@dataclass(frozen=True)
class AskRequest:
    """A validated ask request."""

    question: str
    user_id: str
    thread_id: str
    is_new_thread: bool
    lang: str
    stream_tokens: bool
    on_busy: OnBusy = "reject"


async def read_json_object(request: Request) -> dict[str, Any]:
    """Return the request's JSON object body, or raise a 400 that says what is wrong."""
    mimetype = request.mimetype
    if mimetype and mimetype != "application/json" and not mimetype.endswith("+json"):
        raise ServiceError(
            400,
            "UNSUPPORTED_CONTENT_TYPE",
            f"unsupported Content-Type {mimetype!r}; send application/json",
        )
    raw = await request.get_data(as_text=False)
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
    return payload


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
    if "stream_tokens" in payload:
        flag = str(payload["stream_tokens"]).strip().lower()
        if flag in ("1", "true", "yes", "on"):
            payload["stream_tokens"] = True
        elif flag in ("", "0", "false", "no", "off"):
            payload["stream_tokens"] = False
    return payload


def validate_ask_request(
    payload: dict[str, Any], clock: ThreadIdClock, *, accept_language: str | None = None
) -> AskRequest:
    """Check an ask payload against the API's rules and fill in user and thread ids.

    Args:
        payload: The JSON body (POST) or query parameters (GET).
        clock: Where new thread ids come from.
        accept_language: The Accept-Language header, used when `lang` is absent.

    Raises:
        ServiceError: 400 with a code naming the broken rule.

    """
    try:
        body = AskBody.model_validate(payload)
    except ValidationError as exc:
        detail = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'body'}: {error['msg']}"
            for error in exc.errors()
        )
        raise bad_request("INVALID_REQUEST", detail, reason=detail) from exc
    lang = resolve_lang(body.lang, accept_language)

    question = body.question.strip()
    if not question:
        raise bad_request("QUESTION_REQUIRED", "question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise bad_request(
            "QUESTION_TOO_LONG",
            f"question has {len(question)} characters; the limit is {MAX_QUESTION_CHARS}",
            limit=MAX_QUESTION_CHARS,
        )

    thread_id = _choose_thread_id(body.thread_id, body.conversation_id)
    user_id = (body.user_id or "").strip() or None
    if user_id is not None:
        check_user_id(user_id)

    if thread_id is None:
        user_id = user_id or GUEST_USER_ID
        return AskRequest(
            question,
            user_id,
            clock.new_thread_id(user_id),
            True,
            lang,
            body.stream_tokens,
            body.on_busy,
        )

    owner = check_thread_id_format(thread_id)
    user_id = user_id or owner
    check_thread_owner(thread_id, user_id)
    return AskRequest(question, user_id, thread_id, False, lang, body.stream_tokens, body.on_busy)


def check_user_id(user_id: str) -> str:
    """Return `user_id` if it keeps the API's rules (at most 50 characters, no ':')."""
    if len(user_id) > MAX_USER_ID_CHARS:
        raise bad_request(
            "USER_ID_TOO_LONG",
            f"user_id has {len(user_id)} characters; the limit is {MAX_USER_ID_CHARS}",
            limit=MAX_USER_ID_CHARS,
        )
    if ":" in user_id:
        raise bad_request("USER_ID_INVALID", "user_id must not contain ':'")
    return user_id


def check_thread_id_format(thread_id: str) -> str:
    """Return the owner part of a `user_id:…` thread id, or raise 400."""
    owner, sep, rest = thread_id.partition(":")
    if not sep or not owner or not rest.strip() or len(thread_id) > MAX_THREAD_ID_CHARS:
        raise bad_request(
            "THREAD_ID_INVALID",
            f"thread_id {thread_id[:MAX_THREAD_ID_CHARS]!r} must look like user_id:identifier "
            f"(at most {MAX_THREAD_ID_CHARS} characters)",
        )
    if len(owner) > MAX_USER_ID_CHARS:
        raise bad_request(
            "USER_ID_TOO_LONG",
            f"the user part of thread_id is longer than {MAX_USER_ID_CHARS} characters",
            limit=MAX_USER_ID_CHARS,
        )
    return owner


def check_thread_owner(thread_id: str, user_id: str) -> None:
    """Raise 400 naming both ids when `thread_id` does not belong to `user_id`."""
    if thread_id.partition(":")[0] != user_id:
        raise bad_request(
            "THREAD_OWNERSHIP_MISMATCH",
            f"thread_id {thread_id} does not belong to user_id {user_id}",
            thread_id=thread_id,
            user_id=user_id,
        )


def _choose_thread_id(thread_id: str | None, conversation_id: str | None) -> str | None:
    thread_id = (thread_id or "").strip() or None
    conversation_id = (conversation_id or "").strip() or None
    if thread_id and conversation_id and thread_id != conversation_id:
        raise bad_request(
            "INVALID_REQUEST",
            "thread_id and conversation_id differ; send one of them",
            reason="thread_id and conversation_id differ; send one of them",
        )
    return thread_id or conversation_id
