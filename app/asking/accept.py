"""Accepting an ask request for a route, and recording on `g` what its error envelope needs.

Both ask routes (sync and stream) call `accept`. It records two things on `quart.g`, read
by `app.errors` when it turns a ServiceError into the envelope:

- `g.lang`: the request's language, set before validation so that even a rejected request
  is answered in the language it asked for;
- `g.conversation_id`: the thread an existing conversation names, so errors say which
  conversation they are about. A newly made thread id is not recorded here: it only becomes
  real once its run starts (the route records it then).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from quart import current_app, g, request

from app.app_state import agent_service_of, app_settings, stream_runs, thread_id_clock
from app.asking.access import request_actor, with_key_user
from app.asking.resume import validate_resume_request
from app.asking.thread_ids import unique_new_thread_id
from app.asking.validation import AskRequest, validate_ask_request
from app.auth import authorize_user
from config import resolve_lang

CONVERSATION_ID_IGNORED_WARNING = '299 - "conversation_id ignored: thread_id was also sent"'
"""The Warning header of an answer to a request whose two differing ids named the thread."""


def accept(payload: dict[str, Any]) -> AskRequest:
    """Validate an ask payload and remember its language and thread for error envelopes."""
    accept_language = request.headers.get("Accept-Language")
    requested_lang = payload.get("lang")
    g.lang = resolve_lang(
        requested_lang if isinstance(requested_lang, str) else None, accept_language
    )
    payload = with_key_user(payload)
    if payload.get("resume") is not None:
        ask = validate_resume_request(payload, accept_language=accept_language)
    else:
        ask = validate_ask_request(payload, thread_id_clock(), accept_language=accept_language)
    g.lang = ask.lang
    authorize_user(ask.user_id)
    actor, scope = request_actor(agent_service_of(current_app), ask.user_id)
    ask = replace(ask, actor=actor, scope=scope)
    if app_settings().sql_approval == "always" or (scope is not None and scope.approve_sql):
        ask = replace(ask, approve_sql=True)
    if not ask.is_new_thread:
        g.conversation_id = ask.thread_id
    return ask


def ask_response_headers(ask: AskRequest) -> dict[str, str]:
    """Return the headers an answer to `ask` carries: a Warning when conversation_id lost."""
    if ask.conversation_id_ignored:
        return {"Warning": CONVERSATION_ID_IGNORED_WARNING}
    return {}


async def accept_unique(payload: dict[str, Any]) -> AskRequest:
    """Like `accept`, and a new thread id is made unique across processes and hosts."""
    return await with_unique_thread_id(accept(payload))


async def with_unique_thread_id(ask: AskRequest) -> AskRequest:
    """Return `ask` with its new thread id (if new) reserved in the shared run store."""
    if not ask.is_new_thread:
        return ask
    thread_id = await unique_new_thread_id(
        thread_id_clock(), stream_runs().store, ask.user_id, ask.thread_id
    )
    return replace(ask, thread_id=thread_id)
