"""The access policy over HTTP: every asking surface runs under the asker's scope.

Sensitive values reach the model only as tokens, while the records keep them for people.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from pydantic import SecretStr

from app.asking.access import actor_and_scope
from app.http.app_state import agent_service_of, thread_id_clock_of
from app.http.auth import api_keys_of, parse_api_keys
from app.mcp.tools import DataTools
from react_agent.errors import ConfigurationError
from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.service import open_agent_service
from tests.react_agent.access.conftest import POLICY_FILE
from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool
from tests.support.sse import collect_stream

KEYS = {"alice": "alice-key-0123456789", "bob": "bob-key-0123456789", "root": "root-key-012345"}
NAMES_SQL = (
    "SELECT customer_id, customer_name, region_id FROM customers ORDER BY customer_id LIMIT 5"
)


def bearer(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[user]}"}


def text_of(messages: list[BaseMessage]) -> str:
    return "\n".join(
        m.content if isinstance(m.content, str) else json.dumps(m.content, ensure_ascii=False)
        for m in messages
    )


def last_result_id(messages: list[BaseMessage]) -> str:
    return next(m.tool_call_id for m in reversed(messages) if isinstance(m, ToolMessage))


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel()


@pytest.fixture
async def governed(settings, model) -> AsyncIterator[ServiceClient]:
    keys = "; ".join(f"{key}={user}" for user, key in KEYS.items())
    policed = settings.model_copy(update={"policy_file": POLICY_FILE, "api_keys": SecretStr(keys)})
    async with running_service(policed, model=model) as client:
        yield client


async def test_sensitive_values_reach_the_model_as_tokens_and_people_as_values(governed, model):
    model.replies = [
        call_tool("run_sql", sql=NAMES_SQL),
        lambda messages: call_tool("read_result", result_id=last_result_id(messages)),
        answer("done"),
    ]
    response = await governed.http.post(
        "/api/v0/ask_react_agent",
        json={"question": "who are our customers?"},
        headers=bearer("alice"),
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["user_id"] == "alice"  # the key's one user, though the body named none
    rows = data["records"]["rows"]
    assert rows and {row["region_id"] for row in rows} == {1}
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        real = dict(connection.execute("SELECT customer_id, customer_name FROM customers"))
    assert [row["customer_name"] for row in rows] == [real[row["customer_id"]] for row in rows]
    after_sql, after_read = text_of(model.seen[1]), text_of(model.seen[2])
    for row in rows:
        assert row["customer_name"] not in after_sql and row["customer_name"] not in after_read
        assert str(row["customer_id"]) in after_sql  # other values are left alone
    tokens = [t for t in after_sql.split('"') if t.startswith("‹customer_name#")]
    assert len(set(tokens)) == len({row["customer_name"] for row in rows})
    assert all(token in after_read for token in tokens)  # the same value, the same token


async def test_a_denied_column_is_refused_with_its_rule_and_no_sql_for_a_role_without_show_sql(
    governed, model
):
    model.replies = [call_tool("run_sql", sql="SELECT max(unit_cost) FROM products"), answer("no")]
    response = await governed.http.post(
        "/api/v0/ask_react_agent", json={"question": "margins?"}, headers=bearer("bob")
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert "COLUMN_DENIED" in text_of(model.seen[1])
    assert "sql" not in data and all("sql" not in entry for entry in data["sqls"])
    assert data["sqls"] and data["sqls"][0].get("status") == "refused"
    assert "unit_cost" not in json.dumps(data["sqls"])


def _ask_denied_then_answer(messages: list[BaseMessage]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage):
        return answer("done")
    return call_tool("run_sql", sql="SELECT unit_cost FROM products")


QUESTION = {"question": "what does it cost us?"}
CHAT = {"messages": [{"role": "user", "content": "what does it cost us?"}]}
ASKING_ROUTES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/api/v0/ask_react_agent"): {"json": QUESTION},
    ("POST", "/api/chat"): {"json": QUESTION},
    ("POST", "/api/v0/ask_react_agent_stream"): {"json": QUESTION},
    ("GET", "/api/v0/ask_react_agent_stream"): {"params": QUESTION},
    ("GET", "/api/v0/ask_react_agent_stream_sync"): {"params": QUESTION},
    ("POST", "/v1/chat/completions"): {"json": CHAT},
}
"""Routes that start a run: each must run it under the asker's scope."""
OTHER_ROUTES = {
    # Reads of the asker's own conversations and results (the CSV export re-runs under
    # the current policy: react_agent/results/exports.py), ratings, memory, health.
    ("GET", "/api/v0/react/users/{user_id}/conversations"),
    ("GET", "/api/v0/react/conversations/{thread_id}"),
    ("GET", "/api/v0/react/status/{thread_id}"),
    ("GET", "/api/v0/react/users/{user_id}/conversations/{thread_id}"),
    ("GET", "/api/v0/react/conversations/{thread_id}/results/{result_id}.csv"),
    ("POST", "/api/v0/react/runs/{run_id}/cancel"),
    ("GET", "/v1/models"),
    ("GET", "/health"),
    ("POST", "/api/v0/qa_feedback/add"),
    ("POST", "/api/v0/qa_feedback/query"),
    ("PUT", "/api/v0/qa_feedback/update/{feedback_id}"),
    ("DELETE", "/api/v0/qa_feedback/delete/{feedback_id}"),
    ("GET", "/api/v0/qa_feedback/stats"),
    ("POST", "/api/v0/qa_feedback/add_to_training"),
    ("POST", "/api/v0/training_data/create"),
    ("POST", "/api/v0/training_data/query"),
    ("POST", "/api/v0/training_data/update"),
    ("POST", "/api/v0/training_data/delete"),
    ("GET", "/api/v0/training_data/stats"),
    # Business instructions: admin keys only (tests/app/test_instructions_api.py).
    ("GET", "/api/v0/instructions"),
    ("POST", "/api/v0/instructions"),
    ("PUT", "/api/v0/instructions/{ident}"),
    # The caller's own: renaming and deleting their conversations, their datasets, who the
    # key acts as, their quota use (their role's limits: test below).
    ("PATCH", "/api/v0/react/conversations/{thread_id}"),
    ("DELETE", "/api/v0/react/conversations/{thread_id}"),
    ("POST", "/api/v0/datasets"),
    ("GET", "/api/v0/datasets"),
    ("DELETE", "/api/v0/datasets/{dataset_id}"),
    ("PUT", "/api/v0/datasets/{dataset_id}"),
    ("GET", "/api/v0/whoami"),
    ("GET", "/api/v0/usage"),
    # What the caller may read, filtered by their scope (tests below).
    ("GET", "/api/v0/schema"),
    ("GET", "/api/v0/suggestions"),
    # Roles with `audit: true` or admin keys (test below); admin keys only; liveness.
    ("GET", "/api/v0/audit"),
    ("POST", "/api/v0/schema/refresh"),
    ("GET", "/ready"),
    ("GET", "/api/v0/ready"),
}
"""Routes that start no run; a new route must be put in one table or the other."""


