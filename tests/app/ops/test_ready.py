"""GET /ready over real HTTP: each part checked now, the model from its real calls, 503 if down."""

from __future__ import annotations

from config import Settings
from tests.support.live_server import running_service
from tests.support.openai_stub import OpenAIStub, Reply
from tests.support.postgres import unreachable_postgres_url
from tests.support.scripted_model import ScriptedChatModel

READY_PATHS = ("/ready", "/api/v0/ready")


async def test_ready_is_200_with_every_part_and_the_model_unknown_before_any_call(service):
    for path in READY_PATHS:
        response = await service.http.get(path, headers={"Accept-Language": "en-US"})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["code"] == 200 and body["success"] is True
        assert body["message"] == "Ready to answer questions"
        parts = body["data"]["parts"]
        assert body["data"]["ready"] is True
        for name in ("agent", "data_database", "checkpointer"):
            assert parts[name] == {"ok": True, "required": True}, name
        assert parts["memory"] == {"ok": True, "required": False}
        assert parts["model"] == {
            "ok": None,
            "last_call": None,
            "calls": 0,
            "failures": 0,
            "required": False,
        }


async def test_ready_reports_the_models_last_real_call_and_makes_none_itself(
    stub_settings: Settings, stub: OpenAIStub
):
    async with running_service(stub_settings) as service:
        status, _ = await service.ask(question="每个地区的销售额是多少", user_id="wang1")
        assert status == 200
        calls_before = len(stub.requests)
        model = (await service.http.get("/ready")).json()["data"]["parts"]["model"]
        assert len(stub.requests) == calls_before  # asking /ready cost no model call
        assert model["ok"] is True and model["last_call"]["ok"] is True
        assert model["calls"] == calls_before and model["failures"] == 0

        stub.script(Reply(status=500))
        status, body = await service.ask(question="再问一次", user_id="wang1")
        assert status == 503 and body["data"]["error_type"] == "LLM_UNAVAILABLE"
        response = await service.http.get("/ready")
        # The model is reported, not required: one failed call takes no instance out.
        assert response.status_code == 200
        model = response.json()["data"]["parts"]["model"]
        assert model["ok"] is False and model["failures"] == 1
        assert model["last_call"]["ok"] is False
        assert model["last_call"]["error_type"] == "LLM_UNAVAILABLE"
        assert "500" in model["last_call"]["error"]

        stub.script(Reply(status=400))
        status, _ = await service.ask(question="第三个问题", user_id="wang1")
        assert status == 503
        model = (await service.http.get("/ready")).json()["data"]["parts"]["model"]
        # A 400 is the server answering: reachable, though that call failed.
        assert model["ok"] is True and model["last_call"]["error_type"] == "LLM_BAD_REQUEST"


async def test_ready_is_503_in_the_envelope_while_a_database_is_down(settings: Settings):
    url = unreachable_postgres_url()
    down = settings.model_copy(
        update={
            "data_database_url": url,
            "checkpoint_database_url": url,
            "postgres_connect_timeout": 0.5,
        }
    )
    async with running_service(down, model=ScriptedChatModel()) as service:
        response = await service.http.get("/api/v0/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["code"] == 503 and body["success"] is False and body["message"]
    assert body["data"]["error_type"] == "DATABASE_UNAVAILABLE"
    assert body["data"]["can_retry"] is True
    parts = body["data"]["parts"]
    assert body["data"]["ready"] is False
    assert parts["data_database"]["ok"] is False and parts["checkpointer"]["ok"] is False
    assert "refused" in parts["checkpointer"]["error"].lower()


async def test_ready_is_503_without_an_llm_and_names_the_settings(settings: Settings):
    async with running_service(settings) as service:
        response = await service.http.get("/ready")
    assert response.status_code == 503
    data = response.json()["data"]
    assert data["error_type"] == "LLM_NOT_CONFIGURED" and "OPENAI_BASE_URL" in data["error"]
    assert data["parts"]["agent"]["ok"] is False
    assert data["parts"]["data_database"]["ok"] is True


async def test_a_memory_that_cannot_be_read_is_reported_but_not_required(settings: Settings):
    no_memory = settings.model_copy(
        update={"memory_database_url": unreachable_postgres_url(), "postgres_connect_timeout": 0.5}
    )
    async with running_service(no_memory, model=ScriptedChatModel()) as service:
        response = await service.http.get("/ready")
    assert response.status_code == 200, response.text
    memory = response.json()["data"]["parts"]["memory"]
    assert memory["ok"] is False and memory["required"] is False
    assert memory["error_type"] == "MEMORY_UNAVAILABLE"
