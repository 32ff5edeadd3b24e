"""Quotas on every surface: 429 QUOTA_EXCEEDED with Retry-After, and GET /api/v0/usage."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from app.http.app_state import agent_service_of
from tests.support.live_server import ServiceClient, running_service
from tests.support.mcp_client import http_session
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool
from tests.support.sse import open_stream

NOW = datetime(2026, 3, 1, 10, 0, 30, tzinfo=UTC)
"""The quotas' clock in these tests: 30 s before the minute ends."""
ASK = "/api/v0/ask_react_agent"


@pytest.fixture
async def limited(settings) -> AsyncIterator[ServiceClient]:
    model = ScriptedChatModel(default=answer("ok"))
    limited_settings = settings.model_copy(update={"quota_questions_per_minute": 2})
    async with running_service(limited_settings, model=model) as client:
        agent_service_of(client.app).ledger.quotas.counters.clock = lambda: NOW
        yield client


async def use_up(client: ServiceClient, user: str) -> None:
    for n in range(2):
        response = await client.http.post(ASK, json={"question": f"q{n}", "user_id": user})
        assert response.status_code == 200, response.text


def assert_quota_envelope(body: dict, retry_after: int = 30) -> None:
    assert body["success"] is False and body["code"] == 429
    data = body["data"]
    assert data["error_type"] == "QUOTA_EXCEEDED" and data["can_retry"] is True
    assert data["retry_after"] == retry_after


async def test_the_sync_api_answers_429_with_retry_after_and_the_legacy_error(limited):
    await use_up(limited, "alice")
    refused = await limited.http.post(ASK, json={"question": "q3", "user_id": "alice"})
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "30"
    body = refused.json()
    assert_quota_envelope(body)
    assert "quota" in body["error"]  # the legacy top-level error text
    other = await limited.http.post(ASK, json={"question": "q", "user_id": "bob"})
    assert other.status_code == 200  # a limit per user


async def test_the_stream_sends_a_429_error_event_with_retry_after(limited):
    await use_up(limited, "alice")
    async with open_stream(limited.http, json={"question": "q3", "user_id": "alice"}) as (
        response,
        events,
    ):
        assert response.status_code == 200  # errors before a run are events, as documented
        assert response.headers["Retry-After"] == "30"
        shown = [event async for event in events]
    assert [e.type for e in shown] == ["error", "end"]
    assert_quota_envelope(shown[0].envelope)


async def test_the_openai_route_answers_429_rate_limit_error_with_retry_after(limited):
    await use_up(limited, "alice")
    refused = await limited.http.post(
        "/v1/chat/completions",
        json={"messages": [{"role": "user", "content": "q3"}], "user": "alice"},
    )
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "30"
    error = refused.json()["error"]
    assert error["type"] == "rate_limit_error" and error["code"] == "quota_exceeded"


async def test_mcp_ask_data_reports_the_quota_as_a_tool_error(limited):
    await use_up(limited, "alice")
    async with http_session(limited.base_url) as session:
        result = await session.call_tool("ask_data", {"question": "q3", "user_id": "alice"})
    assert result.is_error
    text = result.content[0].text
    assert "QUOTA_EXCEEDED: quota exceeded: 2 questions per minute" in text and "30 s" in text


async def test_mcp_answer_pending_is_a_resume_refused_once_the_days_tokens_are_spent(settings):
    # As the routes' resume body: not a new question, but the day's tokens still count.
    pausing = call_tool("run_sql", sql="SELECT 1 AS n")
    pausing.usage_metadata = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
    model = ScriptedChatModel(replies=[pausing], default=answer("ok"))
    update = {"quota_tokens_per_day": 100, "sql_approval": "always"}
    async with running_service(settings.model_copy(update=update), model=model) as client:
        async with http_session(client.base_url) as session:
            first = await session.call_tool("ask_data", {"question": "q", "user_id": "ann"})
            pause = first.structured_content
            assert not first.is_error and pause["status"] == "awaiting_approval", pause
            await agent_service_of(client.app).ledger.tally.flush()
            decision = {"interrupt_id": pause["interrupt_id"], "action": "approve"}
            arguments = {"conversation_id": pause["conversation_id"], **decision}
            resumed = await session.call_tool("answer_pending", arguments)
    assert resumed.is_error
    assert "QUOTA_EXCEEDED: quota exceeded: 100 model tokens per day" in resumed.content[0].text


