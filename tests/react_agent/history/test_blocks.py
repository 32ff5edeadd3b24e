"""Turn blocks built from a turn's messages, and the rules of their one-line summary."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from react_agent.graph.state import append_blocks
from react_agent.history.blocks import (
    build_block,
    missing_blocks,
    summarize_answer,
    thread_blocks,
)
from react_agent.history.index import index_line, index_page, index_section

SQL = (
    "WITH big AS (SELECT store_id FROM orders WHERE total_amount > 100) "
    "SELECT s.store_name, COUNT(*) AS n FROM big JOIN stores s ON s.store_id = big.store_id "
    "GROUP BY s.store_name"
)


def a_turn(question: str, answer_text: str, result_id: str = "call_7") -> list:
    """Return the messages of one finished turn that ran SQL once."""
    call = {"name": "run_sql", "args": {"sql": SQL}, "id": result_id}
    return [
        HumanMessage(question, response_metadata={"timestamp": "2026-11-23T10:00:00+08:00"}),
        AIMessage("", tool_calls=[call]),
        ToolMessage(
            f"result_id: {result_id}\n3 row(s)",
            tool_call_id=result_id,
            name="run_sql",
            artifact={
                "sql": SQL,
                "outcome": "ok",
                "result_id": result_id,
                "records": {"columns": ["store_name", "n"], "rows": [], "total_row_count": 3},
            },
        ),
        AIMessage(answer_text),
    ]


def test_a_block_holds_the_question_each_sql_with_its_result_id_the_tables_and_a_summary():
    block = build_block(a_turn("哪些门店大单最多？", "上海店最多。其次是杭州店。"), 3, "sqlite")

    assert block["block_id"] == "turn-3" and block["turn"] == 3
    assert block["time"] == "2026-11-23T10:00:00+08:00"
    assert block["question"] == "哪些门店大单最多？"
    assert block["queries"] == [{"sql": SQL, "result_id": "call_7", "rows": 3}]
    assert block["tables"] == ["orders", "stores"]  # the CTE `big` is not a table
    assert {"store_name", "total_amount"} <= set(block["columns"])
    assert block["summary"] == "上海店最多。"


def test_the_summary_is_the_first_sentence_on_one_line_cut_at_eighty_characters():
    assert summarize_answer("East leads with 1.5 million. West follows.") == (
        "East leads with 1.5 million."
    )
    assert summarize_answer("  Total:\n  42 orders") == "Total:"
    long = summarize_answer("x" * 200)
    assert len(long) == 80 and long.endswith("…")
    assert summarize_answer("") == ""


def test_only_finished_turns_without_a_block_are_missing():
    messages = [*a_turn("q1", "a1", "call_1"), *a_turn("q2", "a2", "call_2"), HumanMessage("q3")]
    recorded = [build_block(messages[:4], 1, None)]

    missing = missing_blocks(messages, recorded, None)

    assert [block["block_id"] for block in missing] == ["turn-2"]
    assert [b["block_id"] for b in thread_blocks(messages, recorded, None)] == [
        "turn-1",
        "turn-2",
    ]


def test_the_blocks_reducer_appends_and_replaces_a_block_with_the_same_id():
    first, second = {"block_id": "turn-1", "turn": 1}, {"block_id": "turn-2", "turn": 2}
    again = {"block_id": "turn-1", "turn": 1, "question": "new"}

    assert append_blocks([first], [second]) == [first, second]
    assert append_blocks([first, second], [again]) == [again, second]


def test_the_index_lists_earlier_turns_newest_first_and_at_most_index_max_lines():
    blocks = [build_block(a_turn(f"question {n}", "ok", f"call_{n}"), n, None) for n in (1, 2, 3)]

    section = index_section(blocks, before_turn=3, index_max=1)

    assert "(1 of 2; list_history shows the older ones)" in section
    assert section.splitlines()[1] == index_line(blocks[1])
    assert index_line(blocks[1]) == (
        "[turn-2] 2026-11-23 10:00 question 2 | tables: orders, stores | results: call_2 (3 rows)"
    )
    assert index_section(blocks, before_turn=1, index_max=5) == ""


def test_an_index_page_says_how_to_get_the_next_page():
    blocks = [build_block(a_turn(f"question {n}", "ok", f"call_{n}"), n, None) for n in (1, 2, 3)]

    page = index_page(blocks, offset=0, limit=2).splitlines()

    assert page[0] == "Turns 1–2 of 3, newest first:"
    assert page[1].startswith("[turn-3]") and page[2].startswith("[turn-2]")
    assert page[3] == "More: list_history(offset=2, limit=2)"
    assert index_page(blocks, offset=2, limit=2).splitlines()[1].startswith("[turn-1]")
