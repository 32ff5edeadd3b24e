"""The graph with turn blocks: what the model sees, and fetching an old turn back."""

from __future__ import annotations

import json
import re

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

REGION_SALES_SQL = (
    "SELECT r.region_name AS region, ROUND(SUM(o.total_amount), 2) AS sales "
    "FROM orders o JOIN stores s ON s.store_id = o.store_id "
    "JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name ORDER BY sales DESC"
)


def count_sql(turn: int) -> str:
    """Return a cheap query distinct to one turn."""
    return f"SELECT COUNT(*) AS n FROM orders WHERE order_id > {turn}"


def script_turn(model: ScriptedChatModel, turn: int) -> str:
    """Script one ordinary SQL turn and return its question."""
    sql = REGION_SALES_SQL if turn == 3 else count_sql(turn)
    model.replies += [call_tool("run_sql", sql=sql), answer(f"Answer of turn {turn}. Done.")]
    return "每个地区的销售额是多少" if turn == 3 else f"How many orders after number {turn}?"


def last_tool_result(messages) -> str:
    """Return the text of the newest tool result the model was shown."""
    return next(m.content for m in reversed(messages) if isinstance(m, ToolMessage))


def read_turn_3_rows(messages) -> AIMessage:
    """Play the model: read turn 3's result id from the search result, then read its rows."""
    found = json.loads(last_tool_result(messages).splitlines()[0])
    return call_tool("read_result", result_id=found["queries"][0]["result_id"], limit=3)


async def ask_turns(service, model, thread: str, turns: range) -> None:
    """Ask one scripted SQL question per turn in `turns`."""
    for turn in turns:
        await service.runner.ask(script_turn(model, turn), thread)


async def test_at_turn_40_the_model_finds_turn_3_by_search_and_reads_its_rows(open_service):
    model = ScriptedChatModel()
    async with open_service(model, history_index_max=10) as service:
        await ask_turns(service, model, "wang1:h40", range(1, 40))
        model.replies += [
            call_tool("search_history", query="地区销售额", limit=1),
            read_turn_3_rows,
            answer("华东最高"),
        ]
        calls_before = len(model.seen)
        await service.runner.ask("第三轮问的地区销售额，前三名是？", "wang1:h40")
        state = await service.runner.graph.aget_state({"configurable": {"thread_id": "wang1:h40"}})

    first_prompt = model.seen[calls_before]
    # The index is in the question's context, the system message just before it (#48).
    system = first_prompt[-2].content
    assert isinstance(first_prompt[0], SystemMessage) and isinstance(
        first_prompt[-2], SystemMessage
    )
    assert "[turn-38]" in system and "[turn-29]" in system and "[turn-28]" not in system
    assert "(10 of 38; list_history shows the older ones)" in system
    humans = [m.content for m in first_prompt if isinstance(m, HumanMessage)]
    assert humans == ["How many orders after number 39?", "第三轮问的地区销售额，前三名是？"]

    turn_3 = state.values["history_blocks"][2]
    found = json.loads(last_tool_result(model.seen[calls_before + 1]))
    assert found["block_id"] == "turn-3"
    assert found["queries"][0]["sql"] == REGION_SALES_SQL
    assert found["queries"][0]["result_id"] == turn_3["queries"][0]["result_id"]
    # Neither the index nor the results list of the first prompt named turn 3's result.
    assert not re.search(rf"\b{turn_3['queries'][0]['result_id']}\b", system)
    rows = last_tool_result(model.seen[calls_before + 2])
    assert rows.startswith(f"result_id: {turn_3['queries'][0]['result_id']}; rows 1–3 of 7")
    assert "华东" in rows
    assert [b["turn"] for b in state.values["history_blocks"]] == list(range(1, 41))


async def test_window_mode_shows_the_newest_whole_turns_and_no_index(open_service):
    model = ScriptedChatModel()
    async with open_service(model, history_mode="window", trim_max_turns=3) as service:
        await ask_turns(service, model, "wang1:win", range(1, 6))

    last_prompt = model.seen[-2]
    humans = [m.content for m in last_prompt if isinstance(m, HumanMessage)]
    assert humans == [
        "每个地区的销售额是多少",
        "How many orders after number 4?",
        "How many orders after number 5?",
    ]
    assert "Earlier turns of this conversation" not in last_prompt[0].content


async def test_list_history_pages_through_the_turns_beyond_the_index(open_service):
    model = ScriptedChatModel()
    async with open_service(model, history_index_max=2) as service:
        await ask_turns(service, model, "wang1:list", range(1, 6))
        model.replies += [
            call_tool("list_history", offset=0, limit=3),
            call_tool("list_history", offset=3, limit=3),
            answer("listed"),
        ]
        await service.runner.ask("what did I ask before?", "wang1:list")

    first_page = last_tool_result(model.seen[-2]).splitlines()
    second_page = last_tool_result(model.seen[-1]).splitlines()
    assert first_page[0] == "Turns 1–3 of 5, newest first:"
    assert [line.split("]")[0] for line in first_page[1:4]] == ["[turn-5", "[turn-4", "[turn-3"]
    assert first_page[4] == "More: list_history(offset=3, limit=3)"
    assert second_page[0] == "Turns 4–5 of 5, newest first:"
    assert [line.split("]")[0] for line in second_page[1:]] == ["[turn-2", "[turn-1"]


async def test_read_history_returns_a_turns_question_sql_preview_and_answer(open_service):
    model = ScriptedChatModel()
    async with open_service(model) as service:
        await ask_turns(service, model, "wang1:read", range(1, 4))
        model.replies += [call_tool("read_history", block_id="turn-3"), answer("ok")]
        await service.runner.ask("show me turn 3", "wang1:read")

    text = last_tool_result(model.seen[-1])
    assert "User: 每个地区的销售额是多少" in text
    assert REGION_SALES_SQL in text
    assert "7 row(s)" in text and "华东" in text
    assert text.rstrip().endswith("Assistant: Answer of turn 3. Done.")
