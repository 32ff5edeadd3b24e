"""Validating a resume: thread_id plus a person's decision instead of a question."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from app.asking.validation import AskBody, AskRequest
from app.http.ids import (
    check_thread_id_format,
    check_thread_owner,
    check_user_id,
    choose_thread_id,
    describe_validation_error,
)
from config import resolve_lang
from react_agent.approval.decisions import ApprovalDecision
from react_agent.errors import ServiceError, bad_request


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
        raise _resume_invalid(describe_validation_error(exc)) from exc
    decision = body.resume
    assert decision is not None
    sql = (decision.sql or "").strip()
    if decision.action == "edit" and not sql:
        raise _resume_invalid("resume.sql: the edited SQL is required with action edit")
    if decision.action != "edit" and decision.sql is not None:
        raise _resume_invalid("resume.sql: SQL is given only with action edit")
    text = (decision.text or "").strip()
    if decision.action == "answer" and not text:
        raise _resume_invalid("resume.text: the answer is required with action answer")
    if decision.action != "answer" and decision.text is not None:
        raise _resume_invalid("resume.text: text is given only with action answer")
    thread_id, conversation_id_ignored = choose_thread_id(body.thread_id, body.conversation_id)
    if thread_id is None:
        raise _resume_invalid("thread_id: resume needs the conversation that waits")
    user_id = (body.user_id or "").strip() or None
    if user_id is not None:
        check_user_id(user_id)
    user_id = user_id or check_thread_id_format(thread_id)
    check_thread_owner(thread_id, user_id)
    comment = (decision.comment or "").strip() or None
    return AskRequest(
        question="",
        user_id=user_id,
        thread_id=thread_id,
        is_new_thread=False,
        lang=resolve_lang(body.lang, accept_language),
        stream_tokens=body.stream_tokens,
        stream_tools=body.stream_tools,
        conversation_id_ignored=conversation_id_ignored,
        # An approval's resume keeps asking for approval; an answer's keeps the request's.
        approve_sql=decision.action != "answer" or body.approve_sql,
        on_busy=body.on_busy,
        resume=ApprovalDecision(
            decision.interrupt_id, decision.action, sql or None, comment, text or None
        ),
        # A client that answers a question back can answer one: the run may still ask.
        clarify=body.clarify if body.clarify is not None else decision.action == "answer" or None,
    )


def _resume_invalid(reason: str) -> ServiceError:
    return bad_request("RESUME_INVALID", reason, reason=reason)
