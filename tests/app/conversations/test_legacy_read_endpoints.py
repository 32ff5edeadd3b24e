"""The read endpoints as the replaced service's clients call them (issue #17, #19 rows 2, 6)."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from httpx_sse import aconnect_sse

from tests.conftest import SAMPLE_QUESTION
from tests.support.scripted_model import answer, call_tool

CONVERSATION = "/api/v0/react/conversations/{}"
USER_CONVERSATIONS = "/api/v0/react/users/{}/conversations"
USER_CONVERSATION = "/api/v0/react/users/{}/conversations/{}"
STATUS = "/api/v0/react/status/{}"
STREAM_SYNC = "/api/v0/ask_react_agent_stream_sync"
TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}"


async def ask_with_a_query(service, model, user_id: str, question: str = "有几个地区") -> str:
    """Ask a question that runs SQL once; return the new thread id."""
    model.replies = [
        call_tool("run_sql", sql="SELECT COUNT(*) AS n FROM regions"),
        answer("7 个地区"),
    ]
    status, body = await service.ask(question=question, user_id=user_id)
    assert status == 200, body
    return body["data"]["conversation_id"]


async def test_conversation_detail_without_user_id_takes_the_user_from_the_thread_id(
    service, model
):
    thread_id = await ask_with_a_query(service, model, "old1")

    response = await service.http.get(CONVERSATION.format(thread_id))

    body = response.json()
    assert response.status_code == 200 and body["success"] is True
    assert body["data"]["user_id"] == "old1" and body["data"]["thread_id"] == thread_id


async def test_conversation_detail_messages_have_ids_old_roles_and_tools_only_on_request(
    service, model
):
    thread_id = await ask_with_a_query(service, model, "old2")
    runner = service.app.extensions["agent"].runner
    saved = [s async for s in runner.graph.aget_state_history(runner.config_for(thread_id))]

    plain = (await service.http.get(CONVERSATION.format(thread_id))).json()["data"]
    full = (
        await service.http.get(CONVERSATION.format(thread_id), params={"include_tools": "true"})
    ).json()["data"]

    assert [(m["role"], m["content"]) for m in plain["messages"]] == [
        ("human", "有几个地区"),
        ("ai", "7 个地区"),
    ]
    assert [m["role"] for m in full["messages"]] == ["human", "ai", "tool", "ai"]
    ids = [m["message_id"] for m in full["messages"]]
    assert all(isinstance(i, str) and i for i in ids) and len(set(ids)) == len(ids)
    assert {m["message_id"] for m in plain["messages"]} <= set(ids)
    assert all(re.fullmatch(TIMESTAMP, m["timestamp"]) for m in full["messages"])
    assert plain["total_checkpoints"] == full["total_checkpoints"] == len(saved) > 1


async def test_conversation_detail_refuses_a_malformed_thread_id_without_user_id(service):
    response = await service.http.get(CONVERSATION.format("no-colon-here"))

    body = response.json()
    assert response.status_code == 400 and body["data"]["error_type"] == "THREAD_ID_INVALID"


async def test_a_given_user_id_is_checked_as_the_ask_endpoints_check_it(service):
    too_long = "u" * 51
    for path in (CONVERSATION, STATUS):
        response = await service.http.get(
            path.format(f"{too_long}:1"), params={"user_id": too_long}
        )
        body = response.json()
        assert response.status_code == 400 and body["data"]["error_type"] == "USER_ID_TOO_LONG"


async def test_status_without_user_id_of_a_finished_thread_is_completed_with_name_and_icon(
    service, model
):
    thread_id = await ask_with_a_query(service, model, "old3")

    response = await service.http.get(STATUS.format(thread_id))

    data = response.json()["data"]
    assert response.status_code == 200
    assert data["status"] == "completed" and data["user_id"] == "old3"
    assert (data["name"], data["icon"]) == ("完成", "✅")  # the stream's __end__ entry
    assert re.fullmatch(TIMESTAMP, data["timestamp"])


async def test_status_of_a_running_thread_names_the_step_as_the_stream_does(service, model):
    thread_id = "old4:20250101000000001"
    model.replies = [call_tool("run_sql", sql="SELECT 1 AS one"), answer("done")]
    gate, entered = asyncio.Event(), asyncio.Event()
    model.gates[1], model.entered[1] = gate, entered

    run = asyncio.create_task(service.ask(question="q", thread_id=thread_id))
    await entered.wait()
    running = (await service.http.get(STATUS.format(thread_id))).json()["data"]
    english = (await service.http.get(STATUS.format(thread_id), params={"lang": "en-US"})).json()
    gate.set()
    await run

    assert running["status"] == "running"
    assert (running["name"], running["icon"]) == ("AI思考中", "🤖")
    assert english["data"]["name"] == "AI thinking"


async def test_status_of_an_unknown_thread_is_a_404_envelope(service):
    response = await service.http.get(STATUS.format("ghost:20250101000000001"))

    body = response.json()
    assert response.status_code == 404 and body["success"] is False and body["code"] == 404
    assert body["data"]["error_type"] == "THREAD_NOT_FOUND"


async def test_conversation_list_reports_the_users_total_and_the_clamped_limit(service, model):
    model.default = answer("ok")
    for n in range(3):
        assert (await service.ask(question=f"q{n}", user_id="old5"))[0] == 200
    assert (await service.ask(question="not counted", user_id="old5x"))[0] == 200

    async def listing(**params) -> dict:
        response = await service.http.get(USER_CONVERSATIONS.format("old5"), params=params)
        assert response.status_code == 200, response.text
        return response.json()["data"]

    page = await listing(limit=2)
    assert (page["count"], page["total_count"], page["limit"]) == (2, 3, 2)
    assert len(page["conversations"]) == 2
    assert (await listing())["limit"] == 10
    assert (await listing(limit=100))["limit"] == 50
    smallest = await listing(limit=0)
    assert (smallest["limit"], smallest["count"], smallest["total_count"]) == (1, 1, 3)
    assert (await listing(limit=-5))["limit"] == 1


async def test_conversation_list_items_carry_user_title_and_last_question(service, model):
    model.default = answer("这是回答")
    long_question = "请统计" + "每个地区每个门店" * 10 + "的销售额"
    status, body = await service.ask(question=long_question, user_id="old6")
    assert status == 200, body
    thread_id = body["data"]["conversation_id"]
    await service.ask(question="那上个月呢？", thread_id=thread_id)
    await service.ask(question="短问题", user_id="old6")

    response = await service.http.get(USER_CONVERSATIONS.format("old6"))

    items = {c["thread_id"]: c for c in response.json()["data"]["conversations"]}
    long_one = items[thread_id]
    assert long_one["user_id"] == "old6"
    assert long_one["conversation_title"] == long_question[:50] + "..."
    assert long_one["last_message"] == "那上个月呢？" and long_one["last_answer"] == "这是回答"
    assert long_one["title"]
    (short_one,) = (c for c in items.values() if c["thread_id"] != thread_id)
    assert short_one["conversation_title"] == "短问题" and short_one["last_message"] == "短问题"


async def test_conversation_under_its_user_is_the_detail_and_refuses_others(service, model):
    thread_id = await ask_with_a_query(service, model, "old7")

    mine = await service.http.get(USER_CONVERSATION.format("old7", thread_id))
    theirs = await service.http.get(USER_CONVERSATION.format("someone", thread_id))
    absent = await service.http.get(USER_CONVERSATION.format("old7", "old7:20250101000000009"))
    detail = (await service.http.get(CONVERSATION.format(thread_id))).json()

    assert mine.status_code == 200 and mine.json()["data"] == detail["data"]
    assert theirs.status_code == 400
    assert theirs.json()["data"]["error_type"] == "THREAD_OWNERSHIP_MISMATCH"
    assert "7 个地区" not in theirs.text
    assert absent.status_code == 404 and absent.json()["data"]["error_type"] == "THREAD_NOT_FOUND"


async def test_stream_sync_is_the_get_stream_under_the_old_path(service, model):
    model.replies = [call_tool("run_sql", sql="SELECT COUNT(*) AS n FROM regions"), answer("7")]
    params = {"question": SAMPLE_QUESTION, "user_id": "old8"}

    async with aconnect_sse(service.http, "GET", STREAM_SYNC, params=params) as source:
        assert source.response.status_code == 200
        assert source.response.headers["content-type"].startswith("text/event-stream")
        events = [json.loads(sse.data)["data"] async for sse in source.aiter_sse()]

    types = [e["type"] for e in events]
    assert types[0] == "started" and types[-2:] == ["completed", "end"]
    assert events[0]["user_id"] == "old8"
    assert [e["node"] for e in events if e["type"] == "progress"][-1] == "__end__"
    assert events[-2]["response"] == "7" and events[-2]["sql"].startswith("SELECT COUNT")


async def test_stream_sync_is_documented_as_deprecated(service):
    spec = (await service.http.get("/openapi.json")).json()

    assert spec["paths"][STREAM_SYNC]["get"]["deprecated"] is True
    assert "deprecated" not in spec["paths"]["/api/v0/ask_react_agent_stream"]["get"]


async def test_status_of_an_interrupted_thread_keeps_interrupted_and_names_where_it_stopped(
    service, model
):
    thread_id = "old9:20250101000000002"
    gate, entered = asyncio.Event(), asyncio.Event()
    model.replies = [answer("never")]
    model.gates[0], model.entered[0] = gate, entered
    run = await service.app.extensions["agent"].runner.start("q", thread_id)
    await entered.wait()
    run.cancel()
    with pytest.raises(Exception, match="cancelled"):
        await run.outcome()

    data = (await service.http.get(STATUS.format(thread_id))).json()["data"]

    assert data["status"] == "interrupted" and data["node"] == "agent"
    assert (data["name"], data["icon"]) == ("AI思考中", "🤖")
