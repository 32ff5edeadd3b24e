"""Over HTTP while PostgreSQL cannot be reached: the service is up, says why, answers 503."""

from __future__ import annotations

from config import Settings
from tests.support.live_server import running_service
from tests.support.postgres import unreachable_postgres_url
from tests.support.scripted_model import ScriptedChatModel


async def test_a_service_on_an_unreachable_postgres_answers_503_and_health_says_why(
    settings: Settings,
):
    url = unreachable_postgres_url()
    down = settings.model_copy(
        update={
            "data_database_url": url,
            "checkpoint_database_url": url,
            "postgres_connect_timeout": 0.5,
        }
    )
    async with running_service(down, model=ScriptedChatModel()) as service:
        status, body = await service.ask(question="每个地区的销售额是多少", user_id="wang1")
        health = await service.http.get("/health")

    assert status == 503 and body["code"] == 503 and body["success"] is False
    assert body["data"]["error_type"] == "CHECKPOINTER_UNAVAILABLE"
    assert body["data"]["can_retry"] is True
    assert "unavailable" in body["data"]["error"] and body["message"]
    assert health.status_code == 503
    report = health.json()["data"]
    assert report["status"] == "degraded" and report["agent"]["ready"] is True
    assert report["checkpointer"]["ok"] is False and report["data_database"]["ok"] is False
    for component in ("checkpointer", "data_database"):
        assert "refused" in report["problems"][component].lower()