async def test_every_documented_route_is_classified_for_the_policy(governed):
    spec = (await governed.http.get("/openapi.json", headers=bearer("root"))).json()
    documented = {(m.upper(), path) for path, ops in spec["paths"].items() for m in ops}
    assert documented == set(ASKING_ROUTES) | OTHER_ROUTES


@pytest.mark.parametrize("route", sorted(ASKING_ROUTES))
async def test_every_asking_route_runs_under_the_askers_scope(governed, model, route):
    model.default = _ask_denied_then_answer
    method, path = route
    response = await governed.http.request(
        method, path, headers=bearer("alice"), **ASKING_ROUTES[route]
    )
    assert response.status_code == 200, response.text
    refusals = [m for m in model.seen[-1] if isinstance(m, ToolMessage)]
    assert refusals and "COLUMN_DENIED" in str(refusals[-1].content)
    # The admin's scope reads every column: the same question is not refused for root.
    model.seen.clear()
    root = await governed.http.request(method, path, headers=bearer("root"), **ASKING_ROUTES[route])
    assert root.status_code == 200, root.text
    results = [m for m in model.seen[-1] if isinstance(m, ToolMessage)]
    assert results and "COLUMN_DENIED" not in str(results[-1].content)


async def test_mcp_lists_only_the_tables_and_columns_the_key_may_read(governed):

    tools = DataTools(lambda: agent_service_of(governed.app), thread_id_clock_of(governed.app))
    keys = api_keys_of(governed.app)
    alice = keys.match(KEYS["alice"])
    products = await tools.describe_table("products", alice)
    assert "unit_cost" not in {column["name"] for column in products["columns"]}
    root = keys.match(KEYS["root"])
    assert "unit_cost" in {
        c["name"] for c in (await tools.describe_table("products", root))["columns"]
    }


