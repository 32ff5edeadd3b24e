"""MCP resources and prompts through the official `mcp` client, scoped to the caller's key."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import listen
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from pydantic import SecretStr

from tests.support.live_server import ServiceClient, running_service
from tests.support.mcp_client import http_session

SEMANTIC_FILE = Path(__file__).resolve().parents[3] / "config" / "semantic.sample.yaml"
KEYS = {"ann": "ann-key-0123456789", "root": "root-key-0123456789"}
ADMIN_KEY = "admin-key-0123456789"
"""Bound to no user: may call the admin routes (here, to store the examples)."""
POLICY = """
users:
  ann: {roles: [store_analyst], attributes: {region_id: 1}}
  root: {roles: [admin]}
default_role: visitor
roles:
  visitor:
    tables: [regions]
  store_analyst:
    tables: [orders, stores]
    row_filters: {stores: "region_id = :region_id"}
  admin:
    tables: "*"
"""
RULES = """
instructions:
  - {id: fiscal_year, text: 财年从4月1日开始}
  - {id: test_stores, text: 排除 store_id > 9000, tables: [stores]}
  - {id: member_names, text: 会员姓名不要列出, tables: [customers]}
  - {id: old_rule, text: 旧口径, valid_to: 2020-01-01}
"""
STORES_EXAMPLE = {"question": "门店有几家", "sql": "SELECT COUNT(*) FROM stores"}
CUSTOMERS_EXAMPLE = {"question": "会员有多少", "sql": "SELECT COUNT(*) FROM customers"}


@pytest.fixture
async def governed(settings, model, tmp_path: Path) -> AsyncIterator[ServiceClient]:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    semantic = tmp_path / "semantic.yaml"
    semantic.write_text(SEMANTIC_FILE.read_text(encoding="utf-8") + RULES, encoding="utf-8")
    keys = "; ".join([*(f"{key}={user}" for user, key in KEYS.items()), ADMIN_KEY])
    governed = settings.model_copy(
        update={
            "policy_file": policy,
            "api_keys": SecretStr(keys),
            "semantic_file": semantic,
        }
    )
    async with running_service(governed, model=model) as client:
        headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
        for example in (STORES_EXAMPLE, CUSTOMERS_EXAMPLE):
            body = {"data": {"training_data_type": "sql", **example}}
            response = await client.http.post(
                "/api/v0/training_data/create", json=body, headers=headers
            )
            assert response.status_code == 200, response.text
        yield client


@asynccontextmanager
async def modern_session(base_url: str, key: str) -> AsyncIterator[ClientSession]:
    """Open a session on the 2026-07-28 protocol (server/discover): it has listen."""
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(f"{base_url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.discover()
        yield session


async def read_json(session, uri: str) -> dict:
    result = await session.read_resource(uri)
    return json.loads(result.contents[0].text)


async def test_a_scoped_caller_lists_and_reads_only_its_tables(governed):
    async with http_session(governed.base_url, KEYS["ann"]) as session:
        uris = {str(r.uri) for r in (await session.list_resources()).resources}
        schema = await read_json(session, "sqlagent://schema")
        stores = await read_json(session, "sqlagent://schema/stores")
        metrics = await read_json(session, "sqlagent://metrics")
        examples = await read_json(session, "sqlagent://examples")
        rules = await read_json(session, "sqlagent://instructions")
        with pytest.raises(MCPError, match="RESOURCE_NOT_FOUND"):
            await session.read_resource("sqlagent://schema/customers")
    assert uris == {
        "sqlagent://schema",
        "sqlagent://metrics",
        "sqlagent://examples",
        "sqlagent://instructions",
        "sqlagent://schema/orders",
        "sqlagent://schema/stores",
    }
    assert {table["name"] for table in schema["tables"]} == {"orders", "stores"}
    assert stores["synonyms"][:2] == ["门店", "店铺"]  # the semantic file's words
    city = next(c for c in stores["columns"] if c["name"] == "city")
    assert city["description"].startswith("门店所在城市")
    # stores has a row filter for ann: its values (read over all rows) are not shown.
    assert all(column["values"] is None for column in stores["columns"])
    assert stores["row_count"] is None
    # 销售额 reads orders only; 毛利 reads order_items and products, which ann may not read.
    assert {m["name"] for m in metrics["metrics"]} == {"销售额", "客单价"}
    assert [e["question"] for e in examples["examples"]] == [STORES_EXAMPLE["question"]]
    # member_names is about customers, which ann may not read; old_rule is out of force.
    assert [rule["id"] for rule in rules["instructions"]] == ["fiscal_year", "test_stores"]


async def test_an_admin_sees_every_table_with_its_values_and_every_example(governed):
    async with http_session(governed.base_url, KEYS["root"]) as session:
        uris = {str(r.uri) for r in (await session.list_resources()).resources}
        regions = await read_json(session, "sqlagent://schema/regions")
        examples = await read_json(session, "sqlagent://examples")
        rules = await read_json(session, "sqlagent://instructions")
    assert [rule["id"] for rule in rules["instructions"]] == [
        "fiscal_year",
        "test_stores",
        "member_names",
    ]
    assert {"sqlagent://schema/customers", "sqlagent://schema/order_items"} <= uris
    names = next(c for c in regions["columns"] if c["name"] == "region_name")
    assert "华东" in names["values"] and names["synonyms"] == ["大区", "地区", "region"]
    questions = {e["question"] for e in examples["examples"]}
    assert questions == {STORES_EXAMPLE["question"], CUSTOMERS_EXAMPLE["question"]}


async def test_prompts_name_the_callers_tables(governed):
    async with http_session(governed.base_url, KEYS["ann"]) as session:
        prompts = {p.name: p for p in (await session.list_prompts()).prompts}
        asked = await session.get_prompt("ask_about_data", {"question": "上月销售额"})
        explained = await session.get_prompt("explain_sql", {"sql": "SELECT 1 FROM orders"})
    assert set(prompts) == {"ask_about_data", "explain_sql"}
    assert [a.name for a in prompts["ask_about_data"].arguments] == ["question"]
    ask_text = asked.messages[0].content.text
    assert "上月销售额" in ask_text and "orders, stores" in ask_text
    assert "customers" not in ask_text
    assert "SELECT 1 FROM orders" in explained.messages[0].content.text


async def test_a_catalogue_refresh_notifies_listening_clients(governed):
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    async with (
        modern_session(governed.base_url, KEYS["ann"]) as session,
        listen(
            session, resources_list_changed=True, resource_subscriptions=["sqlagent://schema"]
        ) as subscription,
    ):
        response = await governed.http.post("/api/v0/schema/refresh", headers=headers)
        assert response.status_code == 200, response.text
        events = [await anext(aiter(subscription)), await anext(aiter(subscription))]
    assert {type(event).__name__ for event in events} == {
        "ResourceUpdated",
        "ResourcesListChanged",
    }
    assert any(getattr(event, "uri", None) == "sqlagent://schema" for event in events)
