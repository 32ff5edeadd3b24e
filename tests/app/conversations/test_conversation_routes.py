"""Conversation endpoints: lists, messages, status, ownership, and unique thread ids."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest

from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

CONVERSATIONS = "/api/v0/react/conversations/{}"
USER_CONVERSATIONS = "/api/v0/react/users/{}/conversations"
STATUS = "/api/v0/react/status/{}"
ASK = "/api/v0/ask_react_agent"


async def ask_new(service, user_id: str, question: str) -> str:
    status, body = await service.ask(question=question, user_id=user_id)
    assert status == 200, body
    return body["data"]["conversation_id"]


async def test_user_conversations_are_listed_newest_first_with_titles(service, model):
    model.default = answer("好的，已经查到了。")
    first = await ask_new(
        service, "chen", "第一个问题：每个地区的销售额是多少？请详细说明各个地区的情况"
    )
    second = await ask_new(service, "chen", "second question")
    await service.ask(question="follow-up", thread_id=first)  # first is now the newest
    await ask_new(service, "chenx", "another user's question")

    response = await service.http.get(USER_CONVERSATIONS.format("chen"))

    body = response.json()
    assert response.status_code == 200 and body["success"] is True
    listed = body["data"]["conversations"]
    assert [c["conversation_id"] for c in listed] == [first, second]
    assert listed[0]["title"].startswith("第一个问题") and len(listed[0]["title"]) <= 30
    assert listed[0]["message_count"] == 4 and listed[1]["message_count"] == 2
    assert listed[0]["last_message"] == "follow-up"  # the user's last question
    assert listed[0]["last_answer"] == "好的，已经查到了。"
    for item in listed:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}", item["created_at"])
        assert item["updated_at"] >= item["created_at"]


async def test_conversation_list_limit_is_applied_and_a_non_number_refused(service, model):
    model.default = answer("ok")
    for n in range(3):
        await ask_new(service, "lim", f"q{n}")
    two = await service.http.get(USER_CONVERSATIONS.format("lim"), params={"limit": 2})
    assert len(two.json()["data"]["conversations"]) == 2
    response = await service.http.get(USER_CONVERSATIONS.format("lim"), params={"limit": "ten"})
    body = response.json()
    assert response.status_code == 400 and body["data"]["error_type"] == "INVALID_REQUEST"
    assert "limit" in body["data"]["error"]


async def test_conversation_messages_hide_tool_traffic_unless_asked(service, model):
    model.replies = [
        call_tool("run_sql", sql="SELECT COUNT(*) AS n FROM regions"),
        answer("7 个地区"),
    ]
    thread_id = await ask_new(service, "lin", "有几个地区")

    plain = (
        await service.http.get(CONVERSATIONS.format(thread_id), params={"user_id": "lin"})
    ).json()
    full = (
        await service.http.get(
            CONVERSATIONS.format(thread_id), params={"user_id": "lin", "include_tools": "true"}
        )
    ).json()

    assert [(m["role"], m["content"]) for m in plain["data"]["messages"]] == [
        ("human", "有几个地区"),
        ("ai", "7 个地区"),
    ]
    roles = [m["role"] for m in full["data"]["messages"]]
    assert roles == ["human", "ai", "tool", "ai"]
    tool = full["data"]["messages"][2]
    assert tool["tool_name"] == "run_sql" and "1 row(s)" in tool["content"]
    assert full["data"]["messages"][1]["tool_calls"][0]["name"] == "run_sql"
    assert all(m["timestamp"] for m in full["data"]["messages"])


async def test_endpoints_that_name_a_thread_refuse_another_users_thread(service, model):
    model.default = answer("secret answer")
    thread_id = await ask_new(service, "owner", "private question")

    for path in (CONVERSATIONS, STATUS):
        response = await service.http.get(path.format(thread_id), params={"user_id": "intruder"})
        body = response.json()
        assert response.status_code == 400
        assert body["data"]["error_type"] == "THREAD_OWNERSHIP_MISMATCH"
        assert "owner" in body["message"] and "intruder" in body["message"]
        assert "secret answer" not in response.text
    listed = await service.http.get(USER_CONVERSATIONS.format("intruder"))
    assert listed.json()["data"]["conversations"] == []


async def test_unknown_conversation_and_its_status_are_404(service):
    response = await service.http.get(
        CONVERSATIONS.format("nobody:1"), params={"user_id": "nobody"}
    )
    assert (
        response.status_code == 404 and response.json()["data"]["error_type"] == "THREAD_NOT_FOUND"
    )
    status = await service.http.get(STATUS.format("nobody:1"), params={"user_id": "nobody"})
    assert status.status_code == 404 and status.json()["data"]["error_type"] == "THREAD_NOT_FOUND"


async def test_status_answers_at_once_while_the_thread_is_running(service, model):
    thread_id = "sun:20250101000000001"
    model.replies = [call_tool("run_sql", sql="SELECT 1 AS one"), answer("done")]
    gate, entered = asyncio.Event(), asyncio.Event()
    model.gates[1], model.entered[1] = gate, entered

    run = asyncio.create_task(service.ask(question="q", thread_id=thread_id))
    await entered.wait()
    running = (await service.http.get(STATUS.format(thread_id), params={"user_id": "sun"})).json()
    english = (
        await service.http.get(STATUS.format(thread_id), params={"user_id": "sun", "lang": "en-US"})
    ).json()
    gate.set()
    await run
    done = (await service.http.get(STATUS.format(thread_id), params={"user_id": "sun"})).json()

    assert running["data"]["status"] == "running"
    assert running["data"]["node"] == "agent" and running["data"]["display_name"] == "AI思考中"
    assert english["data"]["display_name"] == "AI thinking" and english["message"] == "Success"
    assert done["data"]["status"] == "completed" and done["data"]["message_count"] == 4


async def test_interrupted_question_shows_as_interrupted(service, model):
    thread_id = "zhou:20250101000000002"
    model.replies = [answer("never")]
    gate, entered = asyncio.Event(), asyncio.Event()
    model.gates[0], model.entered[0] = gate, entered
    run = await service.app.extensions["agent"].runner.start("q", thread_id)
    await entered.wait()
    run.cancel()
    with pytest.raises(Exception, match="cancelled"):
        await run.outcome()
    status = (await service.http.get(STATUS.format(thread_id), params={"user_id": "zhou"})).json()
    assert status["data"]["status"] == "interrupted"


BURST_QUESTIONS = 1000
BURST_CONNECTIONS = 100
"""Questions in flight at once; the others wait for a connection, however long that takes."""
SECONDS_PER_QUESTION = 2.0
"""A generous bound on the server's time per question on a slow, shared machine."""


