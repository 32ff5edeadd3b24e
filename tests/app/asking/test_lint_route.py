"""SQL_LINT over real HTTP: the model reads the warning with the rows; the final data keeps it."""

from __future__ import annotations

from config import Settings
from tests.support.live_server import running_service
from tests.support.openai_stub import OpenAIStub, Reply, ToolCall

QUESTION = "销售额最高的3家门店是哪些？"
UNORDERED = "SELECT store_id, SUM(total_amount) AS revenue FROM orders GROUP BY store_id LIMIT 3"
ORDERED = (
    "SELECT store_id, SUM(total_amount) AS revenue FROM orders GROUP BY store_id "
    "ORDER BY revenue DESC LIMIT 3"
)


def script(stub: OpenAIStub, sql: str) -> None:
    stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": sql}, id="call_lint")]),
        Reply(text="门店 1、2、3。"),
    )


def tool_result_seen(stub: OpenAIStub) -> str:
    """Return the run_sql result the model was shown on its second call."""
    messages = stub.requests[-1]["messages"]
    return next(m["content"] for m in messages if m.get("role") == "tool")


async def test_a_warning_goes_to_the_model_with_the_rows_and_into_the_final_data(
    stub_settings: Settings, stub: OpenAIStub
):
    async with running_service(stub_settings) as service:
        script(stub, UNORDERED)
        status, body = await service.ask(question=QUESTION)
        seen = tool_result_seen(stub)
        stub.clear()
        script(stub, ORDERED)
        _, clean = await service.ask(question=QUESTION)
        clean_seen = tool_result_seen(stub)

    assert status == 200
    lint = body["data"]["react_agent_meta"]["lint"]
    assert [w["rule"] for w in lint] == ["limit_without_order"]
    assert lint[0]["sql"] == UNORDERED and "ORDER BY" in lint[0]["message"]
    assert body["data"]["records"]  # the rows came back as well
    assert "[limit_without_order]" in seen and "result_id: call_lint" in seen
    assert "lint" not in clean["data"]["react_agent_meta"]
    assert "Lint warnings" not in clean_seen


async def test_sql_lint_off_adds_nothing(stub_settings: Settings, stub: OpenAIStub):
    async with running_service(stub_settings.model_copy(update={"sql_lint": "off"})) as service:
        script(stub, UNORDERED)
        status, body = await service.ask(question=QUESTION)
        seen = tool_result_seen(stub)
    assert status == 200
    assert "lint" not in body["data"]["react_agent_meta"]
    assert "Lint warnings" not in seen


async def test_repair_asks_once_for_a_fix_and_the_model_runs_the_fixed_query(
    stub_settings: Settings, stub: OpenAIStub
):
    repairing = stub_settings.model_copy(update={"sql_lint": "repair"})
    async with running_service(repairing) as service:
        stub.script(
            Reply(tool_calls=[ToolCall("run_sql", {"sql": UNORDERED}, id="call_first")]),
            Reply(tool_calls=[ToolCall("run_sql", {"sql": UNORDERED}, id="call_again")]),
            Reply(tool_calls=[ToolCall("run_sql", {"sql": ORDERED}, id="call_fixed")]),
            Reply(text="门店 1、2、3。"),
        )
        status, body = await service.ask(question=QUESTION)
        shown = [
            [m["content"] for m in request["messages"] if m.get("role") == "tool"]
            for request in stub.requests
        ]
    assert status == 200
    # The first warned result asks for the fix; the same mistake again only warns.
    assert "fix the query now" in shown[1][0]
    assert "Lint warnings (the query ran" in shown[2][1]
    assert "Lint warnings" not in shown[3][2]
    lint = body["data"]["react_agent_meta"]["lint"]
    assert [w.get("repair", False) for w in lint] == [True, False]
    assert body["data"]["sql"] == ORDERED
