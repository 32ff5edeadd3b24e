"""Questions across named sources through the agent, over real HTTP, with a scripted model."""

from __future__ import annotations

import pytest

from config import Settings
from tests.react_agent.databases.test_named_sources import (  # noqa: F401
    THREE_SOURCES,
    THREE_SOURCES_ORACLE,
    TWO_SOURCES,
    TWO_SOURCES_ORACLE,
    oracle,
    sources_text,
)
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool


@pytest.mark.parametrize(
    ("sql", "oracle_sql"),
    [(TWO_SOURCES, TWO_SOURCES_ORACLE), (THREE_SOURCES, THREE_SOURCES_ORACLE)],
    ids=["two sources", "three sources"],
)
async def test_the_agent_answers_a_question_joining_sources(
    settings: Settings,
    sources_text: str,  # noqa: F811 (the fixture)
    sql: str,
    oracle_sql: str,
):
    model = ScriptedChatModel()
    settings = settings.model_copy(update={"data_sources": sources_text})
    async with running_service(settings, model=model) as service:
        model.replies = [call_tool("list_tables"), call_tool("run_sql", sql=sql), answer("好")]
        status, body = await service.ask(question="跨库汇总", user_id="wu")
        schema = await service.http.get("/api/v0/schema", params={"user_id": "wu"})
    assert status == 200, body
    data = body["data"]
    listed = model.seen[1][-1].content
    prompt = model.seen[0][0].content
    assert "sales.orders" in listed and "fin.stores" in listed and "files.regions" in listed
    assert "DuckDB's SQL dialect" in prompt and "sales (postgres)" in prompt
    got = [tuple(row.values()) for row in data["records"]["rows"]]
    expected = oracle(oracle_sql)
    assert len(got) == len(expected)
    for row, want in zip(got, expected, strict=True):
        assert row[0] == want[0] and float(row[1]) == pytest.approx(float(want[1]))
    assert schema.status_code == 200, schema.text
    assert "fin.stores" in schema.text and "sales.orders" in schema.text


async def test_a_federated_statement_is_audited_with_every_source_it_read(
    settings: Settings,
    sources_text: str,  # noqa: F811 (the fixture)
):
    from pydantic import SecretStr

    from app.http.app_state import agent_service_of

    model = ScriptedChatModel()
    audited = settings.model_copy(
        update={
            "data_sources": sources_text,
            "audit": True,
            "audit_flush_seconds": 0.05,
            "api_keys": SecretStr("admin-key-0123456789; wu-key=wu"),
        }
    )
    async with running_service(audited, model=model) as service:
        model.replies = [call_tool("run_sql", sql=THREE_SOURCES), answer("好")]
        asked = await service.http.post(
            "/api/v0/ask_react_agent",
            json={"question": "跨库"},
            headers={"Authorization": "Bearer wu-key"},
        )
        await agent_service_of(service.app).ledger.writer.flush()
        audit = await service.http.get(
            "/api/v0/audit", headers={"Authorization": "Bearer admin-key-0123456789"}
        )
    assert asked.status_code == 200, asked.text
    (record,) = audit.json()["data"]["records"]
    assert record["outcome"] == "ok" and record["run_sql"] == THREE_SOURCES
    assert record["tables"] == ["files.regions", "fin.stores", "sales.orders"]
