"""The old training-data endpoints over real HTTP, on SQLite and on PostgreSQL storage."""

from __future__ import annotations

from typing import Any

from tests.support.live_server import ServiceClient
from tests.support.scripted_model import answer, prompt_text

SQL_ITEM = {
    "training_data_type": "sql",
    "question": "每个地区的销售额",
    "sql": "SELECT region, SUM(amount) FROM orders GROUP BY region",
}


async def create(service: ServiceClient, data: Any) -> tuple[int, dict[str, Any]]:
    response = await service.http.post("/api/v0/training_data/create", json={"data": data})
    return response.status_code, response.json()


async def test_one_item_of_each_type_is_stored_and_counted(memory_service):
    items = [
        SQL_ITEM,
        {"training_data_type": "error_sql", "question": "refunds", "sql": "SELECT 1"},
        {"training_data_type": "documentation", "content": "GMV excludes refunds"},
        {"training_data_type": "ddl", "ddl": "CREATE TABLE orders (id INTEGER)"},
    ]
    for item in items:
        status, body = await create(memory_service, item)
        assert status == 200, body
        assert body["data"]["successful_count"] == 1
        assert body["data"]["training_id"].endswith(item["training_data_type"])
    stats = (await memory_service.http.get("/api/v0/training_data/stats")).json()["data"]
    assert stats["total_count"] == 4
    assert stats["type_breakdown"] == {"sql": 1, "error_sql": 1, "documentation": 1, "ddl": 1}


async def test_a_batch_reports_each_item_and_a_drop_table_pair_fails_alone(memory_service):
    drop = {"training_data_type": "sql", "question": "clean up", "sql": "DROP TABLE orders"}
    status, body = await create(memory_service, [SQL_ITEM, drop, {"training_data_type": "ddl"}])
    assert status == 200
    assert body["data"]["successful_count"] == 1 and body["data"]["failed_count"] == 2
    assert [r["success"] for r in body["data"]["results"]] == [True, False, False]
    assert body["data"]["results"][1]["error_type"] == "EXAMPLE_SQL_REFUSED"


async def test_a_single_drop_table_pair_is_refused_with_a_clear_400(memory_service):
    status, body = await create(
        memory_service, {"training_data_type": "sql", "question": "q", "sql": "DROP TABLE orders"}
    )
    assert status == 400
    assert body["data"]["error_type"] == "EXAMPLE_SQL_REFUSED"
    assert "refused" in body["data"]["error"]
    stats = (await memory_service.http.get("/api/v0/training_data/stats")).json()["data"]
    assert stats["total_count"] == 0


async def test_bad_create_inputs_are_400(memory_service):
    for data in (
        [SQL_ITEM] * 51,
        [],
        {"training_data_type": "poem", "content": "x"},
        {"training_data_type": "sql", "question": "no sql"},
        {"training_data_type": "documentation", "content": "  "},
    ):
        status, _ = await create(memory_service, data)
        assert status == 400, data
    status, body = await create(memory_service, [SQL_ITEM] * 50)
    assert status == 200 and body["data"]["successful_count"] == 50


async def test_query_pages_filters_by_type_and_searches_by_keyword(memory_service):
    await create(
        memory_service,
        [SQL_ITEM, {"training_data_type": "documentation", "content": "GMV excludes refunds"}],
    )
    path = "/api/v0/training_data/query"
    body = (await memory_service.http.post(path, json={"page": 1, "page_size": 1})).json()
    assert len(body["data"]["records"]) == 1
    assert body["data"]["pagination"]["total"] == 2 and body["data"]["pagination"]["has_next"]
    docs = await memory_service.http.post(path, json={"training_data_type": "documentation"})
    assert [r["content"] for r in docs.json()["data"]["records"]] == ["GMV excludes refunds"]
    found = await memory_service.http.post(path, json={"search_keyword": "销售额"})
    assert [r["question"] for r in found.json()["data"]["records"]] == ["每个地区的销售额"]
    for bad in ({"page_size": 0}, {"search_keyword": "x" * 101}, {"training_data_type": "x"}):
        assert (await memory_service.http.post(path, json=bad)).status_code == 400, bad


async def test_update_replaces_fields_checks_the_sql_and_404s_an_unknown_id(memory_service):
    _, body = await create(memory_service, SQL_ITEM)
    item_id = body["data"]["training_id"]
    path = "/api/v0/training_data/update"
    changed = await memory_service.http.post(
        path, json={"id": item_id, "training_data_type": "sql", "question": "q2", "sql": "SELECT 2"}
    )
    assert changed.status_code == 200
    records = (await memory_service.http.post("/api/v0/training_data/query", json={})).json()[
        "data"
    ]["records"]
    assert records[0]["question"] == "q2" and records[0]["sql"] == "SELECT 2"
    refused = await memory_service.http.post(
        path,
        json={
            "id": item_id,
            "training_data_type": "sql",
            "question": "q",
            "sql": "DELETE FROM orders",
        },
    )
    assert refused.status_code == 400
    missing = await memory_service.http.post(
        path, json={"id": "nope", "training_data_type": "documentation", "content": "x"}
    )
    assert missing.status_code == 404
    assert missing.json()["data"]["error_type"] == "TRAINING_DATA_NOT_FOUND"


async def test_delete_needs_confirm_and_reports_unknown_ids(memory_service):
    _, body = await create(memory_service, SQL_ITEM)
    item_id = body["data"]["training_id"]
    path = "/api/v0/training_data/delete"
    unconfirmed = await memory_service.http.post(path, json={"ids": [item_id]})
    assert unconfirmed.status_code == 400
    assert unconfirmed.json()["data"]["error_type"] == "CONFIRM_REQUIRED"
    deleted = await memory_service.http.post(path, json={"ids": [item_id, "nope"], "confirm": True})
    assert deleted.status_code == 200
    assert deleted.json()["data"]["deleted_ids"] == [item_id]
    assert deleted.json()["data"]["failed_ids"] == ["nope"]
    again = await memory_service.http.post(path, json={"ids": [item_id], "confirm": True})
    assert again.status_code == 404


async def test_a_stored_example_reaches_the_models_prompt_over_http(memory_service):
    _, body = await create(memory_service, SQL_ITEM)
    item_id = body["data"]["training_id"]
    scripted = memory_service.scripted_model
    scripted.replies.append(answer("好的"))
    status, answered = await memory_service.ask(question="各地区销售额是多少", user_id="wang")
    assert status == 200
    assert answered["data"]["react_agent_meta"]["examples_used"] == [item_id]
    assert item_id in prompt_text(scripted.seen[0])
