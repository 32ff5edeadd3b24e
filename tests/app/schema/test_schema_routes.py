"""GET /api/v0/schema and POST /api/v0/schema/refresh over real HTTP, and /health's schema part."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pydantic import SecretStr

from app.http.app_state import agent_service_of
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel

ADMIN_KEY, ALICE_KEY = "admin-key-123", "alice-key-456"
AMOUNT_SQL = "SELECT SUM(amount) FROM orders"
SEMANTIC = Path(__file__).resolve().parents[3] / "config" / "semantic.sample.yaml"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def test_the_schema_shows_readable_tables_with_the_files_words(settings):
    settings = settings.model_copy(
        update={"semantic_file": SEMANTIC, "sql_allowed_tables": "orders,regions,customers"}
    )
    async with running_service(settings, model=ScriptedChatModel()) as service:
        await agent_service_of(service.app).catalog.wait_ready()
        response = await service.http.get("/api/v0/schema")

    body = response.json()
    assert response.status_code == 200 and body["success"] is True
    data = body["data"]
    assert data["status"] == "ready" and data["built_at"]
    assert [t["name"] for t in data["tables"]] == ["customers", "orders", "regions"]
    orders = next(t for t in data["tables"] if t["name"] == "orders")
    assert orders["description"] == "每笔订单（one row per order）"
    assert orders["row_count"] == 4000
    amount = next(c for c in orders["columns"] if c["name"] == "total_amount")
    assert amount == {
        "name": "total_amount",
        "type": "REAL",
        "description": "订单金额（元）",
        "synonyms": ["销售额", "金额", "营业额", "revenue", "sales"],
    }
    # 毛利 reads order_items and products, which this caller may not read.
    assert [m["name"] for m in data["metrics"]] == ["销售额", "客单价"]


async def test_refresh_is_for_admin_keys_and_reports_the_new_build_and_drift(settings, tmp_path):
    data_path = tmp_path / "data.db"
    with sqlite3.connect(data_path) as connection:
        connection.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, amount REAL)")
    settings = settings.model_copy(
        update={
            "data_database_url": f"sqlite:///{data_path}",
            "api_keys": SecretStr(f"{ADMIN_KEY}; {ALICE_KEY}=alice"),
        }
    )
    example = {"training_data_type": "sql", "question": "总金额", "sql": AMOUNT_SQL}
    async with running_service(settings, model=ScriptedChatModel()) as service:
        await agent_service_of(service.app).catalog.wait_ready()
        created = await service.http.post(
            "/api/v0/training_data/create", json={"data": example}, headers=bearer(ADMIN_KEY)
        )
        refused = await service.http.post("/api/v0/schema/refresh", headers=bearer(ALICE_KEY))
        with sqlite3.connect(data_path) as connection:
            connection.execute("CREATE TABLE refunds (id INTEGER PRIMARY KEY, reason TEXT)")
            connection.execute("ALTER TABLE orders DROP COLUMN amount")
        refreshed = await service.http.post("/api/v0/schema/refresh", headers=bearer(ADMIN_KEY))
        schema = await service.http.get("/api/v0/schema", headers=bearer(ALICE_KEY))
        health = await service.http.get("/health", headers=bearer(ADMIN_KEY))
        examples = await service.http.post(
            "/api/v0/training_data/query", json={}, headers=bearer(ADMIN_KEY)
        )

    assert refused.status_code == 403
    assert refused.json()["data"]["error_type"] == "FORBIDDEN"
    assert refreshed.status_code == 200
    assert created.status_code == 200
    assert refreshed.json()["data"]["tables"] == 2
    assert refreshed.json()["data"]["status"] == "ready"
    assert refreshed.json()["data"]["stale_examples"] == 1
    assert [t["name"] for t in schema.json()["data"]["tables"]] == ["orders", "refunds"]
    report = health.json()["data"]["schema"]
    assert report["enabled"] is True and report["tables"] == 2
    assert report["stale_examples"] == 1 and report["semantic_problems"] == []
    (record,) = examples.json()["data"]["records"]
    assert record["stale"] is True
    assert record["stale_reason"] == "gone: orders.amount not in the database"


async def test_the_schema_route_says_when_the_catalogue_is_off(settings):
    settings = settings.model_copy(update={"schema_catalog": False})
    async with running_service(settings, model=ScriptedChatModel()) as service:
        response = await service.http.get("/api/v0/schema")

    assert response.status_code == 404
    assert response.json()["data"]["error_type"] == "SCHEMA_CATALOG_OFF"
