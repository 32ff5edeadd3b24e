"""Big results stay out of the model's context; earlier results are read back by reference."""

from __future__ import annotations

import json

from langchain_core.messages import SystemMessage, ToolMessage

from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

STORES_SQL = "SELECT store_id, store_name FROM stores ORDER BY store_id"


def tool_results(messages) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


async def test_model_sees_a_preview_and_the_final_data_gets_every_row(open_service):
    model = ScriptedChatModel(replies=[call_tool("run_sql", sql=STORES_SQL), answer("32 stores")])
    async with open_service(model, sql_preview_rows=3) as service:
        result = await service.runner.ask("list the stores", "li:1")

    seen = tool_results(model.seen[1])[-1].content
    lines = seen.splitlines()
    assert lines[0].startswith("result_id: call_") and "32 row(s)" in lines[1]
    assert sum(line.startswith("{") for line in lines) == 3
    assert "29 more row(s) not shown" in seen
    assert len(result.records["rows"]) == 32 == result.records["total_row_count"]


async def test_row_cap_marks_the_result_limited_with_the_true_total(open_service):
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql="SELECT order_id FROM orders"), answer("many")]
    )
    async with open_service(model, sql_row_limit=50) as service:
        result = await service.runner.ask("all orders", "li:2")
    assert len(result.records["rows"]) == 50
    assert result.records["is_limited"] is True and result.records["total_row_count"] == 4000


async def test_a_later_question_reads_an_earlier_result_by_reference(open_service):
    model = ScriptedChatModel(replies=[call_tool("run_sql", sql=STORES_SQL), answer("done")])
    async with open_service(model, sql_preview_rows=2, trim_max_turns=1) as service:
        await service.runner.ask("list the stores", "li:3")
        result_id = tool_results(model.seen[1])[-1].content.splitlines()[0].split(": ")[1]

        model.replies += [
            call_tool("read_result", result_id=result_id, offset=5, limit=3),
            call_tool("read_result", result_id="call_nope"),
            answer("rows 6 to 8"),
        ]
        second = await service.runner.ask("show stores 6 to 8 from before", "li:3")

    # The first turn was trimmed away, but the prompt still names its result.
    # Listed in the question's context, the system message just before it (#48).
    prompt = model.seen[2][-2]
    assert isinstance(prompt, SystemMessage) and result_id in prompt.content
    assert "list the stores" not in [m.content for m in model.seen[2]]
    read, missing = tool_results(model.seen[4])[-2:]
    rows = [json.loads(line) for line in read.content.splitlines()[1:]]
    assert [row["store_id"] for row in rows] == [6, 7, 8]
    assert "rows 6–8 of 32" in read.content
    assert (
        missing.content.startswith("Error: no result 'call_nope'") and result_id in missing.content
    )
    assert second.sql is None  # reading a stored result runs no SQL
    assert second.tools_used == ["read_result", "read_result"]
