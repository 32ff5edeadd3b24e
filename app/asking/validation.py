"""The one validation of ask requests, shared by the sync route and the stream route."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError

from app.asking.resume_body import ResumeDecisionBody
from app.asking.thread_ids import ThreadIdClock
from app.http.faults import raise_faults
from app.http.ids import (
    GUEST_USER_ID,
    MAX_THREAD_ID_CHARS,
    MAX_USER_ID_CHARS,
    THREAD_ID_PATTERN,
    USER_ID_PATTERN,
    check_thread_owner,
    choose_thread_id,
    describe_validation_error,
    thread_id_fault,
    user_id_fault,
)
from config import resolve_lang
from react_agent.access.actor import Actor
from react_agent.access.scope import Scope
from react_agent.approval.decisions import ApprovalDecision
from react_agent.databases.base import SQLDatabase
from react_agent.errors import ServiceError, bad_request
from react_agent.runs.admission.busy_threads import OnBusy

MAX_QUESTION_CHARS = 2000


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
        description="At most 50 characters, no ':', whitespace or control characters; "
        "default from thread_id or guest.",
        json_schema_extra={"maxLength": MAX_USER_ID_CHARS, "pattern": USER_ID_PATTERN},
    )
    thread_id: StrictStr | None = Field(
        default=None,
        description="`user_id:…`, no whitespace or control characters; a new one is made "
        "when absent. Wins over conversation_id when both are sent.",
        json_schema_extra={"maxLength": MAX_THREAD_ID_CHARS, "pattern": THREAD_ID_PATTERN},
    )
    conversation_id: StrictStr | None = Field(
        default=None,
        description="Alias of thread_id (ignored, with a Warning header, when both differ).",
        json_schema_extra={"maxLength": MAX_THREAD_ID_CHARS, "pattern": THREAD_ID_PATTERN},
    )
    lang: StrictStr | None = Field(default=None, description="zh-CN (default) or en-US.")
    stream_tokens: StrictBool = Field(
        default=False, description="Stream endpoint only: also send the answer's text as it comes."
    )
    stream_tools: StrictBool = Field(
        default=False,
        description="Stream endpoint only: also send tool_call and tool_result events.",
    )
    on_busy: OnBusy = Field(
        default="reject",
        description="When the thread is answering another question: reject (409 "
        "THREAD_BUSY), enqueue (wait for it, then answer; the stream shows a `__queued__` "
        "progress event meanwhile) or interrupt (cancel it, then answer).",
    )
    approve_sql: StrictBool = Field(
        default=False,
        description="Stop before each query for a person to approve, edit or reject it "
        "(always on with SQL_APPROVAL=always).",
    )
    resume: ResumeDecisionBody | None = Field(
        default=None,
        description="Instead of `question`, with the thread_id of a conversation waiting for "
        "approval or an answer: the person's decision or answer. The run goes on and "
        "streams like any run.",
    )
    clarify: StrictBool | None = Field(
        default=None,
        description="Whether the agent may pause to ask a clarifying question (ask_user); "
        "default: only with CLARIFY=on (the page sends true). false: it states its "
        "assumption instead.",
    )
    dataset_id: StrictStr | None = Field(
        default=None,
        description="Ask about one of the asker's uploaded datasets (POST /api/v0/datasets) "
        "instead of the service's database; 404 DATASET_NOT_FOUND if it is not theirs.",
        json_schema_extra={"pattern": "^[0-9a-f]{16}$"},
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
    stream_tools: bool = False
    conversation_id_ignored: bool = False
    """Both ids were sent and differed; thread_id was used."""
    approve_sql: bool = False
    """Stop before each query for a person's decision."""
    on_busy: OnBusy = "reject"
    """What to do when the thread is answering another question."""
    resume: ApprovalDecision | None = None
    clarify: bool | None = None
    """Whether the run may pause to ask back; None until accept applies CLARIFY."""
    """The decision a resume request carries (its question is then empty)."""
    actor: Actor | None = None
    """Who asks (set by the accept path once the request is valid)."""
    scope: Scope | None = None
    """What they may see under the access policy; None when there is no policy."""
    dataset_id: str | None = None
    """The asker's dataset the question is about; None for the service's database."""
    data_source: SQLDatabase | None = None
    """That dataset, opened by the accept path: the run's data source (None: the service's)."""


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
        detail = describe_validation_error(exc)
        raise bad_request("INVALID_REQUEST", detail, reason=detail) from exc
    lang = resolve_lang(body.lang, accept_language)
    question = body.question.strip()
    user_id = (body.user_id or "").strip() or None
    thread_id, conversation_id_ignored = choose_thread_id(body.thread_id, body.conversation_id)
    faults = [
        fault
        for fault in (
            _question_fault(question),
            user_id_fault(user_id) if user_id is not None else None,
            thread_id_fault(thread_id) if thread_id is not None else None,
        )
        if fault is not None
    ]
    if thread_id is not None and not _names_thread_id_fault(faults):
        user_id = user_id or thread_id.partition(":")[0]
        faults.extend(_owner_faults(thread_id, user_id))
    raise_faults(faults)
    if thread_id is None:
        user_id = user_id or GUEST_USER_ID
        thread_id, is_new_thread = clock.new_thread_id(user_id), True
    else:
        is_new_thread = False
    assert user_id is not None
    return AskRequest(
        question=question,
        user_id=user_id,
        thread_id=thread_id,
        is_new_thread=is_new_thread,
        lang=lang,
        stream_tokens=body.stream_tokens,
        stream_tools=body.stream_tools,
        conversation_id_ignored=conversation_id_ignored,
        approve_sql=body.approve_sql,
        on_busy=body.on_busy,
        clarify=body.clarify,
        dataset_id=body.dataset_id,
    )


def _question_fault(question: str) -> ServiceError | None:
    if not question:
        return bad_request("QUESTION_REQUIRED", "question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        return bad_request(
            "QUESTION_TOO_LONG",
            f"question has {len(question)} characters; the limit is {MAX_QUESTION_CHARS}",
            limit=MAX_QUESTION_CHARS,
        )
    return None


def _names_thread_id_fault(faults: list[ServiceError]) -> bool:
    return any(fault.error_type == "THREAD_ID_INVALID" for fault in faults)


def _owner_faults(thread_id: str, user_id: str) -> list[ServiceError]:
    try:
        check_thread_owner(thread_id, user_id)
    except ServiceError as fault:
        return [fault]
    return []
