"""Every statement run for a user, and every refusal, is one audit record (issue #47.5).

Refusals by the SQL guard and by the scope (a denied column, a table the role may not
read, an approval edit either refuses), check_sql's plans, and CSV exports (which run
outside any graph run) each write exactly one record; an export takes one question from
the quota; an auditor whose key is bound to a user filters the trail by anyone.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, ToolMessage
from pydantic import SecretStr

from app.http.app_state import agent_service_of
from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

KEYS = {"alice": "gaps-alice-key-0123456789", "root": "gaps-root-key-0123456789"}
ADMIN_KEY = "gaps-admin-key-0123456789"
AUDIT = "/api/v0/audit"
NOW = datetime(2026, 3, 1, 10, 0, 30, tzinfo=UTC)
"""The quotas' clock: mid-minute, so no count crosses a window."""
POLICY = """
users:
  alice: {roles: [analyst], attributes: {region_id: 1}}
  root: {roles: [auditor]}
roles:
  analyst:
    tables: [orders, stores, regions, customers, products]
    row_filters: {stores: "region_id = :region_id", regions: "region_id = :region_id"}
    deny_columns: {products: [unit_cost]}
    quota: {questions_per_minute: QPM}
  auditor:
    tables: "*"
    audit: true
"""
REGIONS_SQL = "SELECT region_id, region_name FROM regions"


def bearer(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[user]}"}


def write_policy(path: Path, qpm: int = 100, extra_deny: str = "") -> None:
    text = POLICY.replace("QPM", str(qpm))
    if extra_deny:
        text = text.replace("products: [unit_cost]}", f"products: [unit_cost], {extra_deny}}}")
    path.write_text(text, "utf-8")
    # A new mtime, whatever the file system's resolution: the policy reloads on it.
    stamp = path.stat().st_mtime_ns + 10**9
    os.utime(path, ns=(stamp, stamp))


async def governed_service(
    settings, tmp_path: Path, model: ScriptedChatModel, qpm: int = 100
) -> AsyncIterator[ServiceClient]:
    policy = tmp_path / "policy.yaml"
    write_policy(policy, qpm)
    keys = "; ".join([*(f"{key}={user}" for user, key in KEYS.items()), ADMIN_KEY])
    configured = settings.model_copy(
        update={
            "policy_file": policy,
            "api_keys": SecretStr(keys),
            "audit": True,
            "audit_flush_seconds": 0.05,
        }
    )
    async with running_service(configured, model=model) as client:
        ledger = agent_service_of(client.app).ledger
        if ledger.quotas is not None:
            ledger.quotas.counters.clock = lambda: NOW
        yield client


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel()


@pytest.fixture
async def governed(settings, tmp_path, model) -> AsyncIterator[ServiceClient]:
    async for client in governed_service(settings, tmp_path, model):
        yield client


async def records(client: ServiceClient, **params: Any) -> list[dict[str, Any]]:
    """Return the audit trail, oldest first, after writing what is queued."""
    await agent_service_of(client.app).ledger.writer.flush()
    response = await client.http.get(
        AUDIT, params={"page_size": 100, **params}, headers={"Authorization": f"Bearer {ADMIN_KEY}"}
    )
    assert response.status_code == 200, response.text
    return list(reversed(response.json()["data"]["records"]))


async def ask(client: ServiceClient, **body: Any) -> dict[str, Any]:
    response = await client.http.post("/api/v0/ask_react_agent", json=body, headers=bearer("alice"))
    assert response.status_code == 200, response.text
    return response.json()["data"]


def last_result_id(messages: list[BaseMessage]) -> str:
    return next(m.tool_call_id for m in reversed(messages) if isinstance(m, ToolMessage))


