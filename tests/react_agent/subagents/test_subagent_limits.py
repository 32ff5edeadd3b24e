"""The run's timeout reaches the sub-agents: their model calls and queries stop with it."""

from __future__ import annotations

import asyncio

import pytest

from react_agent.errors import ServiceError
from tests.react_agent.subagents.test_delegate import (
    QUESTION,
    SALES,
    TOP,
    TOP_SQL,
    delegate_both,
    routed,
    sub_script,
)
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool
from tests.support.waiting import eventually

ENDLESS_SQL = (
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
)


async def test_the_run_timeout_stops_every_sub_agent_model_call_and_query(open_service):
    querying = ScriptedChatModel(replies=[call_tool("run_sql", sql=ENDLESS_SQL), answer("x")])
    waiting = sub_script(TOP_SQL, "y")
    waiting.gates[0], waiting.entered[0] = asyncio.Event(), asyncio.Event()  # never released
    model = routed([delegate_both(), answer("never")], querying, waiting)
    # The run's timeout, not the query's, has to stop the endless query.
    async with open_service(model, run_timeout=5.0, sql_timeout=120.0) as service:
        run = await service.runner.start(QUESTION, "wang1:timeout1")
        await asyncio.wait_for(waiting.entered[0].wait(), 5)
        in_query = await eventually(lambda: service.database.running_queries == 1, 5)
        with pytest.raises(ServiceError) as stopped:
            await asyncio.wait_for(run.result(), 60)
        assert await eventually(lambda: service.database.running_queries == 0, 30)

    assert in_query, "the first sub-agent never reached its query before the deadline"
    assert stopped.value.error_type == "RUN_TIMEOUT" and stopped.value.status == 504
    assert model.cancelled == [TOP]  # the held sub-agent's model call
    assert SALES not in model.cancelled  # it was in its query, not in a model call
    assert len(model.parent.seen) == 1  # the parent never got to answer
