"""The graph with scripted models: tools, corrections, the step limit, trimming, history."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from config import localize, node_display
from config.display import load_display_map
from react_agent.errors import ServiceError
from react_agent.graph.node_names import COMPARE_CANDIDATES, GRAPH_NODES, REVIEW_ANSWER
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

REGION_SALES_SQL = (
    "SELECT r.region_name AS region, ROUND(SUM(o.total_amount), 2) AS sales "
    "FROM orders o JOIN stores s ON s.store_id = o.store_id "
    "JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name ORDER BY sales DESC"
)


async def test_graph_declares_exactly_the_named_nodes_each_with_a_display_entry(sample_service):
    service, _ = sample_service
    graph_nodes = set(service.runner.graph.get_graph().nodes) - {"__start__", "__end__"}
    # review_answer is only in ANSWER_CHECK=repair's graph, compare_candidates only with
    # ANSWER_CANDIDATES (the suite's default is off; tests/react_agent/results).
    assert graph_nodes == set(GRAPH_NODES) - {REVIEW_ANSWER, COMPARE_CANDIDATES}
    for lang, entries in load_display_map().items():
        for node in (*GRAPH_NODES, "__start__", "__end__"):
            assert node in entries, f"{node} has no display entry in {lang}"
    assert node_display("no_such_node", "en-US")["display_name"] == "Working"


async def test_run_sql_tool_result_reaches_the_answer_with_its_sql_and_rows(sample_service):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SALES_SQL + ";"), answer("华东最高")]

    result = await service.runner.ask("每个地区的销售额是多少", "wang1:1")

    assert result.answer == "华东最高"
    assert result.sql == REGION_SALES_SQL  # the trailing semicolon was tidied away
    assert result.records["columns"] == ["region", "sales"]
    assert len(result.records["rows"]) == 7
    assert result.records["total_row_count"] == 7 and result.records["is_limited"] is False
    assert result.tools_used == ["run_sql"]
    assert result.sql_execution_count == 1
    assert result.execution_path == [
        "trim_messages",
        "agent",
        "prepare_tool_input",
        "tools",
        "update_state_after_tool",
        "agent",
        "format_final_response",
    ]
    tool_result = next(m for m in model.seen[1] if isinstance(m, ToolMessage))
    assert "7 row(s)" in tool_result.content and "华东" in tool_result.content


async def test_model_sees_a_failing_query_error_and_its_corrected_query_is_the_one_reported(
    sample_service,
):
    service, model = sample_service
    model.replies = [
        call_tool("run_sql", sql="SELECT region FROM regions"),
        call_tool("run_sql", sql="SELECT region_name FROM regions"),
        answer("七个地区"),
    ]

    result = await service.runner.ask("有哪些地区", "wang1:2")

    error = [m for m in model.seen[1] if isinstance(m, ToolMessage)][-1]
    assert error.status == "error" and "no such column: region" in error.content
    assert result.sql == "SELECT region_name FROM regions"
    assert result.sql_execution_count == 2
    assert result.tools_used == ["run_sql", "run_sql"]


async def test_discovery_tools_describe_the_sample_tables(sample_service):
    service, model = sample_service
    model.replies = [
        call_tool("list_tables"),
        call_tool("describe_tables", table_names=["orders", "missing_table"]),
        call_tool("check_sql", sql="SELECT nope FROM orders"),
        answer("ok"),
    ]

    result = await service.runner.ask("表结构", "wang1:3")

    tool_texts = [m.content for m in model.seen[3] if isinstance(m, ToolMessage)]
    assert "orders (" in tool_texts[0] and "order_items" in tool_texts[0]
    assert "total_amount" in tool_texts[1] and "No such table: missing_table" in tool_texts[1]
    assert tool_texts[2].startswith("Error:") and "nope" in tool_texts[2]
    assert result.sql is None and result.records is None and result.sql_execution_count == 0


async def test_unknown_tool_goes_back_to_the_model_as_an_error(sample_service):
    service, model = sample_service
    model.replies = [call_tool("drop_everything", table="orders"), answer("sorry")]

    result = await service.runner.ask("hi", "wang1:4")

    error = next(m for m in model.seen[1] if isinstance(m, ToolMessage))
    assert error.status == "error" and "drop_everything is not a valid tool" in error.content
    assert result.answer == "sorry"


async def test_step_limit_ends_with_a_clear_answer_and_leaves_the_thread_usable(open_service):
    looping = ScriptedChatModel(default=call_tool("run_sql", sql="SELECT 1"))
    async with open_service(looping, recursion_limit=14) as service:
        result = await service.runner.ask("loop forever", "wang1:5")
        assert result.answer == localize("STEP_LIMIT_ANSWER", None)
        rounds = result.tools_used.count("run_sql")
        assert rounds >= 1 and len(result.execution_path) <= 14

        looping.default = answer("fine now")
        second = await service.runner.ask("and now?", "wang1:5")
        assert second.answer == "fine now"
        # Every tool call in the history the model saw has its result.
        seen = looping.seen[-1]
        call_ids = {c["id"] for m in seen if isinstance(m, AIMessage) for c in m.tool_calls}
        result_ids = {m.tool_call_id for m in seen if isinstance(m, ToolMessage)}
        assert call_ids <= result_ids


ONE_TOOL_ROUND = [
    "agent",
    "prepare_tool_input",
    "tools",
    "update_state_after_tool",
]


@pytest.mark.parametrize(
    ("recursion_limit", "tool_rounds"),
    [
        # At the second agent step remaining_steps is 5, the router's boundary
        # (STEPS_PER_TOOL_ROUND + 1): it answers instead of starting another round.
        (11, 1),
        # One step more (6 remain) and it takes the tools again; the run still ends in an answer.
        (12, 2),
    ],
)
async def test_router_takes_another_tool_round_only_while_it_and_the_answer_fit(
    open_service, recursion_limit, tool_rounds
):
    looping = ScriptedChatModel(default=call_tool("run_sql", sql="SELECT 1"))
    async with open_service(looping, recursion_limit=recursion_limit) as service:
        result = await service.runner.ask("loop forever", f"wang1:limit{recursion_limit}")

    assert result.execution_path == [
        "trim_messages",
        *ONE_TOOL_ROUND * tool_rounds,
        "agent",
        "format_final_response",
    ]
    assert len(result.execution_path) <= recursion_limit
    assert result.answer == localize("STEP_LIMIT_ANSWER", None)
    assert result.sql_execution_count == tool_rounds


async def test_trim_messages_shows_the_model_only_the_newest_whole_turns(open_service):
    model = ScriptedChatModel(default=answer("ok"))
    async with open_service(model, trim_max_turns=2) as service:
        for n in range(1, 4):
            await service.runner.ask(f"question {n}", "wang1:6")

        shown = [m.content for m in model.seen[-1] if isinstance(m, HumanMessage)]
        assert shown == ["question 2", "question 3"]
        state = await service.runner.graph.aget_state(service.runner.config_for("wang1:6"))
        kept = [m.content for m in state.values["messages"] if isinstance(m, HumanMessage)]
        assert kept == ["question 1", "question 2", "question 3"]


async def test_trim_messages_drops_old_turns_over_the_token_budget_but_keeps_the_current_one(
    open_service,
):
    model = ScriptedChatModel(default=answer("ok"))
    async with open_service(model, trim_max_turns=50, trim_max_tokens=500) as service:
        await service.runner.ask("long " * 600, "wang1:7")
        await service.runner.ask("short question", "wang1:7")
        await service.runner.ask("another " * 600, "wang1:7")

        shown = [m.content for m in model.seen[-1] if isinstance(m, HumanMessage)]
        assert shown == ["another " * 600]  # over budget alone, but the current turn stays
        shown_before = [m.content for m in model.seen[-2] if isinstance(m, HumanMessage)]
        assert shown_before == ["short question"]


async def test_second_question_sees_the_first_and_reports_only_its_own_sql(sample_service):
    service, model = sample_service
    model.replies = [
        call_tool("run_sql", sql="SELECT COUNT(*) AS n FROM orders"),
        answer("4000 orders"),
        answer("you asked about orders"),
    ]
    await service.runner.ask("how many orders", "wang1:8")
    second = await service.runner.ask("what did I ask?", "wang1:8")

    assert "how many orders" in [m.content for m in model.seen[-1]]
    assert second.sql is None and second.records is None and second.tools_used == []
    assert second.conversation_rounds == 2
    assert second.total_messages == 6


async def test_a_second_question_on_a_running_thread_is_refused_with_409(sample_service):
    service, model = sample_service
    gate = asyncio.Event()
    entered = asyncio.Event()
    model.gates[0], model.entered[0] = gate, entered
    model.replies = [answer("first"), answer("other thread")]

    first = await service.runner.start("slow", "wang1:9")
    await entered.wait()
    with pytest.raises(ServiceError) as refused:
        await service.runner.start("again", "wang1:9")
    assert refused.value.status == 409 and refused.value.error_type == "THREAD_BUSY"
    gate.set()
    assert (await first.outcome()).answer == "first"
    assert (await service.runner.ask("now free", "wang1:9")).answer == "other thread"


async def test_an_interrupted_turn_is_closed_before_the_next_question(sample_service):
    service, model = sample_service
    gate = asyncio.Event()
    model.gates[1] = gate
    entered = asyncio.Event()
    model.entered[1] = entered
    model.replies = [call_tool("run_sql", sql="SELECT 1 AS one"), answer("never"), answer("ok")]

    run = await service.runner.start("will be cancelled", "wang1:10")
    await entered.wait()
    run.cancel()
    with pytest.raises(ServiceError) as cancelled:
        await run.outcome()
    assert cancelled.value.error_type == "RUN_CANCELLED"

    # The cancelled call never produced a reply, so the next question gets reply 1.
    model.replies[1] = answer("after the interruption")
    gate.set()
    result = await service.runner.ask("next", "wang1:10")
    assert result.answer == "after the interruption"
    history = model.seen[-1]
    interrupted = localize("INTERRUPTED_ANSWER", None)
    assert any(isinstance(m, AIMessage) and m.content == interrupted for m in history)
    call_ids = {c["id"] for m in history if isinstance(m, AIMessage) for c in m.tool_calls}
    assert call_ids <= {m.tool_call_id for m in history if isinstance(m, ToolMessage)}


async def test_model_errors_become_typed_service_errors(sample_service):
    service, model = sample_service
    model.replies = [RuntimeError("boom")]
    with pytest.raises(ServiceError) as failed:
        await service.runner.ask("hi", "wang1:11")
    assert failed.value.status == 500 and failed.value.error_type == "AGENT_FAILED"
    assert "boom" in failed.value.detail


async def test_message_counts_read_from_updates_match_the_checkpoint(open_service):
    model = ScriptedChatModel(
        replies=[
            call_tool("run_sql", sql="SELECT 1 AS one;"),  # tidied: the message is replaced
            answer("one"),
            answer(""),  # empty: replaced by the localized text
            call_tool("run_sql", sql="SELECT 2 AS two"),
        ],
        default=call_tool("run_sql", sql="SELECT 3 AS three"),
    )
    async with open_service(model, recursion_limit=12) as service:
        for question in ("first", "second", "third (hits the step limit)"):
            result = await service.runner.ask(question, "wang1:counts")
            state = await service.runner.graph.aget_state(service.runner.config_for("wang1:counts"))
            messages = state.values["messages"]
            assert result.total_messages == len(messages)
            assert result.conversation_rounds == sum(isinstance(m, HumanMessage) for m in messages)
            assert result.answer == state.values["final_answer"]
            assert result.sql == state.values.get("sql")
            assert result.tools_used == state.values["tools_used"]
