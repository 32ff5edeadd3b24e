"""The legacy sync endpoint over real HTTP: validation, the envelope, the final data."""

from __future__ import annotations

import re

import pytest
from pydantic import SecretStr

from app.http.app_state import agent_service_of
from config.legacy_messages import legacy_text
from tests.conftest import SAMPLE_QUESTION
from tests.support.checkpoint_reads import counted_reads
from tests.support.live_server import running_service
from tests.support.scripted_model import answer, call_tool

SYNC_PATH = "/api/v0/ask_react_agent"
REGION_SQL = (
    "SELECT r.region_name AS region, ROUND(SUM(o.total_amount), 2) AS sales FROM orders o "
    "JOIN stores s ON s.store_id = o.store_id JOIN regions r ON r.region_id = s.region_id "
    "GROUP BY r.region_name ORDER BY sales DESC"
)


def assert_error(status: int, body: dict, code: int, error_type: str) -> None:
    assert status == code
    assert body["code"] == code and body["success"] is False
    assert body["data"]["error_type"] == error_type
    assert isinstance(body["data"]["can_retry"], bool)
    assert body["message"] and body["data"]["error"]
    assert not re.search(r"\{\w+\}", body["message"])  # every placeholder was filled
    # The legacy top-level string: the detail, or the replaced service's text in zh-CN.
    if legacy_text(error_type) is None or body["message"].isascii():
        assert body["error"] == body["data"]["error"]
    else:
        assert body["error"] and not body["error"].isascii()


async def test_question_returns_answer_sql_and_rows_in_the_legacy_envelope(service, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("华东地区销售额最高。")]

    status, body = await service.ask(question=SAMPLE_QUESTION, user_id="wang1")

    assert status == 200
    assert body["code"] == 200 and body["success"] is True and body["message"] == "处理成功"
    data = body["data"]
    assert data["response"] == "华东地区销售额最高。"
    assert data["user_id"] == "wang1"
    assert re.fullmatch(r"wang1:\d{17}", data["conversation_id"])
    assert data["sql"] == REGION_SQL
    records = data["records"]
    assert records["columns"] == ["region", "sales"]
    assert len(records["rows"]) == 7 and records["total_row_count"] == 7
    assert records["is_limited"] is False
    assert all(isinstance(row["sales"], float) for row in records["rows"])
    meta = data["react_agent_meta"]
    assert meta["thread_id"] == data["conversation_id"]
    assert meta["conversation_rounds"] == 1 and meta["sql_execution_count"] == 1
    assert meta["tools_used"] == ["run_sql"]
    assert meta["execution_path"][:2] == ["trim_messages", "agent"]
    assert meta["execution_path"][-1] == "format_final_response"
    assert meta["total_messages"] == 4 and meta["agent_version"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}", data["timestamp"])


async def test_answer_without_sql_has_no_sql_or_records(service, model):
    model.replies = [answer("你好")]
    status, body = await service.ask(question="你好")
    assert status == 200
    assert "sql" not in body["data"] and "records" not in body["data"]
    assert body["data"]["user_id"] == "guest"
    assert body["data"]["conversation_id"].startswith("guest:")


async def test_conversation_id_continues_the_conversation(service, model):
    model.replies = [answer("first answer"), answer("second answer")]
    _, first = await service.ask(question="first question", user_id="li")
    conversation_id = first["data"]["conversation_id"]

    status, second = await service.ask(question="second", conversation_id=conversation_id)

    assert status == 200
    assert second["data"]["conversation_id"] == conversation_id
    assert second["data"]["user_id"] == "li"  # taken from the thread id
    assert second["data"]["react_agent_meta"]["conversation_rounds"] == 2
    assert "first question" in [m.content for m in model.seen[1]]


async def test_only_a_named_conversation_is_read_before_its_question_runs(service, model):
    model.replies = [answer("first answer"), answer("second answer")]
    saver = agent_service_of(service.app).runner.graph.checkpointer
    with counted_reads(saver) as new_reads:
        _, first = await service.ask(question="first question", user_id="li")
    thread_id = first["data"]["conversation_id"]
    with counted_reads(saver) as named_reads:
        _, second = await service.ask(question="second", conversation_id=thread_id)

    # The id minted for the first question had no checkpoint to read: only the graph's
    # own read as it starts; the named one is read by the runner first (its history).
    assert new_reads.count(thread_id) == 1
    assert named_reads.count(thread_id) == 2
    assert second["data"]["react_agent_meta"]["conversation_rounds"] == 2


async def test_conversation_survives_a_restart_of_the_service(settings, model):
    model.replies = [answer("remembered"), answer("still here")]
    async with running_service(settings, model=model) as first_life:
        _, body = await first_life.ask(question="remember 42", user_id="zhao")
    thread_id = body["data"]["conversation_id"]

    async with running_service(settings, model=model) as second_life:
        status, body = await second_life.ask(question="what number?", thread_id=thread_id)

    assert status == 200 and body["data"]["react_agent_meta"]["conversation_rounds"] == 2
    assert "remember 42" in [m.content for m in model.seen[1]]


