"""Where an evaluation's agent and database come from: this process, or a running service."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from config import Settings
from react_agent.databases.open import open_database
from react_agent.eval.agents import GoldenAgent, HttpAgent, InProcessAgent
from react_agent.eval.golden import GoldenQuestion
from react_agent.eval.report import build_report
from react_agent.eval.runner import QuestionOutcome, Scorer, run_golden_set
from react_agent.sample_data import SAMPLE_DATABASE_URL
from react_agent.service.assembly import open_agent_service
from react_agent.service.state import postgres_pool_options

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
) -> dict[str, Any]:
    """Run the set through the agent built here with `settings` (and `model`, if given).

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
        agent: GoldenAgent = InProcessAgent(runner)
        outcomes = await run_golden_set(
            questions,
            agent,
            Scorer(service.database, settings.sql_timeout),
            concurrency=concurrency,
            timeout=timeout,
            on_done=on_done,
        )
    described = {
        "agent": "in-process",
        "model": settings.llm_model if model is None else type(model).__name__,
    }
    return build_report(outcomes, {**described, **(meta or {})})


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
) -> dict[str, Any]:
    """Run the set through a running service; SQL is scored on `settings.data_database_url`."""
    data_url = settings.data_database_url or SAMPLE_DATABASE_URL
    database = await open_database(data_url, **postgres_pool_options(settings))
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            outcomes = await run_golden_set(
                questions,
                HttpAgent(client, url, api_key),
                Scorer(database, settings.sql_timeout),
                concurrency=concurrency,
                timeout=timeout,
                on_done=on_done,
            )
    finally:
        await database.aclose()
    return build_report(outcomes, {"agent": url, "model": "as served", **(meta or {})})
