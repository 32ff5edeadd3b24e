"""Accepting an ask request: validating it for a route, then admitting it on every surface.

Both ask routes (sync and stream) call `accept`; every surface then calls `admit`. `accept`
records two things on `quart.g`, read by `app.errors` when it turns a ServiceError into the
envelope:

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

from app.app_state import (
    agent_service,
    agent_service_of,
    app_settings,
    thread_id_clock,
)
from app.asking.access import request_actor, with_key_user
from app.asking.quotas import admit_question
from app.asking.resume import validate_resume_request
from app.asking.thread_ids import ThreadIdClock, unique_new_thread_id
from app.asking.validation import AskRequest, validate_ask_request
from app.auth import authorize_user
from config import Settings, resolve_lang
from react_agent.access.actor import Actor
from react_agent.access.stricter import allows_nothing
from react_agent.databases.base import SQLDatabase
from react_agent.errors import ServiceError
from react_agent.log_context import bind_log_ids
from react_agent.service import AgentService

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
    bind_log_ids(user_id=ask.user_id, thread_id=ask.thread_id)  # the request's log lines
    actor, scope = request_actor(agent_service_of(current_app), ask.user_id)
    ask = with_service_pauses(replace(ask, actor=actor, scope=scope), app_settings())
    if not ask.is_new_thread:
        g.conversation_id = ask.thread_id
    return ask


def with_service_pauses(ask: AskRequest, settings: Settings) -> AskRequest:
    """Return `ask` with the service's and its role's pause settings (every surface calls it).

    SQL_APPROVAL=always, or a role with `approve_sql`, makes every query wait for a person;
    CLARIFY=off never pauses to ask back; request (the default) only when the request says
    `clarify: true` (the page does); on unless it says `clarify: false`.
    """
    role_approves = ask.scope is not None and ask.scope.approve_sql
    approve_sql = ask.approve_sql or settings.sql_approval == "always" or role_approves
    asked = ask.clarify is not False if settings.clarify == "on" else ask.clarify is True
    clarify = settings.clarify != "off" and asked
    return replace(ask, approve_sql=approve_sql, clarify=clarify)


def ask_response_headers(ask: AskRequest) -> dict[str, str]:
    """Return the headers an answer to `ask` carries: a Warning when conversation_id lost."""
    if ask.conversation_id_ignored:
        return {"Warning": CONVERSATION_ID_IGNORED_WARNING}
    return {}


async def accept_unique(payload: dict[str, Any]) -> AskRequest:
    """Like `accept`, then `admit` it (the ask routes' whole accept path)."""
    return await admit(agent_service(), thread_id_clock(), accept(payload))


async def admit(service: AgentService, clock: ThreadIdClock, ask: AskRequest) -> AskRequest:
    """Admit a validated `ask`: the asker's quota, a new thread id unique everywhere, its dataset.

    The one accept step after validation on every surface: the ask routes (`accept_unique`),
    the OpenAI route and the MCP tools each validate in their own words, then call this.
    It reads no Quart request: `service` and `clock` are passed in, because the MCP tools run
    outside Quart (over the /mcp mount, or stdio with a service of their own).

    Args:
        service: The agent service (quotas, the run store, datasets).
        clock: The process's source of new thread ids.
        ask: The validated request, its actor and scope resolved (the policy now); `ask.resume`
            set when it answers a pause: it counts as a question, and is refused (403
            ACCESS_REVOKED) when the policy now gives the asker no role.

    """
    actor = ask.actor or Actor(ask.user_id)
    if ask.resume is not None and ask.scope is not None and allows_nothing(ask.scope):
        # The policy no longer gives the asker any role: the paused question stays paused.
        raise ServiceError(
            403,
            "ACCESS_REVOKED",
            f"the access policy no longer allows user {ask.user_id}",
            user_id=ask.user_id,
        )
    # A resume is a question too (an edit may run any SQL): it takes one from the quota.
    await admit_question(service, actor, ask.scope)
    ask = await with_unique_thread_id(service, clock, ask)
    if ask.dataset_id is not None:
        # The conversation reads the user's dataset from now on (react_agent/datasets).
        await bind_dataset(service, ask.thread_id, ask.user_id, ask.dataset_id)
    return ask


async def bind_dataset(
    service: AgentService, thread_id: str, user_id: str, dataset_id: str
) -> None:
    """Make the user's dataset the one the conversation's questions and exports read."""
    await dataset_source(service, user_id, dataset_id)  # 404s: off, or not theirs
    assert service.datasets is not None
    await service.datasets.bind(thread_id, user_id, dataset_id)


async def dataset_source(service: AgentService, user_id: str, dataset_id: str) -> SQLDatabase:
    """Return the user's dataset as an open data source.

    Raises:
        ServiceError: 404 DATASETS_DISABLED when datasets are off, 404 DATASET_NOT_FOUND
            when the dataset is not the user's.

    """
    if service.datasets is None:
        raise ServiceError(
            404, "DATASETS_DISABLED", "datasets are off (DATASETS_ENABLED)", can_retry=False
        )
    return await service.datasets.source(user_id, dataset_id)


async def with_unique_thread_id(
    service: AgentService, clock: ThreadIdClock, ask: AskRequest
) -> AskRequest:
    """Return `ask` with its new thread id (if new) reserved among every process."""
    if not ask.is_new_thread:
        return ask
    store = service.run_store
    assert store is not None  # opened with the service, whether or not it can answer
    thread_id = await unique_new_thread_id(clock, store.thread_ids, ask.user_id, ask.thread_id)
    return replace(ask, thread_id=thread_id)