@pytest.mark.parametrize(
    ("body", "error_type"),
    [
        ({"question": ""}, "QUESTION_REQUIRED"),
        ({"question": "   \n "}, "QUESTION_REQUIRED"),
        ({"question": "x" * 2001}, "QUESTION_TOO_LONG"),
        ({"question": "q", "user_id": "u" * 51}, "USER_ID_TOO_LONG"),
        ({"question": "q", "user_id": "a:b"}, "USER_ID_INVALID"),
        ({"question": "q", "thread_id": "no-colon"}, "THREAD_ID_INVALID"),
        ({"question": "q", "thread_id": "wang1:"}, "THREAD_ID_INVALID"),
        ({"question": "q", "thread_id": "x" * 60 + ":1"}, "USER_ID_TOO_LONG"),
        ({"question": 42}, "INVALID_REQUEST"),
        ({"question": "q", "user_id": ["wang1"]}, "INVALID_REQUEST"),
        ({}, "EMPTY_BODY"),
        ({"user_id": "wang1"}, "INVALID_REQUEST"),
        ({"question": "q", "thread_id": "a:1 2"}, "THREAD_ID_INVALID"),
    ],
)
async def test_invalid_requests_get_400_with_a_clear_error(service, model, body, error_type):
    response = await service.http.post(SYNC_PATH, json=body)
    assert_error(response.status_code, response.json(), 400, error_type)
    assert model.seen == []  # nothing reached the model


async def test_question_of_exactly_2000_characters_is_accepted(service, model):
    model.replies = [answer("ok")]
    status, _ = await service.ask(question=" " + "问" * 2000 + " ")
    assert status == 200


async def test_thread_of_another_user_is_refused_with_a_message_naming_both(service):
    status, body = await service.ask(
        question="q", user_id="wang1", thread_id="li4:20250101000000000"
    )
    assert_error(status, body, 400, "THREAD_OWNERSHIP_MISMATCH")
    # zh-CN: the replaced service's `message`; its `error` names both.
    assert body["message"] == "参数验证失败"
    assert "wang1" in body["error"] and "li4:20250101000000000" in body["error"]
    _, english = await service.ask(
        question="q", user_id="wang1", thread_id="li4:20250101000000000", lang="en-US"
    )
    assert "wang1" in english["message"] and "li4:20250101000000000" in english["message"]


async def test_english_messages_follow_lang_and_accept_language(service):
    _, body = await service.ask(question="", lang="en-US")
    assert body["message"] == "The question must not be empty"
    response = await service.http.post(
        SYNC_PATH, json={"question": ""}, headers={"Accept-Language": "en-GB,en;q=0.9"}
    )
    assert response.json()["message"] == "The question must not be empty"


@pytest.mark.parametrize(
    ("content", "content_type", "error_type"),
    [
        (b"{not json", "application/json", "INVALID_JSON"),
        (b"\xff\xfe\x00", "application/json", "INVALID_JSON"),
        (b'["question"]', "application/json", "INVALID_REQUEST"),
        (b'"just a string"', "application/json", "INVALID_REQUEST"),
        (b"question=hi", "application/x-www-form-urlencoded", "UNSUPPORTED_CONTENT_TYPE"),
        (b'{"question": "hi"}', "text/plain", "UNSUPPORTED_CONTENT_TYPE"),
        (b"[" * 100_00 + b"]" * 100_00, "application/json", "INVALID_JSON"),
    ],
)
async def test_bad_bodies_get_400_never_500(service, content, content_type, error_type):
    response = await service.http.post(
        SYNC_PATH, content=content, headers={"Content-Type": content_type}
    )
    assert response.headers["content-type"].startswith("application/json")
    assert_error(response.status_code, response.json(), 400, error_type)


async def test_oversized_body_gets_413_in_the_envelope(service):
    response = await service.http.post(
        SYNC_PATH,
        content=b'{"question": "' + b"x" * 200_000 + b'"}',
        headers={"Content-Type": "application/json"},
    )
    body = response.json()
    assert response.status_code == 413 and body["data"]["error_type"] == "PAYLOAD_TOO_LARGE"


async def test_unknown_route_and_wrong_method_answer_in_the_envelope(service):
    missing = await service.http.get("/api/v0/nope")
    assert missing.status_code == 404 and missing.json()["data"]["error_type"] == "NOT_FOUND"
    wrong = await service.http.get(SYNC_PATH)
    assert wrong.status_code == 405
    assert wrong.json()["data"]["error_type"] == "METHOD_NOT_ALLOWED"


async def test_model_failure_is_a_500_envelope_and_the_thread_stays_usable(service, model):
    model.replies = [RuntimeError("model exploded"), answer("recovered")]
    status, body = await service.ask(question="q", user_id="wu")
    assert_error(status, body, 500, "AGENT_FAILED")
    thread_id = body["data"]["conversation_id"]

    status, body = await service.ask(question="again", thread_id=thread_id)
    assert status == 200 and body["data"]["response"] == "recovered"


async def test_without_an_llm_the_service_starts_and_answers_503_naming_the_settings(settings):
    async with running_service(settings) as service:
        status, body = await service.ask(question=SAMPLE_QUESTION)
        health = await service.http.get("/health")

    assert_error(status, body, 503, "LLM_NOT_CONFIGURED")
    assert body["data"]["can_retry"] is False  # a setting to change: asking again cannot help
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_MODEL"):
        assert name in body["message"] and name in body["data"]["error"]
    assert health.status_code == 503
    report = health.json()["data"]
    assert report["llm"]["configured"] is False and report["agent"]["ready"] is False
    assert report["data_database"]["ok"] is True and report["checkpointer"]["ok"] is True


async def test_health_reports_components_and_never_the_key(settings, model):
    secret = "sk-test-do-not-leak-123"
    configured = settings.model_copy(
        update={"openai_api_key": SecretStr(secret), "llm_model": "m1"}
    )
    async with running_service(configured, model=model) as service:
        response = await service.http.get("/health")
    assert response.status_code == 200
    assert secret not in response.text
    data = response.json()["data"]
    assert data["status"] == "ok" and data["agent"]["ready"] is True
    assert data["llm"] == {
        "configured": True,
        "model": "m1",
        "base_url": "https://api.openai.com/v1",
        "api_key_set": True,
        "timeout": configured.llm_timeout,
    }
    assert data["checkpointer"] == {"kind": "sqlite", "ok": True}
    assert "orders" in data["data_database"]["tables"]
