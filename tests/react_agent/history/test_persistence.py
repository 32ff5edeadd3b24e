"""Blocks across restarts (SQLite and PostgreSQL) and for threads written before blocks."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from react_agent.graph.node_names import FORMAT_FINAL_RESPONSE
from react_agent.service import open_agent_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool, prompt_text

COUNT_SQL = "SELECT COUNT(*) AS n FROM customers"


def old_turn(number: int) -> list:
    """Return the messages of a finished turn as a thread before blocks stored them."""
    call_id = f"call_old_{number}"
    return [
        HumanMessage(f"old question {number}", id=f"h{number}"),
        AIMessage("", tool_calls=[{"name": "run_sql", "args": {"sql": COUNT_SQL}, "id": call_id}]),
        ToolMessage(
            f"result_id: {call_id}\n1 row(s)",
            tool_call_id=call_id,
            name="run_sql",
            artifact={
                "sql": COUNT_SQL,
                "outcome": "ok",
                "result_id": call_id,
                "records": {"columns": ["n"], "rows": [{"n": 5}], "total_row_count": 1},
            },
        ),
        AIMessage(f"old answer {number}", id=f"a{number}"),
    ]


async def test_a_thread_written_before_blocks_gets_them_on_its_next_question(open_service):
    model = ScriptedChatModel(replies=[answer("new answer")])
    config = {"configurable": {"thread_id": "wang1:old"}}
    async with open_service(model) as service:
        graph = service.runner.graph
        await graph.aupdate_state(
            config, {"messages": [*old_turn(1), *old_turn(2)]}, as_node=FORMAT_FINAL_RESPONSE
        )
        assert not (await graph.aget_state(config)).values.get("history_blocks")

        result = await service.runner.ask("new question", "wang1:old")
        blocks = (await graph.aget_state(config)).values["history_blocks"]

    assert result.answer == "new answer"
    assert [block["block_id"] for block in blocks] == ["turn-1", "turn-2", "turn-3"]
    assert blocks[0]["queries"] == [{"sql": COUNT_SQL, "result_id": "call_old_1", "rows": 1}]
    assert blocks[0]["tables"] == ["customers"]
    assert blocks[2]["question"] == "new question" and blocks[2]["queries"] == []
    system = prompt_text(model.seen[0])
    assert "[turn-1]" in system and "old question 1" in system and "[turn-2]" not in system
    assert "old question 2" in [m.content for m in model.seen[0]]


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
async def test_blocks_survive_a_restart(store, request, settings):
    if store == "postgres":
        url = request.getfixturevalue("postgres_database")
        settings = settings.model_copy(update={"checkpoint_database_url": url})
    thread = f"wang1:restart-{store}"
    first = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=COUNT_SQL), answer("5 customers."), answer("hello")]
    )
    async with open_agent(settings, first) as service:
        await service.runner.ask("how many customers", thread)
        await service.runner.ask("hi", thread)
        before = await blocks_of(service, thread)

    second = ScriptedChatModel(replies=[answer("again")])
    async with open_agent(settings, second) as service:
        after = await blocks_of(service, thread)
        await service.runner.ask("what did I ask first?", thread)

    assert [block["block_id"] for block in before] == ["turn-1", "turn-2"]
    assert after == before
    assert before[0]["summary"] == "5 customers." and before[0]["tables"] == ["customers"]
    assert "[turn-1] " in prompt_text(second.seen[0])
    assert "how many customers" in prompt_text(second.seen[0])


def open_agent(settings, model):
    """Open the agent service with a scripted model."""
    return open_agent_service(settings, model=model)


async def blocks_of(service, thread: str) -> list[dict]:
    """Return the blocks stored in a thread's checkpoint."""
    state = await service.runner.graph.aget_state({"configurable": {"thread_id": thread}})
    return state.values.get("history_blocks", [])
