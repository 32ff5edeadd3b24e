"""No customer name reaches the model, whatever expression carries it, on every engine.

Each engine's corpus (lineage_corpus.py) goes through the whole service as alice (the sample
policy: customers.customer_name is sensitive) with a real ChatOpenAI against the scripted
OpenAI-compatible server: one turn calls run_sql for every query, and every request the
model received is read back. The oracle is the set of real names in the data: none may be
in any request; each query that derives a value must have run (its result has tokens), and
each that folds names into one value must be refused by its rule.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from config import Settings
from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.sample_data.export_files import write_sample_folder
from react_agent.sample_data.load_postgres import load_into_postgres
from tests.react_agent.access.conftest import POLICY_FILE
from tests.react_agent.access.lineage_corpus import FOLDED, corpus
from tests.support.live_server import ServiceClient, running_service
from tests.support.openai_stub import OpenAIStub, Reply, ToolCall

ALICE_KEY = "alice-key-0123456789"
OTHER_TEXT = (
    "SELECT store_name FROM stores UNION SELECT city FROM stores UNION SELECT city FROM "
    "customers UNION SELECT region_name FROM regions UNION SELECT product_name FROM products "
    "UNION SELECT category FROM products UNION SELECT status FROM orders"
)


def real_names() -> set[str]:
    """Return the oracle: every customer name, less those that are also other text."""
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        names = {row[0] for row in connection.execute("SELECT customer_name FROM customers")}
        other = "\n".join(str(row[0]) for row in connection.execute(OTHER_TEXT))
    return {name for name in names if name not in other}


def request_text(requests: list[dict[str, Any]]) -> str:
    return "\n".join(json.dumps(body, ensure_ascii=False) for body in requests)


def tool_contents(requests: list[dict[str, Any]]) -> dict[str, str]:
    """Tool-call id → the tool result's content, as the model last received them."""
    found: dict[str, str] = {}
    for body in requests:
        for message in body.get("messages", []):
            if message.get("role") == "tool":
                found[message["tool_call_id"]] = str(message.get("content"))
    return found


@pytest.fixture(params=["sqlite", "postgres", "mysql", "duckdb"])
def data_url(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    if request.param == "sqlite":
        return "sqlite", f"sqlite:///{SAMPLE_DB_PATH}"
    if request.param == "postgres":
        url = request.getfixturevalue("postgres_database")
        load_into_postgres(url)
        return "postgres", url
    if request.param == "mysql":
        return "mysql", request.getfixturevalue("mysql_sample_url")
    return "duckdb", f"duckdb:///{write_sample_folder(tmp_path / 'files')}"


@pytest.fixture
async def stub() -> AsyncIterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def governed(settings: Settings, stub: OpenAIStub, url: str, **more: Any) -> Settings:
    """Return settings with the sample policy minus alice's quota (the corpus asks a lot)."""
    policy = Path(settings.data_dir) / "policy.yaml"
    text = POLICY_FILE.read_text(encoding="utf-8")
    quota = "quota: {questions_per_minute: 10, tokens_per_day: 200000}"
    assert quota in text
    policy.write_text(text.replace(quota, ""), encoding="utf-8")
    return settings.model_copy(
        update={
            "policy_file": policy,
            "api_keys": SecretStr(f"{ALICE_KEY}=alice"),
            "data_database_url": url,
            "openai_base_url": stub.base_url,
            "openai_api_key": SecretStr("test"),
            **more,
        }
    )


async def ask(client: ServiceClient, question: str) -> dict[str, Any]:
    response = await client.http.post(
        "/api/v0/ask_react_agent",
        json={"question": question},
        headers={"Authorization": f"Bearer {ALICE_KEY}"},
    )
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def test_no_name_reaches_the_model_through_any_expression(settings, stub, data_url):
    dialect, url = data_url
    names = real_names()
    async with running_service(governed(settings, stub, url)) as client:
        for kind, sql, expected in corpus(dialect):
            # Each query in a conversation of its own: no other result's values in the state.
            stub.clear()
            stub.script(Reply(tool_calls=[ToolCall("run_sql", {"sql": sql}, id="q")]), Reply("ok"))
            data = await ask(client, f"customers, {kind}")
            assert data["user_id"] == "alice"
            requests = stub.requests
            leaked = sorted(name for name in names if name in request_text(requests))
            assert not leaked, f"{dialect} [{kind}] {sql}: names reached the model: {leaked[:5]}"
            content = tool_contents(requests)["q"]
            if expected == FOLDED:
                assert "SENSITIVE_VALUES_" in content, f"{dialect} {sql}: {content[:200]}"
                continue
            assert content.startswith("result_id:"), f"{dialect} [{kind}] {sql}: {content[:300]}"
            if kind != "count":
                assert "‹" in content, f"{dialect} [{kind}] {sql}: {content[:300]}"
            # Only what carries a name is a token: ids and regions stay readable.
            assert "‹customer_id#" not in content and "‹region_id#" not in content, sql


async def test_sub_agents_pass_the_same_boundary(settings, stub):
    url = f"sqlite:///{SAMPLE_DB_PATH}"
    sub_sql = "SELECT customer_id, upper(customer_name) || '' AS who FROM customers LIMIT 20"
    stub.script(
        Reply(
            tool_calls=[
                ToolCall(
                    "delegate", {"tasks": [{"description": "names", "question": "list customers"}]}
                )
            ]
        ),
        Reply(tool_calls=[ToolCall("run_sql", {"sql": sub_sql}, id="sub_1")]),
        Reply(tool_calls=[ToolCall("read_result", {"result_id": "sub_1"}, id="sub_2")]),
        Reply(text="the sub-agent is done"),
        Reply(text="done"),
    )
    async with running_service(governed(settings, stub, url, subagents=True)) as client:
        await ask(client, "delegate it")
    requests = stub.requests
    assert len(requests) == 5
    text = request_text(requests)
    assert not sorted(name for name in real_names() if name in text)
    assert "‹who#" in tool_contents(requests)["sub_1"]


async def test_people_keep_the_real_values_and_tokens_are_long(settings, stub):
    url = f"sqlite:///{SAMPLE_DB_PATH}"
    sql = "SELECT customer_id, '<' || customer_name || '>' AS n FROM customers ORDER BY 1"
    stub.script(Reply(tool_calls=[ToolCall("run_sql", {"sql": sql}, id="c1")]), Reply(text="ok"))
    async with running_service(governed(settings, stub, url)) as client:
        data = await ask(client, "names")
    rows = data["records"]["rows"]
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        real = dict(connection.execute("SELECT customer_id, customer_name FROM customers"))
    assert rows and all(row["n"] == f"<{real[row['customer_id']]}>" for row in rows)
    content = tool_contents(stub.requests)["c1"]
    tokens = {part.split("›")[0] for part in content.split("‹")[1:]}
    assert tokens and all(len(token.split("#")[1]) >= 12 for token in tokens)
