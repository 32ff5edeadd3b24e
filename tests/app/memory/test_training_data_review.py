"""Reviewing examples over real HTTP: status shown on every record, set by the update endpoint."""

from __future__ import annotations

from typing import Any

from tests.support.live_server import ServiceClient


async def post(service: ServiceClient, path: str, body: dict) -> tuple[int, dict[str, Any]]:
    response = await service.http.post(path, json=body)
    return response.status_code, response.json()


async def records(service: ServiceClient, **filters: Any) -> list[dict[str, Any]]:
    _, body = await post(service, "/api/v0/training_data/query", filters)
    return body["data"]["records"]


async def test_feedback_proposes_an_admin_verifies_or_rejects(memory_service):
    _, added = await post(
        memory_service,
        "/api/v0/qa_feedback/add",
        {
            "question": "门店有多少家",
            "sql": "SELECT COUNT(*) AS n FROM stores",
            "is_thumb_up": True,
            "user_id": "wang1",
        },
    )
    await post(
        memory_service,
        "/api/v0/qa_feedback/add_to_training",
        {"feedback_ids": [added["data"]["feedback_id"]]},
    )
    await post(
        memory_service,
        "/api/v0/training_data/create",
        {"data": {"training_data_type": "documentation", "content": "GMV excludes refunds"}},
    )
    found = {r["training_data_type"]: r for r in await records(memory_service)}
    assert found["documentation"]["status"] == "verified"  # written by an admin
    proposal = found["sql"]
    assert proposal["status"] == "proposed"
    assert proposal["check_result"]["rows"] == [{"n": 32}]
    assert [r["id"] for r in await records(memory_service, status="proposed")] == [proposal["id"]]

    status, body = await post(
        memory_service, "/api/v0/training_data/update", {"id": proposal["id"], "status": "verified"}
    )
    assert status == 200 and body["data"]["status"] == "verified"
    status, body = await post(
        memory_service, "/api/v0/training_data/update", {"id": proposal["id"], "status": "rejected"}
    )
    assert body["data"] == {
        "updated_id": proposal["id"],
        "training_data_type": "error_sql",
        "status": "rejected",
    }
    stats = (await memory_service.http.get("/api/v0/training_data/stats")).json()["data"]
    assert stats["status_breakdown"] == {"proposed": 0, "verified": 1, "rejected": 1}


async def test_bad_reviews_are_refused(memory_service):
    _, created = await post(
        memory_service,
        "/api/v0/training_data/create",
        {"data": {"training_data_type": "documentation", "content": "a note"}},
    )
    item_id = created["data"]["training_id"]
    status, body = await post(
        memory_service, "/api/v0/training_data/update", {"id": item_id, "status": "rejected"}
    )
    assert (status, body["data"]["error_type"]) == (400, "CANNOT_REJECT")
    status, _ = await post(
        memory_service, "/api/v0/training_data/update", {"id": item_id, "status": "maybe"}
    )
    assert status == 400
    status, _ = await post(memory_service, "/api/v0/training_data/update", {"id": item_id})
    assert status == 400
    status, body = await post(
        memory_service, "/api/v0/training_data/update", {"id": "nope", "status": "verified"}
    )
    assert (status, body["data"]["error_type"]) == (404, "TRAINING_DATA_NOT_FOUND")