REFUSALS = [
    # (what the model runs, the outcome, what the reason starts with, the statement's kind)
    (("run_sql", "DELETE FROM regions"), "refused", "", "run"),
    (("run_sql", "SELECT unit_cost FROM products"), "refused", "COLUMN_DENIED", "run"),
    (("run_sql", "SELECT * FROM order_items"), "refused", "TABLE_NOT_ALLOWED", "run"),
    (("check_sql", "SELECT max(unit_cost) FROM products"), "refused", "COLUMN_DENIED", "check"),
    (("check_sql", "SELECT * FROM order_items"), "refused", "TABLE_NOT_ALLOWED", "check"),
    (("check_sql", "DROP TABLE regions"), "refused", "", "check"),
    (("check_sql", REGIONS_SQL), "ok", None, "check"),
]


@pytest.mark.parametrize("case", REFUSALS, ids=[f"{c[0][0]}:{c[0][1]}" for c in REFUSALS])
async def test_each_refusal_and_each_check_is_exactly_one_record(governed, model, case):
    (tool, sql), outcome, reason, kind = case
    model.replies = [call_tool(tool, sql=sql), answer("done")]
    data = await ask(governed, question="probe")
    [record] = await records(governed)
    assert (record["outcome"], record["kind"], record["model_sql"]) == (outcome, kind, sql)
    assert record["user_id"] == "alice" and record["thread_id"] == data["conversation_id"]
    assert record["question"] == "probe" and record["roles"] == ["analyst"]
    if outcome == "refused":
        assert record["run_sql"] is None and record["reason"].startswith(reason)
    else:
        assert record["row_count"] is None  # planned, not run


async def test_a_refused_probe_is_counted_in_the_metrics_too(settings, tmp_path, model):
    model.replies = [call_tool("run_sql", sql="SELECT unit_cost FROM products"), answer("no")]
    metered = settings.model_copy(update={"metrics": True})
    async for client in governed_service(metered, tmp_path, model):
        await ask(client, question="probe")
        text = (await client.http.get("/metrics", headers=bearer("root"))).text
    line = next(
        line for line in text.splitlines() if line.startswith("sqlagent_sql_queries_total{")
    )
    assert 'outcome="refused"' in line and 'reason="scope"' in line and line.endswith(" 1.0")


async def test_both_kinds_of_refused_approval_edit_are_one_record_each(governed, model):
    model.replies = [call_tool("run_sql", sql=REGIONS_SQL), answer("done")]
    thread = "alice:20260301000000000"
    waiting = await ask(governed, question="regions?", thread_id=thread, approve_sql=True)
    assert waiting["status"] == "awaiting_approval", waiting
    decisions = [
        {"action": "edit", "sql": "DELETE FROM regions"},  # the guard refuses the edit
        {"action": "edit", "sql": "SELECT unit_cost FROM products"},  # the scope, at run
    ]
    for decision in decisions:
        resume = {"interrupt_id": waiting["interrupt_id"], **decision}
        waiting = await ask(governed, thread_id=thread, resume=resume)
    found = await records(governed)
    assert [(r["outcome"], r["model_sql"]) for r in found] == [
        ("refused", "DELETE FROM regions"),
        ("refused", "SELECT unit_cost FROM products"),
    ]
    assert found[1]["reason"].startswith("COLUMN_DENIED")
    assert all(r["user_id"] == "alice" and r["thread_id"] == thread for r in found)


