"""The final data's answer_check over real HTTP: sync and stream, /v1's note, repair, read back."""

from __future__ import annotations

from config import Settings
from tests.support.live_server import running_service
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub, Reply, ToolCall
from tests.support.sse import collect_stream

# 华东 is 781,933.58 in the sample; 79.5万 is not what any row says.
ANSWER = "华东最多，约78.2万元；华南为79.5万元。"


def script(stub: OpenAIStub, text: str = ANSWER) -> None:
    stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": DEFAULT_SALES_SQL}, id="call_ok")]),
        Reply(text=text),
    )


async def test_the_check_names_the_unsupported_figure_on_sync_and_stream_alike(
    stub_settings: Settings, stub: OpenAIStub
):
    async with running_service(stub_settings) as service:
        script(stub)
        status, body = await service.ask(question="各大区销售额")
        script(stub)
        events = await collect_stream(service.http, json={"question": "各大区销售额"})
        script(stub)
        response = await service.http.post(
            "/v1/chat/completions",
            json={
                "model": "sql-react-agent",
                "messages": [{"role": "user", "content": "各大区销售额"}],
            },
        )

    assert status == 200
    check = body["data"]["answer_check"]
    assert check["unsupported"] == [{"text": "79.5万", "reason": "NUMBER_NOT_IN_RESULTS"}]
    assert check["supported"] == check["checked"] - 1 >= 2
    streamed = next(e.data for e in events if e.type == "completed")
    assert streamed["answer_check"] == check
    assert response.status_code == 200, response.text
    content = response.json()["choices"][0]["message"]["content"]
    assert "not found in the query results: 79.5万" in content


async def turns_of(service, thread_id: str) -> list[dict]:
    """Return the conversation detail's `turns`, as a page reopening it reads them."""
    response = await service.http.get(f"/api/v0/react/conversations/{thread_id}")
    assert response.status_code == 200, response.text
    return response.json()["data"]["turns"]


async def test_a_conversation_read_back_has_each_answer_check_as_the_final_data_had_it(
    stub_settings: Settings, stub: OpenAIStub
):
    async with running_service(stub_settings) as service:
        script(stub)
        _, first = await service.ask(question="各大区销售额")
        thread_id = first["data"]["conversation_id"]
        script(stub, "华东最多，约78.2万元。")
        _, second = await service.ask(question="再说一遍", thread_id=thread_id)
        turns = await turns_of(service, thread_id)

    assert [turn["answer_check"] for turn in turns] == [
        first["data"]["answer_check"],
        second["data"]["answer_check"],
    ]
    assert turns[0]["answer_check"]["unsupported"][0]["text"] == "79.5万"
    assert turns[1]["answer_check"]["unsupported"] == []


async def test_with_answer_check_off_the_final_data_has_no_new_key(
    stub_settings: Settings, stub: OpenAIStub
):
    settings = stub_settings.model_copy(update={"answer_check": "off"})
    async with running_service(settings) as service:
        script(stub)
        _, body = await service.ask(question="各大区销售额")
        turns = await turns_of(service, body["data"]["conversation_id"])
    assert "answer_check" not in body["data"]
    assert body["data"]["response"] == ANSWER
    assert "answer_check" not in turns[0]


CORRECTED = "华东最多，约78.2万元。"


def script_repair(stub: OpenAIStub) -> None:
    """Script a wrong first answer and a corrected one for its repair turn."""
    script(stub)
    stub.script(Reply(text=CORRECTED))


async def test_with_repair_the_sync_answer_is_the_corrected_one_after_one_more_model_call(
    stub_settings: Settings, stub: OpenAIStub
):
    settings = stub_settings.model_copy(update={"answer_check": "repair"})
    async with running_service(settings) as service:
        script_repair(stub)
        before = len(stub.requests)
        status, body = await service.ask(question="各大区销售额")
        requests = stub.requests[before:]
        turns = await turns_of(service, body["data"]["conversation_id"])

    assert status == 200
    data = body["data"]
    assert data["response"] == CORRECTED
    check = data["answer_check"]
    assert check["unsupported"] == [] and check["supported"] == check["checked"] >= 2
    assert check["repaired"] is True
    assert check["before"] == [{"text": "79.5万", "reason": "NUMBER_NOT_IN_RESULTS"}]
    assert len(requests) == 3  # the query, the first answer, the one repair turn
    # The real ChatOpenAI sends the request as a system message after the wrong answer.
    last_two = requests[2]["messages"][-2:]
    assert [m["role"] for m in last_two] == ["assistant", "system"]
    assert last_two[0]["content"] == ANSWER and "79.5万" in last_two[1]["content"]
    assert data["react_agent_meta"]["execution_path"][-3:] == [
        "review_answer",
        "agent",
        "format_final_response",
    ]
    # Read back, the turn's check is the corrected answer's, repaired, with `before`.
    assert turns[0]["answer"] == CORRECTED
    assert turns[0]["answer_check"] == check


async def test_the_stream_shows_the_repair_step_and_its_tokens_then_the_checked_answer(
    stub_settings: Settings, stub: OpenAIStub
):
    settings = stub_settings.model_copy(update={"answer_check": "repair"})
    async with running_service(settings) as service:
        script_repair(stub)
        events = await collect_stream(
            service.http, json={"question": "各大区销售额", "stream_tokens": True}
        )

    steps = [e.data["node"] for e in events if e.type == "progress"]
    assert steps[-5:] == ["agent", "review_answer", "agent", "format_final_response", "__end__"]
    review = next(e for e in events if e.type == "progress" and e.data["node"] == "review_answer")
    assert review.data["display_name"] == "核对答案"
    assert review.data["answer_repair"]["unsupported"] == [
        {"text": "79.5万", "reason": "NUMBER_NOT_IN_RESULTS"}
    ]
    # Tokens of the repair turn come after its step, and add up to the final answer.
    index = events.index(review)
    after = "".join(e.data["content"] for e in events[index:] if e.type == "token")
    assert after == CORRECTED
    completed = next(e.data for e in events if e.type == "completed")
    assert completed["response"] == CORRECTED
    assert completed["answer_check"]["repaired"] is True
    assert completed["answer_check"]["unsupported"] == []


async def test_on_v1_a_repair_that_stays_wrong_shows_its_step_and_still_notes_the_figure(
    stub_settings: Settings, stub: OpenAIStub
):
    settings = stub_settings.model_copy(update={"answer_check": "repair"})
    async with running_service(settings) as service:
        script(stub)
        stub.script(Reply(text="华东最多；华南约为79.5万元。"))
        before = len(stub.requests)
        response = await service.http.post(
            "/v1/chat/completions",
            json={
                "model": "sql-react-agent",
                "messages": [{"role": "user", "content": "各大区销售额"}],
            },
        )
        calls = len(stub.requests) - before

    assert response.status_code == 200, response.text
    message = response.json()["choices"][0]["message"]
    assert "🔍 核对答案" in message["reasoning_content"]
    assert message["content"].startswith("华东最多；华南约为79.5万元。")
    assert "not found in the query results: 79.5万" in message["content"]
    assert calls == 3  # one repair turn, not another
