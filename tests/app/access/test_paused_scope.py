"""A paused question resumes under the stricter of its stored scope and the policy now (#47.7).

The policy file changes while a question waits at approval (it reloads from POLICY_FILE on
its new mtime); the resume then reads only what both the old and the new scope allow
(checked against an oracle: the sample data filtered by both), is refused with 403 when
the policy no longer gives the asker a role, and takes one question from the quota.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from app.http.app_state import agent_service_of
from react_agent.access.scope import Scope
from react_agent.access.stricter import stricter_scope
from react_agent.audit.store import AuditFilter
from react_agent.sample_data import SAMPLE_DB_PATH
from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

ALICE_KEY = "paused-alice-key-0123456789"
NOW = datetime(2026, 3, 1, 10, 0, 30, tzinfo=UTC)
STORES_SQL = "SELECT store_id, region_id FROM stores ORDER BY store_id"
ROLE = """
users:
  alice: {roles: [analyst], attributes: {region_id: REGION}}
roles:
  analyst:
    tables: TABLES
    row_filters: {stores: "FILTER", regions: "region_id = :region_id"}
    deny_columns: {products: [DENIED]}
    quota: {questions_per_minute: QPM}
"""


def policy_text(
    region: int = 1,
    tables: str = "[stores, regions, products, orders]",
    row_filter: str = "region_id = :region_id",
    denied: str = "unit_cost",
    qpm: int = 100,
) -> str:
    return (
        ROLE.replace("REGION", str(region))
        .replace("TABLES", tables)
        .replace("FILTER", row_filter)
        .replace("DENIED", denied)
        .replace("QPM", str(qpm))
    )


def write_policy(path: Path, text: str) -> None:
    path.write_text(text, "utf-8")
    stamp = (path.stat().st_mtime_ns if path.exists() else 0) + 10**9
    os.utime(path, ns=(stamp, stamp))


def oracle(sql: str, *predicates: str) -> list[dict[str, Any]]:
    """Return `sql`'s rows on a copy of the stores holding only rows every predicate keeps."""
    with sqlite3.connect(SAMPLE_DB_PATH) as source, sqlite3.connect(":memory:") as copy:
        where = " AND ".join(f"({p})" for p in predicates) or "1 = 1"
        rows = source.execute(f"SELECT store_id, region_id FROM stores WHERE {where}").fetchall()
        copy.execute("CREATE TABLE stores (store_id INTEGER, region_id INTEGER)")
        copy.executemany("INSERT INTO stores VALUES (?, ?)", rows)
        copy.row_factory = sqlite3.Row
        return [dict(row) for row in copy.execute(sql)]


@pytest.fixture
def policy(tmp_path) -> Path:
    path = tmp_path / "policy.yaml"
    write_policy(path, policy_text())
    return path


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel()


@pytest.fixture
async def governed(settings, policy, model) -> AsyncIterator[ServiceClient]:
    configured = settings.model_copy(
        update={
            "policy_file": policy,
            # The changes between pause and resume apply at once, loosening ones too.
            "policy_reload_settle_seconds": 0,
            "api_keys": SecretStr(f"{ALICE_KEY}=alice"),
            "audit": True,
            "audit_flush_seconds": 0.05,
        }
    )
    async with running_service(configured, model=model) as client:
        agent_service_of(client.app).ledger.quotas.counters.clock = lambda: NOW
        yield client


async def ask(client: ServiceClient, **body: Any) -> tuple[int, dict[str, Any]]:
    response = await client.http.post(
        "/api/v0/ask_react_agent", json=body, headers={"Authorization": f"Bearer {ALICE_KEY}"}
    )
    return response.status_code, response.json()


async def paused(client: ServiceClient, model: ScriptedChatModel, sql: str) -> dict[str, Any]:
    model.replies = [call_tool("run_sql", sql=sql), answer("done")]
    status, body = await ask(client, question="stores?", approve_sql=True)
    assert status == 200 and body["data"]["status"] == "awaiting_approval", body
    return body["data"]


async def resume(client: ServiceClient, waiting: dict[str, Any], **decision: Any):
    decision = {"interrupt_id": waiting["interrupt_id"], "action": "approve", **decision}
    return await ask(client, thread_id=waiting["conversation_id"], resume=decision)


CHANGES = [
    # (the policy while the question waits, the predicates both scopes hold on stores; the
    # last is the new policy's)
    ("moved to region 2", policy_text(region=2), ["region_id = 1", "region_id = 2"]),
    ("moved to every region", policy_text(row_filter="1 = 1"), ["region_id = 1", "1 = 1"]),
    (
        "narrowed to two stores",
        policy_text(row_filter="region_id = :region_id AND store_id <= 2"),
        ["region_id = 1", "region_id = 1 AND store_id <= 2"],
    ),
    (
        "filter on another column",
        policy_text(row_filter="store_id > 3"),
        ["region_id = 1", "store_id > 3"],
    ),
    ("unchanged", policy_text(), ["region_id = 1", "region_id = 1"]),
]