async def test_each_export_is_one_record_ok_or_refused(governed, model, tmp_path):
    model.replies = [call_tool("run_sql", sql=REGIONS_SQL), answer("one region")]
    data = await ask(governed, question="regions?")
    thread = data["conversation_id"]
    result_id = last_result_id(model.seen[-1])
    path = f"/api/v0/react/conversations/{thread}/results/{result_id}.csv"
    for _ in range(2):  # any number of times: a record each
        exported = await governed.http.get(path, headers=bearer("alice"))
        assert exported.status_code == 200, exported.text
    rows = list(csv.reader(io.StringIO(exported.text.lstrip("\ufeff"))))
    assert rows[0] == ["region_id", "region_name"] and [r[0] for r in rows[1:]] == ["1"]
    write_policy(tmp_path / "policy.yaml", extra_deny="regions: [region_name]")
    refused = await governed.http.get(path, headers=bearer("alice"))
    assert refused.status_code == 403 and "COLUMN_DENIED" in refused.text
    found = await records(governed)
    assert [(r["kind"], r["outcome"]) for r in found] == [
        ("run", "ok"),
        ("export", "ok"),
        ("export", "ok"),
        ("export", "refused"),
    ]
    first_export, refusal = found[1], found[3]
    assert first_export["row_count"] == 1 and first_export["model_sql"] == REGIONS_SQL
    assert ":region_id" not in first_export["run_sql"] and "region_id" in first_export["run_sql"]
    assert first_export["run_sql"] != REGIONS_SQL  # the scope's rewrite, as it ran
    assert refusal["reason"].startswith("COLUMN_DENIED") and refusal["run_sql"] is None
    assert all(r["user_id"] == "alice" and r["thread_id"] == thread for r in found)


async def test_an_export_takes_a_question_from_the_quota(settings, tmp_path, model):
    model.replies = [call_tool("run_sql", sql=REGIONS_SQL), answer("one region")]
    async for client in governed_service(settings, tmp_path, model, qpm=2):
        data = await ask(client, question="regions?")  # 1 of 2
        result_id = last_result_id(model.seen[-1])
        path = f"/api/v0/react/conversations/{data['conversation_id']}/results/{result_id}.csv"
        first = await client.http.get(path, headers=bearer("alice"))  # 2 of 2
        over = await client.http.get(path, headers=bearer("alice"))
        usage = await client.http.get("/api/v0/usage", headers=bearer("alice"))
        found = await records(client)
    assert first.status_code == 200, first.text
    assert over.status_code == 429 and over.json()["data"]["error_type"] == "QUOTA_EXCEEDED"
    assert "Retry-After" in over.headers
    assert usage.json()["data"]["questions_this_minute"] == 2
    assert [r["kind"] for r in found] == ["run", "export"]  # the one over the quota ran nothing


async def test_an_auditor_whose_key_is_bound_to_a_user_filters_by_any_user(governed, model):
    model.replies = [call_tool("run_sql", sql=REGIONS_SQL), answer("done")]
    await ask(governed, question="regions?")
    await records(governed)  # flushed
    for params in ({"user": "alice"}, {"user": "alice", "user_id": "alice"}, {}):
        response = await governed.http.get(AUDIT, params=params, headers=bearer("root"))
        assert response.status_code == 200, (params, response.text)
        assert [r["user_id"] for r in response.json()["data"]["records"]] == ["alice"]
    nobody = await governed.http.get(AUDIT, params={"user": "carol"}, headers=bearer("root"))
    assert nobody.status_code == 200 and nobody.json()["data"]["records"] == []
    # alice's role may not read the audit, whoever she filters by.
    for params in ({"user": "alice"}, {"user": "root"}, {}):
        refused = await governed.http.get(AUDIT, params=params, headers=bearer("alice"))
        assert refused.status_code == 403, params


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("zh-CN", "此 API 密钥绑定了用户，仅管理员密钥可访问"),
        ("en-US", "This API key is bound to users; only admin keys may do this"),
    ],
)
async def test_the_admin_only_403_says_so_without_a_placeholder(governed, lang, text):
    for method, path in (
        ("GET", "/api/v0/qa_feedback/stats"),
        ("GET", "/api/v0/training_data/stats"),
    ):
        response = await governed.http.request(
            method, path, params={"lang": lang}, headers=bearer("alice")
        )
        assert response.status_code == 403
        body = response.json()
        assert body["data"]["error_type"] == "FORBIDDEN"
        assert body["message"] == text and "{user_id}" not in response.text
