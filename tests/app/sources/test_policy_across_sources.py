"""A policy over named sources: `sales.*` with a row filter, never `fin.*`, on every surface."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr

from config import Settings
from tests.react_agent.databases.test_named_sources import oracle, sources_text  # noqa: F401
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

POLICY = """
users:
  lin: {roles: [store_analyst], attributes: {store: 3}}
default_role: nobody
roles:
  store_analyst:
    tables: [sales.*, files.regions]
    row_filters:
      sales.orders: "store_id = :store"
    deny_columns: {sales.customers: [customer_name]}
  nobody:
    tables: []
"""
JOINED = (
    "SELECT r.region_name, count(*) AS n FROM sales.orders o "
    "JOIN sales.stores s ON s.store_id = o.store_id "
    "JOIN files.regions r ON r.region_id = s.region_id GROUP BY 1 ORDER BY 1"
)
REFUSED = "SELECT count(*) AS n FROM sales.orders o JOIN fin.stores s USING (store_id)"
DENIED = (
    "SELECT c.customer_name, r.region_name FROM sales.customers c "
    "JOIN files.regions r ON r.region_id = c.region_id"
)


async def test_a_role_reads_its_sources_filtered_and_never_another_source(
    settings: Settings,
    sources_text: str,  # noqa: F811 (the fixture)
    tmp_path: Path,
):
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    governed = settings.model_copy(
        update={
            "data_sources": sources_text,
            "policy_file": policy,
            "api_keys": SecretStr("lin-key=lin"),
        }
    )
    model = ScriptedChatModel()
    headers = {"Authorization": "Bearer lin-key"}
    async with running_service(governed, model=model) as service:
        model.replies = [
            call_tool("list_tables"),
            call_tool("run_sql", sql=REFUSED),
            call_tool("run_sql", sql=DENIED),
            call_tool("run_sql", sql=JOINED),
            answer("好"),
        ]
        asked = await service.http.post(
            "/api/v0/ask_react_agent", json={"question": "各地区订单"}, headers=headers
        )
        schema = await service.http.get("/api/v0/schema", headers=headers)
    assert asked.status_code == 200, asked.text
    listed = str(model.seen[1][-1].content)
    refusal = str(model.seen[2][-1].content)
    denial = str(model.seen[3][-1].content)
    assert "sales.orders" in listed and "files.regions" in listed
    assert "fin." not in listed and "files.orders" not in listed
    assert "fin.stores" in refusal and "not" in refusal.lower()
    assert "customer_name" in denial and "may not read the column" in denial
    rows = [tuple(r.values()) for r in asked.json()["data"]["records"]["rows"]]
    assert rows == oracle(
        "SELECT r.region_name, count(*) AS n FROM orders o "
        "JOIN stores s ON s.store_id = o.store_id JOIN regions r ON r.region_id = s.region_id "
        "WHERE o.store_id = 3 GROUP BY 1 ORDER BY 1"
    )
    assert schema.status_code == 200, schema.text
    assert "sales.orders" in schema.text and "fin.stores" not in schema.text
