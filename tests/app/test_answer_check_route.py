"""The final data's answer_check over real HTTP: equal on sync and stream, a note on /v1, repair."""

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


async def test_with_answer_check_off_the_final_data_has_no_new_key(
    stub_settings: Settings, stub: OpenAIStub
):
    settings = stub_settings.model_copy(update={"answer_check": "off"})
    async with running_service(settings) as service:
        script(stub)
        _, body = await service.ask(question="各大区销售额")
    assert "answer_check" not in body["data"]
    assert body["data"]["response"] == ANSWER


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
