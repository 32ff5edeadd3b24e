"""Where an evaluation's agent and database come from: this process, or a running service."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from config import Settings
from react_agent.access.actor import Actor
from react_agent.access.policy_file.policy_source import open_policy_source
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.databases.base import SQLDatabase
from react_agent.databases.open import open_configured
from react_agent.errors import ServiceError
from react_agent.eval.agents import EVAL_USER, GoldenAgent, HttpAgent, InProcessAgent
from react_agent.eval.golden import GoldenQuestion
from react_agent.eval.report import build_report
from react_agent.eval.runner import QuestionOutcome, Scorer, run_golden_set
from react_agent.sample_data import SAMPLE_DATABASE_URL
from react_agent.service.assembly import open_agent_service

OnDone = Callable[[QuestionOutcome], None]


async def evaluate_in_process(
    questions: Sequence[GoldenQuestion],
    settings: Settings,
    *,
    model: BaseChatModel | None = None,
    concurrency: int = 4,
    timeout: float = 120.0,
    on_done: OnDone | None = None,
    meta: dict[str, Any] | None = None,
    repeat: int = 1,
    as_user: str | None = None,
) -> dict[str, Any]:
    """Run the set through the agent built here with `settings` (and `model`, if given).

    With `as_user` every question is asked as that user of POLICY_FILE, and scored against
    the gold SQL run under the same scope.

    The conversations are kept in memory: an evaluation leaves nothing in the service's
    checkpoint database. The model is the configured one (any OpenAI-compatible server)
    unless a chat model is passed (tests pass scripted ones).
    """
    settings = settings.model_copy(update={"checkpoint_database_url": "memory"})
    async with open_agent_service(settings, model=model) as service:
        runner = service.require_runner()
        assert service.database is not None
        if service.catalog is not None:
            # Every question is asked with the schema and the day's instructions, not the
            # first ones without them while the catalogue is still being built.
            await service.catalog.wait_ready()
        actor, scope = _as_user(service.policy, as_user)
        agent: GoldenAgent = InProcessAgent(runner, actor, scope)
        columns = service.columns or TableColumns(service.database)
        outcomes = await run_golden_set(
            questions,
            agent,
            Scorer(service.database, settings.sql_timeout, scope, columns),
            concurrency=concurrency,
            timeout=timeout,
            on_done=on_done,
            repeat=repeat,
        )
    described = {
        "agent": "in-process",
        "model": settings.llm_model if model is None else type(model).__name__,
    }
    return build_report(outcomes, {**described, **_as_meta(as_user), **(meta or {})})


def _as_user(policy: Any, user_id: str | None) -> tuple[Actor | None, Scope | None]:
    """Return the actor and scope of `user_id` under `policy` (None, None: as the admin).

    Raises:
        ServiceError: 400 NO_POLICY when a user is named but no POLICY_FILE is set.

    """
    if user_id is None:
        return None, None
    if policy is None:
        raise ServiceError(400, "NO_POLICY", "--as needs POLICY_FILE (the user's policy)")
    actor = policy.actor_for(user_id)
    return actor, policy.scope_for(actor)


def _as_meta(user_id: str | None) -> dict[str, Any]:
    return {} if user_id is None else {"as_user": user_id}


async def _scoring_scope(
    settings: Settings, database: SQLDatabase, user_id: str | None
) -> tuple[Scope | None, TableColumns | None]:
    """Return the scope the HTTP run's scoring uses: `user_id`'s under the local POLICY_FILE."""
    if user_id is None:
        return None, None
    if settings.policy_file is None:
        raise ServiceError(400, "NO_POLICY", "--as needs POLICY_FILE (the user's policy)")
    columns = TableColumns(database)
    policy = await open_policy_source(settings.policy_file, columns)
    return _as_user(policy, user_id)[1], columns


async def evaluate_over_http(
    questions: Sequence[GoldenQuestion],
    settings: Settings,
    *,
    url: str,
    api_key: str | None = None,
    concurrency: int = 4,
    timeout: float = 120.0,
    on_done: OnDone | None = None,
    meta: dict[str, Any] | None = None,
    repeat: int = 1,
    as_user: str | None = None,
) -> dict[str, Any]:
    """Run the set through a running service; SQL is scored on the data `settings` name.

    The data is opened as the service opens it (databases/open.open_configured): the
    named sources of DATA_SOURCES, else DATA_DATABASE_URL (else the sample). With
    `as_user` the questions are asked as that user and scored under that user's scope in
    the local POLICY_FILE (which should be the service's).
    """
    database = await open_configured(settings, SAMPLE_DATABASE_URL)
    try:
        scope, columns = await _scoring_scope(settings, database, as_user)
        async with httpx.AsyncClient(timeout=timeout) as client:
            outcomes = await run_golden_set(
                questions,
                HttpAgent(client, url, api_key, as_user or EVAL_USER),
                Scorer(database, settings.sql_timeout, scope, columns),
                concurrency=concurrency,
                timeout=timeout,
                on_done=on_done,
                repeat=repeat,
            )
    finally:
        await database.aclose()
    described = {"agent": url, "model": "as served", **_as_meta(as_user)}
    return build_report(outcomes, {**described, **(meta or {})})