@pytest.mark.slow  # load: a thousand questions at once (tests/support/slow_tests.py)
async def test_a_thousand_concurrent_new_conversations_get_distinct_well_formed_ids(settings):
    model = ScriptedChatModel(default=answer("ok"))
    fast = settings.model_copy(update={"checkpoint_database_url": "memory"})
    # No pool timeout (waiting for a connection is the burst queueing, not a fault), and a
    # per-request bound sized from the questions the server may be answering alongside it.
    timeout = httpx.Timeout(BURST_CONNECTIONS * SECONDS_PER_QUESTION, pool=None)
    # No keep-alive: Hypercorn closes a connection idle for 5 s, and with client and server
    # on one busy loop a reused connection can be closed just as a request goes out on it.
    limits = httpx.Limits(max_connections=BURST_CONNECTIONS, max_keepalive_connections=0)
    async with (
        running_service(fast, model=model) as service,
        httpx.AsyncClient(base_url=service.base_url, timeout=timeout, limits=limits) as http,
    ):
        responses = await asyncio.gather(
            *(
                http.post(ASK, json={"question": f"q{n}", "user_id": "burst"})
                for n in range(BURST_QUESTIONS)
            )
        )
    ids = [r.json()["data"]["conversation_id"] for r in responses if r.status_code == 200]
    assert len(ids) == BURST_QUESTIONS and len(set(ids)) == BURST_QUESTIONS
    assert all(re.fullmatch(r"burst:\d{17}", thread_id) for thread_id in ids)
