"""The feedback and training-data endpoints' remaining edges, as the old clients meet them."""

from __future__ import annotations

from pydantic import SecretStr

from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer

GOOD_SQL = "SELECT region, SUM(amount) FROM orders GROUP BY region"
ADMIN_KEY = "admin-key-0123456789"
USER_KEY = "wang-key-0123456789"


async def test_id_lists_are_1_to_1000_and_a_partly_unknown_list_names_the_missing(memory_service):
    added = await memory_service.http.post(
        "/api/v0/qa_feedback/add",
        json={"question": "每个地区的销售额", "sql": GOOD_SQL, "is_thumb_up": True},
    )
    feedback_id = added.json()["data"]["feedback_id"]
    path = "/api/v0/qa_feedback/add_to_training"
    too_many = await memory_service.http.post(path, json={"feedback_ids": list(range(1, 1002))})
    assert too_many.status_code == 400
    assert too_many.json()["data"]["error_type"] == "INVALID_REQUEST"
    mixed = await memory_service.http.post(path, json={"feedback_ids": [feedback_id, 999999]})
    assert mixed.status_code == 200
    assert mixed.json()["data"]["not_found_ids"] == [999999]
    assert mixed.json()["data"]["successfully_trained_ids"] == [feedback_id]
    delete = "/api/v0/training_data/delete"
    for bad in ({"ids": [], "confirm": True}, {"ids": ["x"] * 1001, "confirm": True}):
        assert (await memory_service.http.post(delete, json=bad)).status_code == 400


async def test_training_data_bad_update_query_and_stats_shape(memory_service):
    created = await memory_service.http.post(
        "/api/v0/training_data/create",
        json={"data": {"training_data_type": "documentation", "content": "GMV excludes refunds"}},
    )
    item_id = created.json()["data"]["training_id"]
    update = "/api/v0/training_data/update"
    for bad in (
        {"id": item_id, "training_data_type": "sql", "question": "q"},  # a pair needs its SQL
        {"id": item_id, "training_data_type": "poem", "content": "x"},
        {"training_data_type": "documentation", "content": "x"},  # no id
        {"id": item_id, "training_data_type": "sql", "question": "q", "sql": "DROP TABLE orders"},
    ):
        response = await memory_service.http.post(update, json=bad)
        assert response.status_code == 400, bad
    query = "/api/v0/training_data/query"
    for bad in ({"sort_by": "password"}, {"sort_order": "sideways"}, {"page": 0}):
        assert (await memory_service.http.post(query, json=bad)).status_code == 400, bad
    stats = (await memory_service.http.get("/api/v0/training_data/stats")).json()["data"]
    assert stats["total_count"] == 1 and stats["type_breakdown"]["documentation"] == 1
    assert stats["type_percentages"]["documentation"] == 100.0
    assert stats["last_updated"]


async def test_with_api_keys_only_an_admin_key_moves_a_rating_into_the_memory(settings):
    keyed = settings.model_copy(update={"api_keys": SecretStr(f"{ADMIN_KEY}; {USER_KEY}=wang")})
    async with running_service(keyed, model=ScriptedChatModel(default=answer("ok"))) as service:
        as_wang = {"Authorization": f"Bearer {USER_KEY}"}
        as_admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
        added = await service.http.post(
            "/api/v0/qa_feedback/add",
            headers=as_wang,
            json={"question": "每个地区的销售额", "sql": GOOD_SQL, "is_thumb_up": True},
        )
        assert added.status_code == 200, added.text
        own = {"feedback_ids": [added.json()["data"]["feedback_id"]]}
        path = "/api/v0/qa_feedback/add_to_training"
        refused = await service.http.post(path, headers=as_wang, json=own)
        assert refused.status_code == 403
        stats = "/api/v0/training_data/stats"
        assert (await service.http.get(stats, headers=as_admin)).json()["data"]["total_count"] == 0
        moved = await service.http.post(path, headers=as_admin, json=own)
        assert moved.json()["data"]["summary"]["positive_trained"] == 1
        assert (await service.http.get(stats, headers=as_admin)).json()["data"]["total_count"] == 1
