"""The catalogue within the scope: a restricted user is shown only counts and values of their rows.

alice (the sample policy's east_analyst, region 1) asks with the schema in the prompt and
calls list_tables and describe_tables; she also reads GET /api/v0/schema and the MCP tools.
The oracle is region 1's copy of the data: every count she is shown must be the oracle's,
and no text value of a row outside her scope (another region's store names and cities) may
be in anything she or the model is shown. root, who reads everything, sees those values in
the same places, so the check is not empty.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import AsyncIterator, Iterator
from typing import Any

import psycopg
import pytest
from pydantic import SecretStr

from app.http.app_state import agent_service_of, thread_id_clock_of
from app.http.auth import api_keys_of
from app.mcp.tools import DataTools
from react_agent.sample_data.load_postgres import load_into_postgres
from tests.react_agent.access.conftest import POLICY_FILE, SampleCopies, sqlite_copies
from tests.support.live_server import ServiceClient, running_service
from tests.support.openai_stub import OpenAIStub, Reply, ToolCall
from tests.support.postgres import create_test_database, drop_test_database

KEYS = {"alice": "alice-key-0123456789", "root": "root-key-012345"}
ADMIN_KEY = "admin-key-0123456789"
"""Bound to no user: an admin key (the only kind shown /health's details)."""
TABLES = ["regions", "stores", "customers", "orders", "order_items", "products"]
TEXT_COLUMNS = {
    "regions": ["region_name"],
    "stores": ["store_name", "city"],
    "customers": ["city"],
}
COUNT = re.compile(r"^(\w+) \((\d+) rows\)", re.MULTILINE)


def _rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    if url.startswith("sqlite"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as connection:
            return connection.execute(sql).fetchall()
    with psycopg.connect(url) as connection:
        return connection.execute(sql).fetchall()


def counts(url: str) -> dict[str, int]:
    return {table: _rows(url, f"SELECT count(*) FROM {table}")[0][0] for table in TABLES}


def texts(url: str) -> set[str]:
    return {
        str(row[0])
        for table, columns in TEXT_COLUMNS.items()
        for column in columns
        for row in _rows(url, f"SELECT DISTINCT {column} FROM {table}")
    }


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def copies(request, tmp_path_factory) -> Iterator[SampleCopies]:
    """Give the full sample and region 1's copy (the oracle), on SQLite and PostgreSQL."""
    if request.param == "sqlite":
        yield sqlite_copies(tmp_path_factory.mktemp("catalogue"))
        return
    server = request.getfixturevalue("postgres_url")
    full, oracle = create_test_database(server), create_test_database(server)
    try:
        for url in (full, oracle):
            load_into_postgres(url)
        with psycopg.connect(oracle, autocommit=True) as connection:
            connection.execute("SET session_replication_role = replica")
            connection.execute(
                "DELETE FROM order_items WHERE order_id IN (SELECT order_id FROM orders WHERE "
                "store_id IN (SELECT store_id FROM stores WHERE region_id <> 1))"
            )
            connection.execute(
                "DELETE FROM orders WHERE store_id IN "
                "(SELECT store_id FROM stores WHERE region_id <> 1)"
            )
            for table in ("customers", "stores", "regions"):
                connection.execute(f"DELETE FROM {table} WHERE region_id <> 1")
        yield SampleCopies("postgres", full, oracle)
    finally:
        drop_test_database(full)
        drop_test_database(oracle)


@pytest.fixture
async def stub() -> AsyncIterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


@pytest.fixture
async def served(settings, stub, copies) -> AsyncIterator[ServiceClient]:
    keys = "; ".join([*(f"{key}={user}" for user, key in KEYS.items()), ADMIN_KEY])
    governed = settings.model_copy(
        update={
            "policy_file": POLICY_FILE,
            "api_keys": SecretStr(keys),
            "data_database_url": copies.full,
            "openai_base_url": stub.base_url,
            "openai_api_key": SecretStr("test"),
            "schema_prompt_budget": 50_000,
        }
    )
    async with running_service(governed) as client:
        await agent_service_of(client.app).catalog.wait_ready()
        yield client


async def shown_to(client: ServiceClient, stub: OpenAIStub, user: str) -> dict[str, Any]:
    """Return what `user` and their model are shown of the catalogue, surface by surface."""
    stub.clear()
    stub.script(
        Reply(
            tool_calls=[
                ToolCall("list_tables", {}, id="lt"),
                ToolCall("describe_tables", {"table_names": TABLES}, id="dt"),
            ]
        ),
        Reply(text="ok"),
    )
    headers = {"Authorization": f"Bearer {KEYS[user]}"}
    asked = await client.http.post(
        "/api/v0/ask_react_agent", json={"question": "哪些门店在上海？"}, headers=headers
    )
    assert asked.status_code == 200, asked.text
    first, second = stub.requests
    tool_results = {
        m["tool_call_id"]: m["content"] for m in second["messages"] if m.get("role") == "tool"
    }
    schema = await client.http.get("/api/v0/schema", headers=headers)
    assert schema.status_code == 200 and schema.json()["data"]["status"] == "ready"
    tools = DataTools(lambda: agent_service_of(client.app), thread_id_clock_of(client.app))
    key = api_keys_of(client.app).match(KEYS[user])
    mcp = [await tools.describe_table(name, key) for name in await tools.list_tables(key)]
    return {
        "prompt": first["messages"][0]["content"],
        "list_tables": tool_results["lt"],
        "describe_tables": tool_results["dt"],
        "schema": schema.json()["data"],
        "mcp": mcp,
    }


async def test_a_restricted_user_sees_only_counts_and_values_of_their_rows(served, stub, copies):
    oracle_counts, full_counts = counts(copies.oracle), counts(copies.full)
    oracle_text = "\n".join(texts(copies.oracle))
    foreign = {value for value in texts(copies.full) if value not in oracle_text}
    assert foreign and full_counts["orders"] != oracle_counts["orders"]

    alice = await shown_to(served, stub, "alice")
    everything = json.dumps(alice, ensure_ascii=False)
    assert "products" in alice["prompt"] and "stores" in alice["prompt"]
    leaked = sorted(value for value in foreign if value in everything)
    assert not leaked, f"other regions' values shown to alice: {leaked[:5]}"
    for surface in ("list_tables", "describe_tables"):
        shown = {name: int(n) for name, n in COUNT.findall(alice[surface])}
        assert shown.get("products") == oracle_counts["products"]  # not filtered: the real count
        assert all(oracle_counts[name] == n for name, n in shown.items()), (surface, shown)
    for table in [*alice["schema"]["tables"], *alice["mcp"]]:
        assert table["row_count"] in (None, oracle_counts[table["name"]]), table
    assert str(full_counts["orders"]) not in alice["prompt"]

    root = await shown_to(served, stub, "root")  # the same surfaces do carry them for root
    assert any(value in root["prompt"] for value in foreign)
    orders = next(t for t in root["schema"]["tables"] if t["name"] == "orders")
    assert orders["row_count"] == full_counts["orders"]


async def test_health_without_an_admin_key_says_ok_and_nothing_more(served):
    for key in (None, KEYS["alice"], KEYS["root"], "not-a-key"):
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        response = await served.http.get("/health", headers=headers)
        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "healthy" and body["data"] == {"status": "ok"}
        assert "orders" not in response.text and "http" not in response.text
    admin = await served.http.get("/health", params={"api_key": ADMIN_KEY})
    assert admin.status_code == 200 and "data_database" in admin.json()["data"]
