"""The old rating endpoints over real HTTP, on SQLite and on PostgreSQL storage."""

from __future__ import annotations

from typing import Any

from tests.support.live_server import ServiceClient, running_service
from tests.support.postgres import unreachable_postgres_url
from tests.support.scripted_model import ScriptedChatModel, answer

GOOD_SQL = "SELECT region, SUM(amount) FROM orders GROUP BY region"


async def add(service: ServiceClient, **fields: Any) -> int:
    body = {"question": "每个地区的销售额", "sql": GOOD_SQL, "is_thumb_up": True, "user_id": "wang"}
    response = await service.http.post("/api/v0/qa_feedback/add", json={**body, **fields})
    assert response.status_code == 200, response.text
    return response.json()["data"]["feedback_id"]


async def query(service: ServiceClient, **body: Any) -> tuple[int, dict[str, Any]]:
    response = await service.http.post("/api/v0/qa_feedback/query", json=body)
    return response.status_code, response.json()


async def test_an_added_rating_is_listed_with_its_thread_and_the_old_fields(memory_service):
    feedback_id = await add(memory_service, thread_id="wang:20250101000000001", run_id="r1")
    status, body = await query(memory_service, page=1, page_size=10)
    assert status == 200 and body["success"] is True
    (record,) = body["data"]["records"]
    assert record["id"] == feedback_id
    assert record["is_thumb_up"] is True and record["is_in_training_data"] is False
    assert record["thread_id"] == "wang:20250101000000001" and record["run_id"] == "r1"
    assert {"question", "sql", "user_id", "create_time", "update_time"} <= set(record)
    assert body["data"]["pagination"] == {
        "page": 1,
        "page_size": 10,
        "total": 1,
        "total_pages": 1,
        "has_next": False,
        "has_prev": False,
    }


async def test_query_filters_sorts_and_pages(memory_service):
    ids = [await add(memory_service, question=f"q{i}", is_thumb_up=i % 2 == 0) for i in range(5)]
    status, body = await query(memory_service, page=2, page_size=2, sort_by="id", sort_order="asc")
    assert status == 200
    assert [r["id"] for r in body["data"]["records"]] == ids[2:4]
    assert body["data"]["pagination"]["total_pages"] == 3
    assert body["data"]["pagination"]["has_next"] and body["data"]["pagination"]["has_prev"]
    _, down = await query(memory_service, is_thumb_up=False, sort_by="id", sort_order="ASC")
    assert [r["id"] for r in down["data"]["records"]] == [ids[1], ids[3]]
    _, future = await query(memory_service, create_time_start="2999-01-01")
    assert future["data"]["records"] == []
    _, today = await query(memory_service, create_time_end="2999-01-01", page_size=100)
    assert today["data"]["pagination"]["total"] == 5


async def test_bad_query_inputs_are_400(memory_service):
    for body in (
        {"page_size": 0},
        {"page_size": 101},
        {"page": 0},
        {"sort_by": "password"},
        {"sort_order": "sideways"},
    ):
        status, answer = await query(memory_service, **body)
        assert status == 400, body
        assert answer["data"]["error_type"] == "INVALID_REQUEST"
    response = await memory_service.http.post("/api/v0/qa_feedback/query", content=b"{bad")
    assert response.status_code == 400


async def test_adding_needs_question_sql_and_thumb_and_a_thread_of_the_same_user(memory_service):
    for body in (
        {"sql": GOOD_SQL, "is_thumb_up": True},
        {"question": "q", "is_thumb_up": True},
        {"question": "q", "sql": GOOD_SQL},
        {"question": "   ", "sql": GOOD_SQL, "is_thumb_up": True},
        {"question": "q", "sql": GOOD_SQL, "is_thumb_up": True, "user_id": "x" * 51},
    ):
        response = await memory_service.http.post("/api/v0/qa_feedback/add", json=body)
        assert response.status_code == 400, body
    response = await memory_service.http.post(
        "/api/v0/qa_feedback/add",
        json={
            "question": "q",
            "sql": GOOD_SQL,
            "is_thumb_up": True,
            "user_id": "wang",
            "thread_id": "li:20250101000000001",
        },
    )
    assert response.status_code == 400
    assert response.json()["data"]["error_type"] == "THREAD_OWNERSHIP_MISMATCH"


