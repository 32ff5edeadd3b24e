"""ANSWER_CHECK=repair with scripted models: one repair turn, never two; on and off never repair."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from react_agent.approval.decisions import ApprovalDecision
from react_agent.graph.node_names import GRAPH_NODES
from react_agent.results.answer_repair import REPAIR_MARKER
from react_agent.runs.events.events import NodeFinished
from react_agent.runs.run_flags import RunFlags
from tests.react_agent.subagents.test_delegate import (
    QUESTION,
    SALES_SQL,
    TOP_SQL,
    delegate_both,
    routed,
    sub_script,
)
from tests.support.openai_stub import DEFAULT_SALES_SQL
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

# 华东 is 781,933.58 in the sample's completed orders; 79.5万 is what no row says.
WRONG = "华东最多，约78.2万元；华南为79.5万元。"
RIGHT = "华东最多，约78.2万元。"
STILL_WRONG = "华东最多，约78.2万元；华南约为79.5万元。"
UNSUPPORTED = [{"text": "79.5万", "reason": "NUMBER_NOT_IN_RESULTS"}]


def script(*final: str) -> ScriptedChatModel:
    """Return a model that runs the sales query, then answers `final` in turn."""
    return ScriptedChatModel(
        replies=[call_tool("run_sql", sql=DEFAULT_SALES_SQL), *(answer(t) for t in final)]
    )


async def test_a_wrong_figure_gets_one_repair_turn_and_the_corrected_answer_is_reported(
    open_service,
):
    model = script(WRONG, RIGHT)
    async with open_service(model, answer_check="repair") as service:
        result = await service.runner.ask("各大区销售额", "rita:1")
        snapshot = await service.runner.graph.aget_state(service.runner.config_for("rita:1"))

    assert result.answer == RIGHT
    check = result.answer_check
    assert check["unsupported"] == [] and check["supported"] == check["checked"] >= 2
    assert check["repaired"] is True and check["before"] == UNSUPPORTED
    assert len(model.seen) == 3  # the query, the first answer, exactly one repair turn
    assert result.execution_path[-4:] == [
        "agent",
        "review_answer",
        "agent",
        "format_final_response",
    ]
    # The request is in the thread, in order, and the repair call read it last.
    request = model.seen[2][-1]
    assert isinstance(request, SystemMessage) and "79.5万" in request.content
    messages = snapshot.values["messages"]
    assert [m.content for m in messages[-3:]] == [WRONG, request.content, RIGHT]
    assert messages[-2].response_metadata[REPAIR_MARKER] is True
    assert result.conversation_rounds == 1  # the request is no question of its own


async def test_a_model_that_stays_wrong_gets_exactly_one_repair_turn(open_service):
    model = script(WRONG, STILL_WRONG)
    model.default = answer(STILL_WRONG)  # a second repair turn would not fail, only count
    async with open_service(model, answer_check="repair") as service:
        result = await service.runner.ask("各大区销售额", "rita:2")

    assert result.answer == STILL_WRONG
    assert result.answer_check["unsupported"] == [
        {"text": "79.5万", "reason": "NUMBER_NOT_IN_RESULTS"}
    ]
    assert result.answer_check["repaired"] is True
    assert result.answer_check["before"] == UNSUPPORTED
    assert len(model.seen) == 3
    assert result.execution_path.count("review_answer") == 1


async def test_a_supported_answer_is_reviewed_but_not_sent_back(open_service):
    model = script(RIGHT)
    async with open_service(model, answer_check="repair") as service:
        result = await service.runner.ask("各大区销售额", "rita:3")

    assert len(model.seen) == 2
    assert result.execution_path[-3:] == ["agent", "review_answer", "format_final_response"]
    assert result.answer_check["unsupported"] == []
    assert "repaired" not in result.answer_check and "before" not in result.answer_check


@pytest.mark.parametrize("mode", ["on", "off"])
async def test_on_and_off_never_repair(open_service, mode: str):
    model = script(WRONG)
    model.default = answer(RIGHT)  # a repair turn would take it, and be seen
    async with open_service(model, answer_check=mode) as service:
        result = await service.runner.ask("各大区销售额", f"rita:{mode}")

    assert len(model.seen) == 2 and result.answer == WRONG
    assert "review_answer" not in result.execution_path
    if mode == "off":
        assert result.answer_check is None
    else:
        assert result.answer_check["unsupported"] == UNSUPPORTED
        assert "repaired" not in result.answer_check


async def test_the_repair_turn_may_query_again_and_its_rows_support_the_new_answer(
    open_service,
):
    # The first answer cites no rows at all; the repair turn reads them, then answers.
    model = ScriptedChatModel(
        replies=[
            answer("华东约为90万元。"),
            call_tool("run_sql", sql=DEFAULT_SALES_SQL),
            answer(RIGHT),
        ]
    )
    async with open_service(model, answer_check="repair") as service:
        result = await service.runner.ask("华东销售额", "rita:4")

    assert result.answer == RIGHT
    assert result.answer_check["unsupported"] == [] and result.answer_check["repaired"] is True
    assert result.answer_check["before"] == [{"text": "90万", "reason": "NUMBER_NOT_IN_RESULTS"}]
    assert result.sql_execution_count == 1 and len(model.seen) == 3


async def test_a_repair_turn_query_under_approval_pauses_and_the_resume_reports_the_repair(
    open_service,
):
    model = ScriptedChatModel(
        replies=[
            answer("华东约为90万元。"),
            call_tool("run_sql", sql=DEFAULT_SALES_SQL),
            answer(RIGHT),
        ]
    )
    async with open_service(model, answer_check="repair") as service:
        run = await service.runner.start("华东销售额", "rita:5", flags=RunFlags(approve_sql=True))
        waiting = await run.result()
        decision = ApprovalDecision(waiting.approval["interrupt_id"], "approve")
        result = await (await service.runner.start("", "rita:5", resume=decision)).result()

    assert waiting.execution_path[-3:] == ["review_answer", "agent", "prepare_tool_input"]
    assert waiting.answer_check is None and waiting.approval["sql"] == DEFAULT_SALES_SQL
    assert result.answer == RIGHT
    assert result.answer_check["repaired"] is True and result.answer_check["unsupported"] == []
    assert result.answer_check["before"] == [{"text": "90万", "reason": "NUMBER_NOT_IN_RESULTS"}]
    assert len(model.seen) == 3


async def test_the_next_question_after_a_repair_starts_with_a_repair_turn_of_its_own(
    open_service,
):
    model = script(WRONG, RIGHT)
    model.replies += [answer("华南为79.5万元。"), answer("华东仍最多。")]
    async with open_service(model, answer_check="repair") as service:
        await service.runner.ask("各大区销售额", "rita:6")
        follow_up = await service.runner.ask("华南呢", "rita:6")

    assert follow_up.answer == "华东仍最多。"
    assert follow_up.answer_check["repaired"] is True
    assert follow_up.conversation_rounds == 2
    # The follow-up's model calls see the question, not the earlier repair request, last.
    assert isinstance(model.seen[3][-1], HumanMessage)
    assert len(model.seen) == 5


async def test_the_repair_graph_declares_the_review_node(open_service):
    # With the candidates too, every node the graph may have (compare_candidates as well).
    model = ScriptedChatModel()
    async with open_service(model, answer_check="repair", answer_candidates="3") as service:
        nodes = set(service.runner.graph.get_graph().nodes) - {"__start__", "__end__"}
    assert nodes == set(GRAPH_NODES)


async def test_the_history_shows_the_repair_request_as_the_services_not_the_models(
    open_service,
):
    model = script(WRONG, RIGHT)
    model.replies += [call_tool("read_history", block_id="turn-1"), answer("好的")]
    async with open_service(model, answer_check="repair") as service:
        await service.runner.ask("各大区销售额", "rita:7")
        await service.runner.ask("第一轮说了什么", "rita:7")

    text = model.seen[-1][-1].content
    assert f"Assistant: {WRONG}\nService: Answer check:" in text
    assert text.rstrip().endswith(f"Assistant: {RIGHT}")


async def test_with_sub_agents_only_the_main_answer_is_reviewed_and_their_rows_count(
    open_service,
):
    # Each sub-agent answers with a figure its rows do not hold: not reviewed, no extra call.
    sales = sub_script(SALES_SQL, "七个地区，约88万元")
    top = sub_script(TOP_SQL, "三个产品，共99件")
    parent = [delegate_both(), answer("共7个地区，销售额约88万元。"), answer("共7个地区。")]
    model = routed(parent, sales, top)
    async with open_service(model, answer_check="repair") as service:
        run = await service.runner.start(QUESTION, "rita:8")
        result = await run.result()

    assert result.answer == "共7个地区。"  # 7: the sub-agent's region rows
    assert result.answer_check["unsupported"] == [] and result.answer_check["repaired"] is True
    assert result.answer_check["before"] == [{"text": "88万", "reason": "NUMBER_NOT_IN_RESULTS"}]
    assert len(model.parent.seen) == 3 and len(sales.seen) == 2 and len(top.seen) == 2
    reviews = [e for e in run.events if isinstance(e, NodeFinished) and e.node == "review_answer"]
    assert [(e.subagent, e.answer_repair["unsupported"][0]["text"]) for e in reviews] == [
        (None, "88万")
    ]


async def test_without_steps_left_for_a_repair_turn_the_first_answer_stands_as_checked(
    open_service,
):
    # 14 steps: the answer comes at step 6, and a repair turn with a query needs 9 more.
    model = script(WRONG)
    model.default = answer(RIGHT)
    async with open_service(model, answer_check="repair", recursion_limit=14) as service:
        result = await service.runner.ask("各大区销售额", "rita:9")

    assert result.answer == WRONG and len(model.seen) == 2
    assert "review_answer" not in result.execution_path
    assert result.answer_check["unsupported"] == UNSUPPORTED
    assert "repaired" not in result.answer_check