async def test_an_approval_resume_runs_under_both_its_questions_scope_and_the_policy_now(
    settings, tmp_path
):
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(POLICY_FILE.read_text("utf-8"), "utf-8")
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql="SELECT DISTINCT region_id FROM stores"), answer("ok")]
    )
    keys = SecretStr(f"{KEYS['alice']}=alice")
    # Moving alice to another region is a loosening: applied at once only without a wait.
    update = {"policy_file": policy_file, "api_keys": keys, "policy_reload_settle_seconds": 0}
    policed = settings.model_copy(update=update)
    async with running_service(policed, model=model) as service:
        waiting = await service.http.post(
            "/api/v0/ask_react_agent",
            json={"question": "regions?", "approve_sql": True},
            headers=bearer("alice"),
        )
        data = waiting.json()["data"]
        assert data["status"] == "awaiting_approval", data
        # The policy moves alice to region 2 while her question waits for a person.
        policy_file.write_text(
            POLICY_FILE.read_text("utf-8").replace("region_id: 1}", "region_id: 2}"), "utf-8"
        )
        os.utime(policy_file, ns=(1, 10**18))
        resumed = await service.http.post(
            "/api/v0/ask_react_agent",
            json={
                "thread_id": data["conversation_id"],
                "resume": {"interrupt_id": data["interrupt_id"], "action": "approve"},
            },
            headers=bearer("alice"),
        )
        assert resumed.status_code == 200, resumed.text
        # The stricter of region 1 (when asked) and region 2 (now): no store (#47.7).
        assert resumed.json()["data"]["records"]["rows"] == []
        model.replies += [call_tool("run_sql", sql="SELECT DISTINCT region_id FROM stores")]
        model.replies += [answer("ok")]
        fresh = await service.http.post(
            "/api/v0/ask_react_agent", json={"question": "again?"}, headers=bearer("alice")
        )
        assert fresh.json()["data"]["records"]["rows"] == [{"region_id": 2}]


async def test_the_actor_carries_the_keys_id_roles_and_attributes_never_the_secret(governed):
    key = api_keys_of(governed.app).match(KEYS["alice"])
    assert key is not None and key.sole_user == "alice"
    actor, scope = actor_and_scope(agent_service_of(governed.app), "alice", key)
    assert actor.key_id == key.key_id and KEYS["alice"] not in actor.key_id
    assert actor.key_id == parse_api_keys(f"{KEYS['alice']}=someone")[0].key_id  # stable
    assert actor.roles == ("east_analyst",) and actor.attributes == {"region_id": 1}
    assert scope is not None and "orders" in scope.row_filters
    assert actor_and_scope(None, "alice", key)[1] is None  # no policy: no scope


async def test_a_role_without_show_sql_streams_no_tool_events_and_no_sql(governed, model):
    model.replies = [call_tool("run_sql", sql="SELECT count(*) AS n FROM orders"), answer("n")]
    events = await collect_stream(
        governed.http,
        json={"question": "how many orders?", "stream_tools": True},
        headers=bearer("bob"),
    )
    types = [event.type for event in events]
    assert "completed" in types and "tool_call" not in types and "tool_result" not in types
    completed = events[types.index("completed")].data
    assert "sql" not in completed and completed["records"]["rows"][0]["n"] > 0
    assert "SELECT" not in json.dumps(completed)
    detail = await governed.http.get(
        f"/api/v0/react/conversations/{completed['conversation_id']}",
        params={"include_tools": "true"},
        headers=bearer("bob"),
    )
    assert detail.status_code == 200 and "tool_calls" in detail.text  # names, not SQL
    assert "SELECT" not in detail.text and "count(*)" not in detail.text