async def test_a_thumbs_down_keeps_its_reason_and_reads_it_back(memory_service):
    reason = "SQL 不对：少了退货的订单"
    feedback_id = await add(memory_service, is_thumb_up=False, reason=f"  {reason} ")
    legacy_id = await add(memory_service, question="没有理由的评价")  # the old body, no reason
    blank_id = await add(memory_service, question="空理由", reason="   ")
    _, body = await query(memory_service, sort_by="id", sort_order="asc")
    reasons = {record["id"]: record["reason"] for record in body["data"]["records"]}
    assert reasons == {feedback_id: reason, legacy_id: None, blank_id: None}
    changed = await memory_service.http.put(
        f"/api/v0/qa_feedback/update/{legacy_id}", json={"reason": "没回答问题"}
    )
    assert changed.status_code == 200 and changed.json()["data"]["updated_fields"] == ["reason"]
    _, body = await query(memory_service, sort_by="id", sort_order="asc")
    assert body["data"]["records"][1]["reason"] == "没回答问题"


async def test_a_reason_too_long_or_not_text_is_400_and_nothing_is_stored(memory_service):
    rating = {"question": "q", "sql": GOOD_SQL, "is_thumb_up": False, "user_id": "wang"}
    assert (await add(memory_service, **rating, reason="x" * 500)) > 0  # the limit itself
    for reason in ("x" * 501, 42, ["数据不对"], {"text": "x"}):
        response = await memory_service.http.post(
            "/api/v0/qa_feedback/add", json={**rating, "reason": reason}
        )
        assert response.status_code == 400, reason
        answer = response.json()
        assert answer["data"]["error_type"] == "INVALID_REQUEST"
        assert "reason" in answer["message"] or "reason" in str(answer["data"])
    _, body = await query(memory_service)
    assert body["data"]["pagination"]["total"] == 1


async def test_update_and_delete_change_the_rating_and_unknown_ids_are_404(memory_service):
    feedback_id = await add(memory_service)
    response = await memory_service.http.put(
        f"/api/v0/qa_feedback/update/{feedback_id}", json={"is_thumb_up": False, "sql": "SELECT 1"}
    )
    assert response.status_code == 200
    assert set(response.json()["data"]["updated_fields"]) == {"is_thumb_up", "sql"}
    _, body = await query(memory_service)
    assert body["data"]["records"][0]["is_thumb_up"] is False
    assert body["data"]["records"][0]["sql"] == "SELECT 1"
    empty = await memory_service.http.put(f"/api/v0/qa_feedback/update/{feedback_id}", json={})
    assert empty.status_code == 400
    for method, path in (
        ("PUT", "/api/v0/qa_feedback/update/999999"),
        ("DELETE", "/api/v0/qa_feedback/delete/999999"),
    ):
        missing = await memory_service.http.request(method, path, json={"sql": "SELECT 1"})
        assert missing.status_code == 404
        assert missing.json()["data"]["error_type"] == "FEEDBACK_NOT_FOUND"
    deleted = await memory_service.http.delete(f"/api/v0/qa_feedback/delete/{feedback_id}")
    assert deleted.status_code == 200 and deleted.json()["data"]["deleted_id"] == feedback_id
    _, body = await query(memory_service)
    assert body["data"]["records"] == []