async def test_usage_shows_the_callers_questions_limits_and_resets(limited):
    await use_up(limited, "alice")
    response = await limited.http.get("/api/v0/usage", params={"user_id": "alice"})
    assert response.status_code == 200, response.text
    usage = response.json()["data"]
    assert usage["user_id"] == "alice" and usage["quotas_enabled"] is True
    assert usage["questions_this_minute"] == 2
    assert usage["limits"] == {"questions_per_minute": 2, "tokens_per_day": None}
    assert usage["resets"] == {
        "questions_per_minute": "2026-03-01T10:01:00Z",
        "tokens_per_day": "2026-03-02T00:00:00Z",
    }


async def test_tokens_of_a_day_are_tallied_from_the_model_calls_and_then_refuse(settings):
    model = ScriptedChatModel(default=answer("ok"))
    model.default = answer("ok")
    model.default.usage_metadata = {"input_tokens": 60, "output_tokens": 10, "total_tokens": 70}
    limited_settings = settings.model_copy(update={"quota_tokens_per_day": 100})
    async with running_service(limited_settings, model=model) as client:
        ledger = agent_service_of(client.app).ledger
        for n in range(2):  # 0 then 70 tokens used: both under 100
            response = await client.http.post(ASK, json={"question": f"q{n}", "user_id": "ann"})
            assert response.status_code == 200, response.text
            await ledger.tally.flush()
        usage = (await client.http.get("/api/v0/usage", params={"user_id": "ann"})).json()
        assert usage["data"]["tokens_today"] == 140
        refused = await client.http.post(ASK, json={"question": "q", "user_id": "ann"})
        assert refused.status_code == 429
        assert refused.json()["data"]["error_type"] == "QUOTA_EXCEEDED"
        assert 0 < int(refused.headers["Retry-After"]) <= 86400


async def test_with_quotas_off_usage_shows_no_limits(service):
    response = await service.http.get("/api/v0/usage")
    usage = response.json()["data"]
    assert response.status_code == 200
    assert usage["user_id"] == "guest" and usage["quotas_enabled"] is False
    assert usage["limits"] == {"questions_per_minute": None, "tokens_per_day": None}


async def test_six_questions_at_once_under_a_token_quota_that_fits_one(settings):
    # Each question costs 45 of a day's 50 tokens: once one runs, the rest must wait.
    reply = answer("ok")
    reply.usage_metadata = {"input_tokens": 40, "output_tokens": 5, "total_tokens": 45}
    model = ScriptedChatModel(default=reply)
    model.gates = {0: asyncio.Event(), 1: asyncio.Event()}  # a second one would hang here
    model.entered = {0: asyncio.Event()}
    update = {"quota_tokens_per_day": 50}
    async with running_service(settings.model_copy(update=update), model=model) as client:

        async def ask(n: int):
            return await client.http.post(ASK, json={"question": f"q{n}", "user_id": "ann"})

        asking = [asyncio.create_task(ask(n)) for n in range(6)]
        try:
            refused = []
            while len(refused) < 5:  # five answers while the one admitted run is held
                done, _ = await asyncio.wait(
                    [t for t in asking if t not in refused],
                    timeout=60,  # a guard only: a second admitted run would hang at its gate
                    return_when=asyncio.FIRST_COMPLETED,
                )
                assert done, f"only {len(refused)} of six answered: more than one was admitted"
                refused += done
            await asyncio.wait_for(model.entered[0].wait(), 30)  # the one admitted is running
            for task in refused:
                response = task.result()
                assert response.status_code == 429, response.text
                assert response.headers["Retry-After"] == "10"
                assert_quota_envelope(response.json(), retry_after=10)
                assert "held by your questions still running" in response.json()["data"]["error"]
            model.gates[0].set()
            (running,) = [t for t in asking if t not in refused]
            assert (await running).status_code == 200
        finally:
            model.gates[0].set()  # the held run ends, whatever the assertions said
        # Its end gives the hold back: 45 used < 50, so one more runs, and then the day is spent.
        model.gates[1].set()
        assert (await ask(6)).status_code == 200
        await agent_service_of(client.app).ledger.tally.flush()
        spent = await ask(7)
    assert spent.status_code == 429 and int(spent.headers["Retry-After"]) > 10
    assert len(model.seen) == 2
