"""A busy data source over real HTTP: the wait shown as progress, a bounded wait's 503, counts."""

from __future__ import annotations

from contextlib import AsyncExitStack

import pytest

from app.http.app_state import agent_service_of
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool
from tests.support.sse import open_stream
from tests.support.waiting import eventually

ENDLESS = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
QUICK = "SELECT COUNT(*) AS stores FROM stores"


@pytest.fixture
def one_at_a_time(settings):
    return settings.model_copy(
        update={
            "data_source_max_concurrent": 1,
            "sql_timeout": 120.0,
            "stream_resume_grace": 0.0,
        }
    )


async def test_a_waiting_question_shows_its_place_and_runs_when_the_source_frees(one_at_a_time):
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=ENDLESS), call_tool("run_sql", sql=QUICK), answer("40")]
    )
    async with running_service(one_at_a_time, model=model) as svc:
        service = agent_service_of(svc.app)
        share = service.shares["default"]
        stack = AsyncExitStack()
        await stack.enter_async_context(
            open_stream(svc.http, json={"question": "flood", "user_id": "flood"})
        )
        assert await eventually(lambda: share.counts().in_use == 1, timeout=30)
        health = (await svc.http.get("/health")).json()["data"]
        sources = health["data_database"]["shares"]
        assert sources["default"] == {"max_concurrent": 1, "in_use": 1, "queued": 0, "refused": 0}
        async with open_stream(svc.http, json={"question": "light", "user_id": "light"}) as (
            _,
            events,
        ):
            async for event in events:
                if event.type == "progress" and event.data["node"] == "__source_wait__":
                    waiting = event.data
                    break
            assert waiting["source"] == "default" and waiting["ahead"] == 0
            assert waiting["display_name"] == "等待数据源"
            assert share.counts().queued == 1
            await stack.aclose()  # the flood's client leaves: its run and statement end
            rest = [event async for event in events]
        assert [e.type for e in rest][-2:] == ["completed", "end"]
        assert rest[-2].data["response"] == "40"
        assert share.counts().in_use == 0 and share.counts().refused == 0


async def test_a_wait_past_the_bound_ends_in_503_naming_the_source(one_at_a_time):
    impatient = one_at_a_time.model_copy(update={"data_source_max_wait": 0.3})
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=ENDLESS), call_tool("run_sql", sql=QUICK), answer("x")]
    )
    async with running_service(impatient, model=model) as svc:
        share = agent_service_of(svc.app).shares["default"]
        async with open_stream(svc.http, json={"question": "flood", "user_id": "flood"}):
            assert await eventually(lambda: share.counts().in_use == 1, timeout=30)
            status, body = await svc.ask(question="light", user_id="light")
    assert status == 503 and body["success"] is False
    assert body["data"]["error_type"] == "DATA_SOURCE_BUSY"
    assert body["message"] == "数据源 default 繁忙，请稍后重试"
    assert share.counts().refused == 1
