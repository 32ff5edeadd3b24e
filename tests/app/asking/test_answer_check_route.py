"""The final data's answer_check over real HTTP: equal on sync and stream, a note on /v1."""

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