@pytest.mark.parametrize("change", CHANGES, ids=[c[0] for c in CHANGES])
async def test_a_resume_reads_only_the_rows_both_scopes_allow(governed, model, policy, change):
    _, text, predicates = change
    waiting = await paused(governed, model, STORES_SQL)
    write_policy(policy, text)
    status, body = await resume(governed, waiting)
    assert status == 200, body
    assert body["data"]["records"]["rows"] == oracle(STORES_SQL, *predicates)
    # A new question after the change reads under the new policy alone.
    model.replies += [call_tool("run_sql", sql=STORES_SQL), answer("done")]
    status, fresh = await ask(governed, question="again?")
    assert fresh["data"]["records"]["rows"] == oracle(STORES_SQL, predicates[-1])


EDITS = [
    # (the policy while the question waits, the person's edit, the rule that refuses it)
    (
        "column denied since",
        policy_text(denied="unit_price"),
        "SELECT max(unit_price) FROM products",
        "COLUMN_DENIED",
    ),
    (
        "table dropped since",
        policy_text(tables="[stores, regions, orders]"),
        "SELECT count(*) FROM products",
        "TABLE_NOT_ALLOWED",
    ),
    ("table never allowed", policy_text(), "SELECT count(*) FROM customers", "TABLE_NOT_ALLOWED"),
    (
        "column denied before",
        policy_text(denied="unit_price"),
        "SELECT max(unit_cost) FROM products",
        "COLUMN_DENIED",
    ),
    (
        "denied in WHERE",
        policy_text(denied="unit_price"),
        "SELECT product_id FROM products WHERE unit_price > 10",
        "COLUMN_DENIED",
    ),
]


@pytest.mark.parametrize("case", EDITS, ids=[c[0] for c in EDITS])
async def test_an_edit_on_resume_is_refused_what_the_policy_cut(governed, model, policy, case):
    _, text, sql, rule = case
    waiting = await paused(governed, model, STORES_SQL)
    write_policy(policy, text)
    status, body = await resume(governed, waiting, action="edit", sql=sql)
    assert status == 200, body
    data = body["data"]
    refused = [entry for entry in data["sqls"] if entry.get("status") == "refused"]
    assert refused, data["sqls"]
    assert "records" not in data or not data["records"].get("rows")
    tool_results = " ".join(str(m.content) for m in model.seen[-1])
    assert rule in tool_results


@pytest.mark.parametrize(
    "text",
    [
        "users: {}\nroles:\n  analyst: {tables: [stores]}\n",  # alice is gone, no default role
        "users:\n  alice: {roles: []}\nroles:\n  analyst: {tables: [stores]}\n",
    ],
)
async def test_a_resume_is_refused_when_the_policy_no_longer_allows_the_asker(
    governed, model, policy, text
):
    waiting = await paused(governed, model, STORES_SQL)
    seen = len(model.seen)
    write_policy(policy, text)
    status, body = await resume(governed, waiting)
    assert status == 403, body
    assert body["data"]["error_type"] == "ACCESS_REVOKED" and "alice" in body["message"]
    assert len(model.seen) == seen  # the run did not go on
    ledger = agent_service_of(governed.app).ledger
    await ledger.writer.flush()
    assert (await ledger.audit.search(AuditFilter(), page=1, page_size=10)).records == []


async def test_a_resume_takes_a_question_from_the_quota(governed, model, policy):
    write_policy(policy, policy_text(qpm=1))
    waiting = await paused(governed, model, STORES_SQL)  # 1 of 1
    status, body = await resume(governed, waiting, action="edit", sql="SELECT 1")
    assert status == 429, body
    assert body["data"]["error_type"] == "QUOTA_EXCEEDED"
    write_policy(policy, policy_text(qpm=2))
    status, body = await resume(governed, waiting)  # 2 of 2: the pause still waits
    assert status == 200 and body["data"]["records"]["rows"] == oracle(STORES_SQL, "region_id = 1")


def test_the_stricter_scope_keeps_both_values_of_a_changed_attribute():
    old = Scope(
        tables=frozenset({"stores", "regions"}),
        row_filters={"stores": "region_id = :region_id"},
        parameters={"region_id": 1},
        denied_columns={"stores": frozenset({"city"})},
        show_sql=True,
    )
    new = Scope(
        tables=None,
        row_filters={"stores": "region_id = :region_id", "orders": "store_id < 3"},
        parameters={"region_id": 2},
        sensitive_columns={"stores": frozenset({"store_name"})},
        show_sql=False,
    )
    both = stricter_scope(old, new)
    assert both.tables == frozenset({"stores", "regions"})
    assert (
        both.row_filters["stores"] == "(region_id = :region_id) AND (region_id = :paused_region_id)"
    )
    assert both.row_filters["orders"] == "store_id < 3"
    assert both.parameters == {"region_id": 2, "paused_region_id": 1}
    assert both.denied_columns == {"stores": frozenset({"city"})}
    assert both.sensitive_columns == {"stores": frozenset({"store_name"})}
    assert both.show_sql is False
