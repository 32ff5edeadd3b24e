"""Clients of the replaced service, over real HTTP: its path, its error texts, its id rules."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.support.live_server import running_service
from tests.support.scripted_model import answer
from tests.support.sse import collect_stream, open_stream

SYNC_PATH = "/api/v0/ask_react_agent"
CHAT_PATH = "/api/chat"
JSON_HEADERS = {"Content-Type": "application/json"}
WARNING = '299 - "conversation_id ignored: thread_id was also sent"'
THREAD = "wang1:20250101000000001"
OTHER_THREAD = "li4:20250101000000002"


# ------------------------------------------------------------------ POST /api/chat


async def test_api_chat_answers_like_the_sync_ask(service, model):
    model.replies = [answer("共有 32 家门店。"), answer("共有 32 家门店。")]
    chat = await service.http.post(CHAT_PATH, json={"question": "有几家门店", "user_id": "wang1"})
    ask = await service.http.post(SYNC_PATH, json={"question": "有几家门店", "user_id": "wang1"})
    assert chat.status_code == ask.status_code == 200
    chat_body, ask_body = chat.json(), ask.json()
    assert chat_body["success"] is True and chat_body["message"] == ask_body["message"]
    assert chat_body["data"]["response"] == "共有 32 家门店。"
    assert chat_body["data"].keys() == ask_body["data"].keys()
    assert chat_body["data"]["conversation_id"].startswith("wang1:")


async def test_api_chat_validates_like_the_sync_ask(service, model):
    chat = await service.http.post(CHAT_PATH, json={"question": ""})
    ask = await service.http.post(SYNC_PATH, json={"question": ""})
    assert chat.status_code == ask.status_code == 400
    for body in (chat.json(), ask.json()):
        assert body["message"] == "参数验证失败" and body["error"] == "问题不能为空"
    assert model.seen == []


async def test_api_chat_is_deprecated_in_the_openapi_document(service):
    paths = (await service.http.get("/openapi.json")).json()["paths"]
    assert paths[CHAT_PATH]["post"]["deprecated"] is True
    assert "deprecated" not in paths[SYNC_PATH]["post"]


# ------------------------------------------------------------------ the old error texts


@pytest.mark.parametrize("path", [SYNC_PATH, CHAT_PATH])
@pytest.mark.parametrize(
    ("content", "message", "error", "error_type"),
    [
        (
            b'{"question": "q",}',
            "请求格式错误",
            "无效的JSON格式，请检查请求体中是否存在语法错误（如多余的逗号、引号不匹配等）",
            "INVALID_JSON",
        ),
        (b"", "请求参数错误", "请求体不能为空", "EMPTY_BODY"),
        (b"{}", "请求参数错误", "请求体不能为空", "EMPTY_BODY"),
        (b'{"question": "  "}', "参数验证失败", "问题不能为空", "QUESTION_REQUIRED"),
        (
            ('{"question": "' + "问" * 2001 + '"}').encode(),
            "参数验证失败",
            "问题长度不能超过2000字符",
            "QUESTION_TOO_LONG",
        ),
        (
            ('{"question": "q", "user_id": "' + "u" * 51 + '"}').encode(),
            "参数验证失败",
            "用户ID长度不能超过50字符",
            "USER_ID_TOO_LONG",
        ),
        (
            b'{"question": "q", "thread_id": "wang1-20250101"}',
            "参数验证失败",
            "会话ID格式无效，期望格式为 user_id:timestamp",
            "THREAD_ID_INVALID",
        ),
        (
            b'{"question": "q", "user_id": "wang1", "thread_id": "li4:20250101000000002"}',
            "参数验证失败",
            "会话归属验证失败：会话ID [li4:20250101000000002] 不属于当前用户 [wang1]",
            "THREAD_OWNERSHIP_MISMATCH",
        ),
        (
            ('{"question": "", "user_id": "' + "u" * 51 + '"}').encode(),
            "参数验证失败",
            "问题不能为空; 用户ID长度不能超过50字符",
            "QUESTION_REQUIRED",
        ),
    ],
    ids=[
        "bad_json",
        "empty_body",
        "empty_object",
        "empty_question",
        "long_question",
        "long_user_id",
        "thread_id_without_colon",
        "thread_of_another_user",
        "two_faults",
    ],
)
async def test_faults_carry_the_old_message_and_error_in_chinese(
    service, model, path, content, message, error, error_type
):
    response = await service.http.post(path, content=content, headers=JSON_HEADERS)
    body = response.json()
    assert response.status_code == 400 and body["code"] == 400 and body["success"] is False
    assert body["message"] == message
    assert body["error"] == error
    assert body["data"]["error_type"] == error_type
    assert body["data"]["error"].isascii()  # the English detail stays in data
    assert model.seen == []


async def test_what_old_clients_match_on_is_in_the_error(service):
    checks = [
        ({"question": "q", "user_id": "wang1", "thread_id": OTHER_THREAD}, "会话归属验证失败"),
        ({"question": "q", "thread_id": "nocolon"}, "会话ID格式无效"),
    ]
    for payload, needle in checks:
        body = (await service.http.post(SYNC_PATH, json=payload)).json()
        assert needle in body["error"]
    bad_json = await service.http.post(SYNC_PATH, content=b"{,}", headers=JSON_HEADERS)
    assert "JSON格式" in bad_json.json()["error"]


async def test_english_keeps_english_error_and_message(service):
    payload = {"question": "q", "user_id": "wang1", "thread_id": OTHER_THREAD, "lang": "en-US"}
    response = await service.http.post(SYNC_PATH, json=payload)
    body = response.json()
    assert response.status_code == 400
    assert body["error"] == body["data"]["error"]
    assert body["message"] == f"Conversation {OTHER_THREAD} does not belong to user wang1"
    english = await service.http.post(SYNC_PATH, json={"question": "", "lang": "en-US"})
    assert english.json()["error"] == "question is empty"
    assert english.json()["message"] == "The question must not be empty"


async def test_the_stream_keeps_its_own_messages(service):
    events = await collect_stream(
        service.http, json={"question": "q", "user_id": "wang1", "thread_id": OTHER_THREAD}
    )
    error = events[0].envelope
    assert error["data"]["error_type"] == "THREAD_OWNERSHIP_MISMATCH" and "error" not in error
    assert "wang1" in error["message"] and OTHER_THREAD in error["message"]


# ------------------------------------------------------------------ thread_id wins


async def test_thread_id_wins_over_conversation_id_and_the_answer_says_so(service, model):
    model.replies = [answer("ok")]
    response = await service.http.post(
        SYNC_PATH, json={"question": "q", "thread_id": THREAD, "conversation_id": OTHER_THREAD}
    )
    body = response.json()
    assert response.status_code == 200, body
    assert body["data"]["conversation_id"] == THREAD and body["data"]["user_id"] == "wang1"
    assert response.headers["Warning"] == WARNING
    assert body["data"]["react_agent_meta"]["conversation_id_ignored"] is True


async def test_matching_or_single_ids_get_no_warning(service, model):
    model.default = answer("ok")
    for payload in (
        {"question": "q", "thread_id": THREAD, "conversation_id": THREAD},
        {"question": "q", "conversation_id": THREAD},
    ):
        response = await service.http.post(SYNC_PATH, json=payload)
        assert response.status_code == 200 and "Warning" not in response.headers
        assert "conversation_id_ignored" not in response.json()["data"]["react_agent_meta"]


async def test_the_stream_says_too_that_conversation_id_was_ignored(service, model):
    model.replies = [answer("ok")]
    payload = {"question": "q", "thread_id": THREAD, "conversation_id": OTHER_THREAD}
    async with open_stream(service.http, json=payload) as (response, events):
        assert response.headers["Warning"] == WARNING
        received = [event async for event in events]
    started = received[0]
    completed = next(e for e in received if e.type == "completed")
    assert started.type == "started" and started.data["conversation_id_ignored"] is True
    assert started.data["thread_id"] == THREAD
    assert completed.data["react_agent_meta"]["conversation_id_ignored"] is True


# ------------------------------------------------------------------ thread id text


UNPRINTABLE_THREAD_IDS = [
    "wang1:1\nINFO forged log line",
    "wang1:1\r",
    "wang1:1 2",
    "wang1:\t1",
    "wang1:1\u3000",
    "wang1:\u202e1",
    "wang1:1\x00",
]


@pytest.mark.parametrize("thread_id", UNPRINTABLE_THREAD_IDS)
async def test_thread_ids_with_whitespace_or_control_characters_are_refused(
    service, model, thread_id
):
    response = await service.http.post(SYNC_PATH, json={"question": "q", "thread_id": thread_id})
    body = response.json()
    assert response.status_code == 400
    assert body["data"]["error_type"] == "THREAD_ID_INVALID"
    assert "会话ID格式无效" in body["error"]
    events = await collect_stream(service.http, json={"question": "q", "thread_id": thread_id})
    assert events[0].data["error_type"] == "THREAD_ID_INVALID"
    assert model.seen == []


@pytest.mark.parametrize("thread_id", UNPRINTABLE_THREAD_IDS[:3])
async def test_conversation_routes_refuse_them_too(service, thread_id):
    for path in ("/api/v0/react/conversations/{}", "/api/v0/react/status/{}"):
        response = await service.http.get(
            path.format(quote(thread_id, safe="")), params={"user_id": "wang1"}
        )
        assert response.status_code == 400, response.text
        assert response.json()["data"]["error_type"] == "THREAD_ID_INVALID"


async def test_user_ids_with_whitespace_are_refused(service, model):
    response = await service.http.post(SYNC_PATH, json={"question": "q", "user_id": "li\nlei"})
    assert response.status_code == 400
    assert response.json()["data"]["error_type"] == "USER_ID_INVALID"
    assert model.seen == []


# ------------------------------------------------------------------ /health


async def test_health_has_a_top_level_healthy_status(service):
    response = await service.http.get("/health")
    body = response.json()
    assert response.status_code == 200
    assert body["status"] == "healthy" and body["data"]["status"] == "ok"


async def test_health_is_unhealthy_when_the_agent_cannot_answer(settings):
    async with running_service(settings) as service:  # no LLM configured
        response = await service.http.get("/health")
    body = response.json()
    assert response.status_code == 503 and body["code"] == 503
    assert body["status"] == "unhealthy" and body["data"]["status"] == "degraded"
    assert body["data"]["error_type"] == "LLM_NOT_CONFIGURED"
