"""The conversation detail endpoint returns the thread's turn blocks."""

from __future__ import annotations

from tests.support.scripted_model import answer, call_tool

CONVERSATIONS = "/api/v0/react/conversations/{}"
COUNT_SQL = "SELECT COUNT(*) AS n FROM regions"


async def test_the_conversation_detail_returns_one_block_per_finished_turn(service, model):

    model.replies = [call_tool("run_sql", sql=COUNT_SQL), answer("7 个地区。各地区都有门店。")]
    status, body = await service.ask(question="有几个地区", user_id="lin")
    assert status == 200, body
    thread_id = body["data"]["conversation_id"]
    model.replies += [answer("Hello there")]
    await service.ask(question="hi", thread_id=thread_id)

    response = await service.http.get(
        CONVERSATIONS.format(thread_id), params={"user_id": "lin", "include_tools": "true"}
    )

    data = response.json()["data"]
    first, second = data["blocks"]
    tool = next(m for m in data["messages"] if m["role"] == "tool")
    assert first["block_id"] == "turn-1" and first["question"] == "有几个地区"
    assert first["queries"][0]["sql"] == COUNT_SQL and first["queries"][0]["rows"] == 1
    assert tool["content"].startswith(f"result_id: {first['queries'][0]['result_id']}")
    assert first["tables"] == ["regions"] and first["summary"] == "7 个地区。"
    assert first["time"] == data["messages"][0]["timestamp"]
    assert second["block_id"] == "turn-2" and second["queries"] == []
    assert second["summary"] == "Hello there"
