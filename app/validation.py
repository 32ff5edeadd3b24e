"""The one validation of ask requests, shared by the sync route and the stream route."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote_to_bytes

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError
from quart import Request

from app.thread_ids import ThreadIdClock
from config import resolve_lang
from react_agent.approval.decisions import ApprovalDecision
from react_agent.errors import ServiceError, bad_request

MAX_QUESTION_CHARS = 2000
MAX_USER_ID_CHARS = 50
MAX_THREAD_ID_CHARS = 128
GUEST_USER_ID = "guest"
THREAD_ID_PATTERN = r"^[^:]{1,50}:\S.*$"
MAX_RESUME_SQL_CHARS = 20000
MAX_RESUME_COMMENT_CHARS = 2000


class ResumeDecisionBody(BaseModel):
    """A person's answer to the SQL approval a conversation waits for."""

    model_config = ConfigDict(extra="forbid")

    interrupt_id: StrictStr = Field(
        min_length=1, description="The `interrupt_id` of the interrupt event being answered."
    )
    action: Literal["approve", "edit", "reject"] = Field(
        description="approve: run the SQL; edit: run `sql` instead; reject: do not run it."
    )
    sql: StrictStr | None = Field(
        default=None, max_length=MAX_RESUME_SQL_CHARS, description="The edited SQL (edit only)."
    )
    comment: StrictStr | None = Field(
        default=None,
        max_length=MAX_RESUME_COMMENT_CHARS,
        description="Why, for the model to read (mostly with reject).",
    )


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
    approve_sql: StrictBool = Field(
        default=False,
        description="Stop before each query for a person to approve, edit or reject it "
        "(always on with SQL_APPROVAL=always).",
    )
    resume: ResumeDecisionBody | None = Field(
        default=None,
        description="Instead of `question`, with the thread_id of a conversation waiting for "
        "approval: the person's decision. The run goes on and streams like any run.",
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
    approve_sql: bool = False
    resume: ApprovalDecision | None = None
    """The decision a resume request carries (its question is then empty)."""


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
    for name in ("stream_tokens", "approve_sql"):
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
    if payload.get("resume") is not None:
        return validate_resume_request(payload, accept_language=accept_language)
    try:
        body = AskBody.model_validate(payload)
    except ValidationError as exc:
        detail = _describe_errors(exc)
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
            body.approve_sql,
        )

    owner = check_thread_id_format(thread_id)
    user_id = user_id or owner
    check_thread_owner(thread_id, user_id)
    return AskRequest(
        question, user_id, thread_id, False, lang, body.stream_tokens, body.approve_sql
    )


def validate_resume_request(
    payload: dict[str, Any], *, accept_language: str | None = None
) -> AskRequest:
    """Check a resume payload (thread_id plus `resume` instead of a question).

    Raises:
        ServiceError: 400 RESUME_INVALID naming what is wrong with the decision (or a
            question sent beside it, or no thread), or the ask endpoints' id errors.

    """
    resume = payload.get("resume")
    if not isinstance(resume, dict):
        raise _resume_invalid("resume must be an object with interrupt_id and action")
    if payload.get("question") not in (None, ""):
        raise _resume_invalid("send either question or resume, not both")
    try:
        body = AskBody.model_validate({**payload, "question": ""})
    except ValidationError as exc:
        raise _resume_invalid(_describe_errors(exc)) from exc
    decision = body.resume
    assert decision is not None
    lang = resolve_lang(body.lang, accept_language)
    sql = (decision.sql or "").strip()
    if decision.action == "edit" and not sql:
        raise _resume_invalid("resume.sql: the edited SQL is required with action edit")
    if decision.action != "edit" and decision.sql is not None:
        raise _resume_invalid("resume.sql: SQL is given only with action edit")
    thread_id = _choose_thread_id(body.thread_id, body.conversation_id)
    if thread_id is None:
        raise _resume_invalid("thread_id: resume needs the conversation that waits for approval")
    user_id = (body.user_id or "").strip() or None
    if user_id is not None:
        check_user_id(user_id)
    owner = check_thread_id_format(thread_id)
    user_id = user_id or owner
    check_thread_owner(thread_id, user_id)
    comment = (decision.comment or "").strip() or None
    approval = ApprovalDecision(decision.interrupt_id, decision.action, sql or None, comment)
    return AskRequest("", user_id, thread_id, False, lang, body.stream_tokens, True, approval)


def _resume_invalid(reason: str) -> ServiceError:
    return bad_request("RESUME_INVALID", reason, reason=reason)


def _describe_errors(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in error['loc']) or 'body'}: {error['msg']}"
        for error in exc.errors()
    )


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
