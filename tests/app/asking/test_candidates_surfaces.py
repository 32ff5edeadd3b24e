"""The candidates' confidence on every surface: sync and stream meta, /v1's and MCP's note."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.asking.replies.final_data import build_final_data
from config import Settings
from react_agent.runs.events.events import RunResult
from tests.support.candidate_scripts import ALL_ORDERS_SQL, SAME_SQL, ByRole, agent_script, fenced
from tests.support.live_server import ServiceClient, running_service
from tests.support.mcp_client import http_session
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub, Reply
from tests.support.sse import collect_stream

QUESTION = "各大区销售额"
ANSWER = "华东最多，约78.2万元。"


def two_to_one() -> ByRole:
    """Return a script whose candidates split 2-1 with the agent in the majority."""
    return ByRole(
        agent_script(DEFAULT_SALES_SQL, ANSWER),
        [Reply(text=fenced(SAME_SQL), more_choices=[fenced(ALL_ORDERS_SQL)])],
    )


@pytest.fixture
async def candidates_service(stub_settings: Settings) -> AsyncIterator[ServiceClient]:
    settings = stub_settings.model_copy(update={"answer_candidates": "3"})
    async with running_service(settings) as client:
        yield client


async def test_sync_and_stream_carry_the_same_confidence(
    candidates_service: ServiceClient, stub: OpenAIStub
):
    stub.default_policy = two_to_one()
    status, body = await candidates_service.ask(question=QUESTION)
    stub.default_policy = two_to_one()
    events = await collect_stream(candidates_service.http, json={"question": QUESTION})

    assert status == 200
    meta = body["data"]["react_agent_meta"]
    confidence = meta["confidence"]
    assert (confidence["candidates"], confidence["agreeing"], confidence["method"]) == (
        3,
        2,
        "execution_match",
    )
    assert confidence["queries"][0]["sql"] == DEFAULT_SALES_SQL
    assert {q["sql"] for q in confidence["queries"][1:]} == {SAME_SQL, ALL_ORDERS_SQL}
    assert body["data"]["response"].startswith(ANSWER + "\n\n⚖️ ")
    completed = next(e.data for e in events if e.type == "completed")
    streamed = completed["react_agent_meta"]["confidence"]
    assert {k: v for k, v in streamed.items() if k != "sampling"} == {
        k: v for k, v in confidence.items() if k != "sampling"
    }
    assert any(e.type == "progress" and e.data["node"] == "compare_candidates" for e in events)
    # Read back with the conversation, as the page restores the turn.
    thread_id = body["data"]["conversation_id"]
    detail = await candidates_service.http.get(f"/api/v0/react/conversations/{thread_id}")
    assert detail.status_code == 200, detail.text
    assert detail.json()["data"]["turns"][0]["confidence"] == confidence


async def test_the_openai_route_and_mcp_carry_it_as_a_note(
    candidates_service: ServiceClient, stub: OpenAIStub
):
    stub.default_policy = two_to_one()
    response = await candidates_service.http.post(
        "/v1/chat/completions",
        json={"model": "sql-react-agent", "messages": [{"role": "user", "content": QUESTION}]},
    )
    stub.default_policy = two_to_one()
    async with http_session(candidates_service.base_url) as session:
        result = await session.call_tool("ask_data", {"question": QUESTION})

    assert response.status_code == 200, response.text
    content = response.json()["choices"][0]["message"]["content"]
    assert "2 of 3 queries agree" in content
    assert not result.is_error, result.content
    assert "2 of 3 queries agree" in result.structured_content["note"]


async def test_without_candidates_the_final_data_has_no_confidence(
    stub_settings: Settings, stub: OpenAIStub
):
    stub.default_policy = ByRole(agent_script(DEFAULT_SALES_SQL, ANSWER), [])
    async with running_service(stub_settings) as service:  # the suite's default: off
        status, body = await service.ask(question=QUESTION)

    assert status == 200
    assert "confidence" not in body["data"]["react_agent_meta"]
    assert body["data"]["response"] == ANSWER


def test_a_role_without_show_sql_sees_the_confidence_without_any_candidates_sql():
    confidence = {
        "candidates": 2,
        "agreeing": 2,
        "method": "execution_match",
        "queries": [
            {"sql": DEFAULT_SALES_SQL, "status": "ok", "row_count": 7, "group": 0, "answers": True},
            {"sql": SAME_SQL, "status": "ok", "row_count": 7, "group": 0, "answers": True},
        ],
    }
    result = RunResult(
        thread_id="t",
        answer=ANSWER,
        execution_path=[],
        tools_used=[],
        sql=DEFAULT_SALES_SQL,
        records=None,
        sql_execution_count=2,
        total_messages=3,
        conversation_rounds=1,
        show_sql=False,
        confidence=confidence,
    )
    shown = build_final_data(result, "bob")["react_agent_meta"]["confidence"]

    assert (shown["candidates"], shown["agreeing"]) == (2, 2)
    assert [sorted(q) for q in shown["queries"]] == [
        ["answers", "group", "row_count", "status"]
    ] * 2
    assert confidence["queries"][0]["sql"] == DEFAULT_SALES_SQL  # the run's own is kept