async def test_a_policy_naming_an_unknown_column_stops_start_up(settings, tmp_path):
    bad = tmp_path / "policy.yaml"
    bad.write_text(POLICY_FILE.read_text("utf-8").replace("[unit_cost]", "[unit_costs]"), "utf-8")
    update = {"policy_file": bad, "auth_trusted_gateway": True}
    with pytest.raises(
        ConfigurationError,
        match=r"POLICY_FILE .*policy.yaml:\d+: unknown column products.unit_costs",
    ):
        async with open_agent_service(
            settings.model_copy(update=update), model=ScriptedChatModel()
        ):
            pass


async def test_the_openai_route_shows_no_sql_to_a_role_without_show_sql(governed, model):
    sql = "SELECT count(*) AS n FROM orders"
    model.replies = [call_tool("run_sql", sql=sql), answer("n"), call_tool("run_sql", sql=sql)]
    model.replies.append(answer("n"))
    for user, shown in (("bob", False), ("alice", True)):
        response = await governed.http.post("/v1/chat/completions", json=CHAT, headers=bearer(user))
        assert response.status_code == 200, response.text
        content = response.json()["choices"][0]["message"]["content"]
        assert ("```sql" in content) is shown, (user, content)


async def test_the_schema_shows_each_caller_only_the_columns_their_role_may_read(governed):
    catalog = agent_service_of(governed.app).catalog
    assert catalog is not None
    await catalog.wait_ready()

    async def products_columns(user: str) -> set[str]:
        response = await governed.http.get("/api/v0/schema", headers=bearer(user))
        assert response.status_code == 200, response.text
        tables = {t["name"]: t for t in response.json()["data"]["tables"]}
        return {c["name"] for c in tables["products"]["columns"]}

    assert "unit_cost" not in await products_columns("alice")
    assert "unit_cost" in await products_columns("root")


async def test_suggestions_leave_out_examples_whose_sql_the_role_may_not_read(
    settings, model, tmp_path
):
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(
        "users:\n  alice: {roles: [stores_only]}\n  root: {roles: [admin]}\n"
        "roles:\n  stores_only: {tables: [stores, regions]}\n  admin: {tables: '*'}\n",
        "utf-8",
    )
    admin_key = "admin-key-0123456789"  # bound to no user: may write the memory
    keys = "; ".join([*(f"{key}={user}" for user, key in KEYS.items()), admin_key])
    update = {"policy_file": policy_file, "api_keys": SecretStr(keys)}
    async with running_service(settings.model_copy(update=update), model=model) as service:
        created = await service.http.post(
            "/api/v0/training_data/create",
            json={
                "data": [
                    {
                        "training_data_type": "sql",
                        "question": "门店数",
                        "sql": "SELECT COUNT(*) FROM stores",
                    },
                    {
                        "training_data_type": "sql",
                        "question": "订单数",
                        "sql": "SELECT COUNT(*) FROM orders",
                    },
                ]
            },
            headers={"Authorization": f"Bearer {admin_key}"},
        )
        assert created.status_code == 200, created.text
        seen = {}
        for user in ("alice", "root"):
            response = await service.http.get(
                "/api/v0/suggestions", params={"limit": 20}, headers=bearer(user)
            )
            assert response.status_code == 200, response.text
            seen[user] = {s["question"] for s in response.json()["data"]["suggestions"]}
    assert "门店数" in seen["alice"] and "订单数" not in seen["alice"]
    assert {"门店数", "订单数"} <= seen["root"]


async def test_the_audit_is_read_by_a_role_with_audit_and_refused_to_others(governed):
    root = await governed.http.get("/api/v0/audit", headers=bearer("root"))
    alice = await governed.http.get("/api/v0/audit", headers=bearer("alice"))
    assert root.status_code == 200, root.text
    assert root.json()["data"]["audit_enabled"] is True  # a role reads it: the trail is kept
    assert alice.status_code == 403 and alice.json()["success"] is False


async def test_usage_shows_the_limits_of_the_callers_role(governed):
    response = await governed.http.get("/api/v0/usage", headers=bearer("alice"))
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["user_id"] == "alice" and data["quotas_enabled"] is True
    # east_analyst's quota in the sample policy: 10 questions a minute, 200,000 tokens a day.
    assert sorted(data["limits"].values()) == [10, 200000]
