"""Accepting a question, on every surface: the one head, free of Quart.

The ask routes (sync and stream, through `app.asking.accept_route`), the OpenAI route and
the MCP tools each build a `Caller` of what was brought (key, language, surface, payload)
and call `accept_question`: the same default user (the key's one user), the same key
check, the same log ids, the actor and scope, the pause settings, then `admit` (quota, a
new thread id unique everywhere, the dataset opened). What it returns goes to
`start.start_run`, which hands the run its actor, scope and data source as arguments.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from app.asking.access import actor_and_scope, with_key_user
from app.asking.quotas import admit_question
from app.asking.resume import validate_resume_request
from app.asking.thread_ids import ThreadIdClock, unique_new_thread_id
from app.asking.validation import AskRequest, validate_ask_request
from app.http.auth import ApiKey, check_key_allows
from config import Settings
from react_agent.access.actor import Actor
from react_agent.access.stricter import allows_nothing
from react_agent.approval.decisions import ApprovalDecision
from react_agent.databases.base import SQLDatabase
from react_agent.errors import ServiceError
from react_agent.log_context import bind_log_ids
from react_agent.service import AgentService

CONVERSATION_ID_IGNORED_WARNING = '299 - "conversation_id ignored: thread_id was also sent"'
"""The Warning header of an answer to a request whose two differing ids named the thread."""


@dataclass(frozen=True)
class Caller:
    """What a surface brought with a question.

    Args:
        payload: The ask fields (question or resume, user_id, thread_id, lang, ...).
        key: The API key it came with (None: keys are off, or stdio MCP).
        accept_language: The Accept-Language header, for when the payload has no `lang`.
        surface: Which surface asks (`ask`, `openai`, `mcp`), in the log lines.
        decision: A decision the surface already parsed (MCP's answer_pending): a resume.

    """

    payload: Mapping[str, Any]
    key: ApiKey | None = None
    accept_language: str | None = None
    surface: str = "ask"
    decision: ApprovalDecision | None = None


Noticed = Callable[[AskRequest], None]
"""Told of the request once it is valid (a route keeps its language and thread for errors)."""
ThreadFinder = Callable[[AskRequest], Awaitable[AskRequest]]
"""Finds the conversation a new question continues (the OpenAI route's history)."""


async def accept_question(
    service: AgentService,
    clock: ThreadIdClock,
    caller: Caller,
    *,
    noticed: Noticed | None = None,
    continued: ThreadFinder | None = None,
) -> AskRequest:
    """Accept what `caller` brought: validated, the key checked, its actor, scope and pauses.

    Raises:
        ServiceError: 400 with the broken rule's code, 403 FORBIDDEN when the key may not
            act for the asker, 429 QUOTA_EXCEEDED, 404 for a dataset not theirs.

    """
    payload = with_key_user(caller.payload, caller.key)
    if payload.get("resume") is not None:
        ask = validate_resume_request(payload, accept_language=caller.accept_language)
    else:
        ask = validate_ask_request(payload, clock, accept_language=caller.accept_language)
    if caller.decision is not None:
        ask = replace(ask, resume=caller.decision)
    check_key_allows(caller.key, ask.user_id)
    if noticed is not None:
        noticed(ask)
    # The request's log lines (and the run's, which starts in this context) say who asks.
    bind_log_ids(user_id=ask.user_id, thread_id=ask.thread_id, surface=caller.surface)
    actor, scope = actor_and_scope(service, ask.user_id, caller.key)
    ask = with_service_pauses(replace(ask, actor=actor, scope=scope), service.settings)
    if continued is not None:
        ask = await continued(ask)
    return await admit(service, clock, ask)


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


async def admit(service: AgentService, clock: ThreadIdClock, ask: AskRequest) -> AskRequest:
    """Admit a validated `ask`: the asker's quota, a new thread id unique everywhere, its dataset.

    The tail of `accept_question`, the same on every surface. It reads no Quart request:
    `service` and `clock` are passed in, because the MCP tools run outside Quart (over the
    /mcp mount, or stdio with a service of their own).

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
