"""The service through PostgreSQL outages: it starts, answers 503 with the reason, recovers."""

from __future__ import annotations

import asyncio
import time

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from config import Settings
from react_agent.errors import ServiceError
from react_agent.sample_data.load_postgres import load_into_postgres
from react_agent.service import AgentService, check_components, open_agent_service
from tests.support.postgres import RestartableCluster, create_test_database
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

REGION_COUNT_SQL = "SELECT count(*) AS n FROM regions"
RECOVERY_DEADLINE = 30.0


@pytest.fixture
def outage_settings(settings: Settings, restartable_postgres: RestartableCluster) -> Settings:
    """Return settings with data and conversations in one database of a restartable cluster."""
    url = create_test_database(restartable_postgres.url)  # goes with the cluster
    load_into_postgres(url)
    return settings.model_copy(
        update={
            "data_database_url": url,
            "checkpoint_database_url": url,
            # Short, so that requests during the outage fail fast.
            "postgres_connect_timeout": 1.0,
        }
    )


def query_then_answer(messages: list[BaseMessage]) -> AIMessage:
    """Reply like an analyst: run the query, then answer once its result is in."""
    if isinstance(messages[-1], ToolMessage):
        return answer(f"result: {messages[-1].content}")
    return call_tool("run_sql", sql=REGION_COUNT_SQL)


def assert_postgres_unavailable(error: ServiceError) -> None:
    assert error.status == 503 and error.can_retry is True
    assert error.error_type in ("CHECKPOINTER_UNAVAILABLE", "DATABASE_UNAVAILABLE")


async def wait_until_healthy(service: AgentService) -> None:
    """Poll the health check until both pools answer again (what a load balancer does)."""
    deadline = time.monotonic() + RECOVERY_DEADLINE
    while problems := await check_components(service, timeout=2):
        for problem in problems.values():
            assert_postgres_unavailable(problem)
        assert time.monotonic() < deadline, f"no recovery: {problems}"
        await asyncio.sleep(0.2)  # polling interval, not synchronisation
    assert service.problems == {}


async def test_questions_get_503_while_postgres_is_down_and_answers_once_it_is_back(
    outage_settings, restartable_postgres
):
    model = ScriptedChatModel(default=query_then_answer)
    async with open_agent_service(outage_settings, model=model) as service:
        assert service.problems == {}
        before = await service.runner.ask("how many regions?", "wang1:before")
        assert before.records["rows"] == [{"n": 7}]

        restartable_postgres.stop()
        with pytest.raises(ServiceError) as down:
            await service.runner.ask("how many regions?", "wang1:during")
        assert down.value.error_type == "CHECKPOINTER_UNAVAILABLE"
        assert_postgres_unavailable(down.value)
        problems = await check_components(service, timeout=2)
        assert set(problems) == {"data_database", "checkpointer"}
        assert "refused" in problems["checkpointer"].detail.lower()

        restartable_postgres.start()
        await wait_until_healthy(service)
        after = await service.runner.ask("how many regions?", "wang1:after")
        assert after.records["rows"] == [{"n": 7}]
        # The thread of the failed question was freed and works again too.
        again = await service.runner.ask("how many regions?", "wang1:during")
        assert again.records["rows"] == [{"n": 7}]


async def test_a_question_in_flight_when_postgres_goes_down_ends_with_503_not_500(
    outage_settings, restartable_postgres
):
    model = ScriptedChatModel(default=query_then_answer)
    gate, entered = asyncio.Event(), asyncio.Event()
    model.gates[0], model.entered[0] = gate, entered
    async with open_agent_service(outage_settings, model=model) as service:
        run = await service.runner.start("how many regions?", "wang1:in-flight")
        await entered.wait()
        restartable_postgres.stop()
        gate.set()

        with pytest.raises(ServiceError) as failed:
            await run.outcome()
        assert_postgres_unavailable(failed.value)

        restartable_postgres.start()
        await wait_until_healthy(service)
        # The thread lock died with its session; the thread is free for the next question.
        result = await service.runner.ask("how many regions?", "wang1:in-flight")
        assert result.records["rows"] == [{"n": 7}]


async def test_a_service_started_while_postgres_is_down_reports_it_and_recovers_by_itself(
    outage_settings, restartable_postgres
):
    restartable_postgres.stop()
    model = ScriptedChatModel(default=query_then_answer)
    started = time.monotonic()
    async with open_agent_service(outage_settings, model=model) as service:
        assert time.monotonic() - started < 10  # up despite the outage, not hanging
        assert set(service.problems) == {"data_database", "checkpointer"}
        for problem in service.problems.values():
            assert_postgres_unavailable(problem)
            assert "refused" in problem.detail.lower()
        assert service.runner is not None and service.tables == []
        with pytest.raises(ServiceError) as down:
            await service.runner.ask("how many regions?", "wang1:early")
        assert down.value.error_type == "CHECKPOINTER_UNAVAILABLE"

        restartable_postgres.start()
        await wait_until_healthy(service)
        assert "regions" in service.tables  # listed now, and in the agent's prompt
        # The checkpoint tables did not exist: the pool's first connection created them.
        result = await service.runner.ask("how many regions?", "wang1:early")
        assert result.records["rows"] == [{"n": 7}]
