"""The audit trail over HTTP: a record per query (ok, refused), GET /api/v0/audit, its 403."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator

import pytest
from pydantic import SecretStr

from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

ADMIN_KEY = "admin-key-0123456789"
ALICE_KEY = "alice-key-0123456789"
AUDIT = "/api/v0/audit"
GOOD_SQL = "SELECT region_name FROM regions"
REFUSED_SQL = "DELETE FROM regions"


def admin() -> dict[str, str]:
    return {"Authorization": f"Bearer {ADMIN_KEY}"}


def alice() -> dict[str, str]:
    return {"Authorization": f"Bearer {ALICE_KEY}"}


@pytest.fixture
async def audited(settings) -> AsyncIterator[tuple[ServiceClient, ScriptedChatModel]]:
    model = ScriptedChatModel()
    audited_settings = settings.model_copy(
        update={
            "audit": True,
            "audit_flush_seconds": 0.05,
            "api_keys": SecretStr(f"{ADMIN_KEY}; {ALICE_KEY}=alice"),
        }
    )
    async with running_service(audited_settings, model=model) as client:
        yield client, model


async def flush(client: ServiceClient) -> None:
    """Write what the audit writer has queued (as shutdown would), so reads see it."""
    from app.http.app_state import agent_service_of

    ledger = agent_service_of(client.app).ledger
    await ledger.writer.flush()


async def ask(client: ServiceClient, question: str, user: str, headers) -> dict:
    response = await client.http.post(
        "/api/v0/ask_react_agent",
        json={"question": question, "user_id": user},
        headers=headers,
    )
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def test_each_query_run_or_refused_is_one_record_with_the_asker(audited):
    client, model = audited
    model.replies = [
        call_tool("run_sql", sql=REFUSED_SQL),
        call_tool("run_sql", sql=GOOD_SQL),
        answer("seven regions"),
    ]
    data = await ask(client, "which regions?", "alice", alice())
    await flush(client)
    response = await client.http.get(AUDIT, headers=admin())
    assert response.status_code == 200, response.text
    records = response.json()["data"]["records"]
    assert [r["outcome"] for r in records] == ["ok", "refused"]  # newest first
    ok, refused = records
    assert refused["model_sql"] == REFUSED_SQL and refused["run_sql"] is None
    assert refused["reason"] and refused["tables"] == ["regions"]
    assert ok["run_sql"] == GOOD_SQL and ok["row_count"] == 7 and ok["tables"] == ["regions"]
    for record in records:
        assert record["user_id"] == "alice"
        assert record["thread_id"] == data["conversation_id"]
        assert record["question"] == "which regions?"
        assert record["key_id"].startswith("key-") and ALICE_KEY not in str(record)
        assert record["duration_ms"] >= 0 and record["run_id"]
    assert records[0]["run_id"] == records[1]["run_id"]


async def test_the_audit_filters_pages_and_gives_csv(audited):
    client, model = audited
    model.default = None
    model.replies = [
        call_tool("run_sql", sql=GOOD_SQL),
        answer("a"),
        call_tool("run_sql", sql="SELECT COUNT(*) FROM stores"),
        answer("b"),
        call_tool("run_sql", sql=REFUSED_SQL),
        answer("c"),
    ]
    await ask(client, "q1", "alice", admin())
    await ask(client, "q2", "bob", admin())
    await ask(client, "q3", "bob", admin())
    await flush(client)

    async def records(**params) -> list[dict]:
        response = await client.http.get(AUDIT, params=params, headers=admin())
        assert response.status_code == 200, response.text
        return response.json()["data"]["records"]

    assert [r["question"] for r in await records(user="bob")] == ["q3", "q2"]
    assert [r["question"] for r in await records(outcome="refused")] == ["q3"]
    assert [r["question"] for r in await records(table="stores")] == ["q2"]
    everything = await records()
    newest = everything[0]["at"]
    assert [r["question"] for r in await records(**{"from": newest})] == ["q3"]
    assert [r["question"] for r in await records(to=newest)] == ["q2", "q1"]
    assert await records(**{"from": "2999-01-01T00:00:00+08:00"}) == []

    page = await client.http.get(AUDIT, params={"page": 2, "page_size": 2}, headers=admin())
    body = page.json()["data"]
    assert [r["question"] for r in body["records"]] == ["q1"]
    assert body["pagination"] == {
        "page": 2,
        "page_size": 2,
        "total": 3,
        "total_pages": 2,
        "has_next": False,
        "has_prev": True,
    }

    exported = await client.http.get(
        AUDIT, params={"format": "csv", "user": "bob"}, headers=admin()
    )
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text.lstrip("\ufeff"))))
    assert [row["question"] for row in rows] == ["q3", "q2"]
    assert rows[1]["tables"] == "stores" and rows[0]["outcome"] == "refused"


@pytest.mark.parametrize(
    "params",
    [
        {"page_size": 0},
        {"page_size": 101},
        {"page": 0},
        {"from": "yesterday"},
        {"outcome": "maybe"},
        {"to": "2026-13-01"},
    ],
)
async def test_bad_filters_are_400_in_the_envelope(audited, params):
    client, _ = audited
    response = await client.http.get(AUDIT, params=params, headers=admin())
    assert response.status_code == 400, response.text
    assert response.json()["success"] is False


async def test_a_key_bound_to_users_may_not_read_the_audit(audited):
    client, _ = audited
    response = await client.http.get(AUDIT, headers=alice())
    assert response.status_code == 403
    body = response.json()
    assert body["data"]["error_type"] == "FORBIDDEN" and body["success"] is False


async def test_with_the_audit_off_the_route_has_no_records_and_says_so(settings):
    model = ScriptedChatModel(default=answer("ok"))
    async with running_service(settings, model=model) as client:
        response = await client.http.get(AUDIT)
        assert response.status_code == 200
        data = response.json()["data"]
        assert data["records"] == [] and data["audit_enabled"] is False


async def test_a_query_a_person_rejects_is_recorded_as_rejected_with_the_comment(audited):
    client, model = audited
    model.replies = [call_tool("run_sql", sql=GOOD_SQL), answer("not run")]
    thread = "alice:20260101000000000"
    waiting = await client.http.post(
        "/api/v0/ask_react_agent",
        json={"question": "regions?", "thread_id": thread, "approve_sql": True},
        headers=alice(),
    )
    assert waiting.json()["data"]["status"] == "awaiting_approval", waiting.text
    decision = {
        "interrupt_id": waiting.json()["data"]["interrupt_id"],
        "action": "reject",
        "comment": "too broad",
    }
    resumed = await client.http.post(
        "/api/v0/ask_react_agent",
        json={"thread_id": thread, "resume": decision},
        headers=alice(),
    )
    assert resumed.status_code == 200, resumed.text
    await flush(client)
    records = (await client.http.get(AUDIT, headers=admin())).json()["data"]["records"]
    assert len(records) == 1
    record = records[0]
    assert record["outcome"] == "rejected" and "too broad" in record["reason"]
    assert record["model_sql"] == GOOD_SQL and record["run_sql"] is None
    assert record["user_id"] == "alice" and record["thread_id"] == thread