async def test_a_user_cannot_delete_or_change_another_users_rating(memory_service):
    feedback_id = await add(memory_service, user_id="wang")
    refused = await memory_service.http.delete(
        f"/api/v0/qa_feedback/delete/{feedback_id}", params={"user_id": "li"}
    )
    assert refused.status_code == 403
    refused = await memory_service.http.put(
        f"/api/v0/qa_feedback/update/{feedback_id}", params={"user_id": "li"}, json={"sql": "x"}
    )
    assert refused.status_code == 403
    own = await memory_service.http.delete(
        f"/api/v0/qa_feedback/delete/{feedback_id}", params={"user_id": "wang"}
    )
    assert own.status_code == 200


async def test_stats_count_up_down_and_trained(memory_service):
    up = await add(memory_service)
    await add(memory_service, is_thumb_up=False)
    await add(memory_service, is_thumb_up=False)
    await memory_service.http.post(
        "/api/v0/qa_feedback/add_to_training", json={"feedback_ids": [up]}
    )
    data = (await memory_service.http.get("/api/v0/qa_feedback/stats")).json()["data"]
    assert data["total_feedback"] == 3
    assert data["positive_feedback"] == 1 and data["negative_feedback"] == 2
    assert data["trained_feedback"] == 1 and data["untrained_feedback"] == 2
    assert data["positive_rate"] == 33.33


async def test_add_to_training_makes_examples_and_known_wrong_ones_once(memory_service):
    up = await add(memory_service, question="sales by region")
    down = await add(memory_service, question="refunds", sql="SELECT 2", is_thumb_up=False)
    path = "/api/v0/qa_feedback/add_to_training"
    first = (await memory_service.http.post(path, json={"feedback_ids": [up, down]})).json()
    assert first["data"]["summary"]["positive_trained"] == 1
    assert first["data"]["summary"]["negative_trained"] == 1
    again = (await memory_service.http.post(path, json={"feedback_ids": [up, down]})).json()
    assert again["data"]["summary"]["already_trained"] == 2
    assert again["data"]["summary"]["positive_trained"] == 0
    stats = (await memory_service.http.get("/api/v0/training_data/stats")).json()["data"]
    assert stats["total_count"] == 2
    assert stats["type_breakdown"]["sql"] == 1 and stats["type_breakdown"]["error_sql"] == 1
    _, body = await query(memory_service, is_in_training_data=True)
    assert body["data"]["pagination"]["total"] == 2
    missing = await memory_service.http.post(path, json={"feedback_ids": [999999]})
    assert missing.status_code == 404
    empty = await memory_service.http.post(path, json={"feedback_ids": []})
    assert empty.status_code == 400


async def test_a_rated_write_is_not_moved_into_the_examples(memory_service):
    bad = await add(memory_service, sql="DROP TABLE orders")
    body = (
        await memory_service.http.post(
            "/api/v0/qa_feedback/add_to_training", json={"feedback_ids": [bad]}
        )
    ).json()
    assert body["data"]["summary"]["errors"] == 1
    stats = (await memory_service.http.get("/api/v0/training_data/stats")).json()["data"]
    assert stats["total_count"] == 0


async def test_health_reports_the_memory_and_its_database_kind(memory_service):
    data = (await memory_service.http.get("/health")).json()["data"]
    assert data["memory"]["ok"] is True and data["memory"]["in_prompt"] is True
    assert data["memory"]["kind"] in ("sqlite", "postgres")


async def test_an_unreachable_memory_database_leaves_the_agent_answering_and_the_endpoints_503(
    settings,
):
    broken = settings.model_copy(
        update={"memory_database_url": unreachable_postgres_url(), "postgres_connect_timeout": 1}
    )
    model = ScriptedChatModel(replies=[answer("ok")])
    async with running_service(broken, model=model) as service:
        status, body = await service.ask(question="sales by region")
        stats = await service.http.get("/api/v0/qa_feedback/stats")
        health = (await service.http.get("/health")).json()
    assert status == 200 and body["data"]["react_agent_meta"]["examples_used"] == []
    assert stats.status_code == 503
    assert stats.json()["data"]["error_type"] == "MEMORY_UNAVAILABLE"
    assert health["data"]["memory"]["ok"] is False
