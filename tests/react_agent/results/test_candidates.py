"""ANSWER_CANDIDATES with ChatOpenAI over HTTP: candidates that agree, split 2-1, all differ."""

from __future__ import annotations

from langchain_core.messages import SystemMessage

from config import Settings
from react_agent.results.candidates import CANDIDATES_MARKER
from react_agent.runs.run_flags import RunFlags
from react_agent.service.assembly import open_agent_service
from react_agent.service.state import AgentService
from tests.support.candidate_scripts import (
    ALL_ORDERS_SQL,
    COUNT_SQL,
    SAME_SQL,
    ByRole,
    agent_script,
    fenced,
)
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub, Reply, ToolCall

QUESTION = "各大区销售额"


async def test_three_candidates_that_agree_leave_the_answer_as_written(
    service: AgentService, stub: OpenAIStub
):
    # The server honours n: the two other candidates come in one request.
    policy = ByRole(
        agent_script(DEFAULT_SALES_SQL, "华东最多，约78.2万元。"),
        [Reply(text=fenced(SAME_SQL), more_choices=[fenced(DEFAULT_SALES_SQL)])],
    )
    stub.default_policy = policy
    result = await service.runner.ask(QUESTION, "cand:agree")

    assert result.answer == "华东最多，约78.2万元。"  # no note: nothing disagreed
    confidence = result.confidence
    assert confidence is not None
    assert (confidence["candidates"], confidence["agreeing"]) == (3, 3)
    assert confidence["method"] == "execution_match"
    assert (confidence["outcome"], confidence["sampling"]) == ("agreed", "n")
    assert [q["status"] for q in confidence["queries"]] == ["ok", "ok", "ok"]
    assert {q["group"] for q in confidence["queries"]} == {0}
    assert len(policy.candidate_requests) == 1 and policy.candidate_requests[0]["n"] == 2
    assert confidence["model_calls"] == 1 and confidence["usage"]["total_tokens"] > 0
    # The writer never reads the agent's query: its candidates are its own. It reads the
    # tables as list_tables shows them, and the columns' types of those the agent read.
    writer_prompt = str(policy.candidate_requests[0]["messages"])
    assert "o.status = '已完成' GROUP BY r.region_name ORDER BY sales" not in writer_prompt
    system = policy.candidate_requests[0]["messages"][0]["content"]
    assert "customers (" in system and "regions (" in system
    assert "total_amount REAL" in system or "total_amount NUMERIC" in system
    assert policy.candidate_requests[0]["messages"][-1]["content"] == QUESTION
    assert "compare_candidates" in result.execution_path
    # Each candidate ran against the database: the agent's one plus two.
    assert result.sql_execution_count == 3


async def test_a_two_to_one_majority_against_the_agent_answers_from_the_majority(
    service: AgentService, stub: OpenAIStub
):
    # The server ignores n: one choice comes back, and the other is asked for apart.
    policy = ByRole(
        agent_script(ALL_ORDERS_SQL, "华东最多。", "华东最多，约78.2万元。"),
        [Reply(text=fenced(SAME_SQL)), Reply(text=fenced(DEFAULT_SALES_SQL))],
    )
    stub.default_policy = policy
    result = await service.runner.ask(QUESTION, "cand:overturned")
    snapshot = await service.runner.graph.aget_state(service.runner.config_for("cand:overturned"))

    confidence = result.confidence
    assert (confidence["candidates"], confidence["agreeing"]) == (3, 2)
    assert (confidence["outcome"], confidence["sampling"]) == ("majority", "parallel")
    assert [q["answers"] for q in confidence["queries"]] == [False, True, True]
    assert len(policy.candidate_requests) == 2 and policy.candidate_requests[0].get("n") == 2
    assert confidence["model_calls"] == 2
    # The agent answered again from the majority's rows, told why; the answer says 2 of 3.
    assert len(policy.agent_requests) == 3
    told = policy.agent_requests[2]["messages"]
    assert "2 of 3 agree" in str(told[-1]["content"])
    assert result.answer.startswith("华东最多，约78.2万元。")
    assert "3 条独立写出的查询中有 2 条结果一致" in result.answer
    # The answer's SQL and rows are the majority's, and the thread shows why.
    assert result.sql in (SAME_SQL, DEFAULT_SALES_SQL)
    assert result.records["rows"][0]["region_name" if result.sql == SAME_SQL else "region"]
    marked = [
        m
        for m in snapshot.values["messages"]
        if isinstance(m, SystemMessage) and m.response_metadata.get(CANDIDATES_MARKER)
    ]
    assert len(marked) == 1
    assert result.execution_path.count("compare_candidates") == 1
    assert snapshot.values["messages"][-1].content == result.answer


async def test_a_majority_with_the_agent_keeps_its_answer_and_says_one_differed(
    service: AgentService, stub: OpenAIStub
):
    policy = ByRole(
        agent_script(DEFAULT_SALES_SQL, "华东最多，约78.2万元。"),
        [Reply(text=fenced(SAME_SQL), more_choices=[fenced(ALL_ORDERS_SQL)])],
    )
    stub.default_policy = policy
    result = await service.runner.ask(QUESTION, "cand:kept", lang="en-US")

    assert (result.confidence["agreeing"], result.confidence["outcome"]) == (2, "majority")
    assert len(policy.agent_requests) == 2  # no second answer
    assert result.sql == DEFAULT_SALES_SQL
    assert result.answer.startswith("华东最多，约78.2万元。\n\n⚖️ 2 of 3 independently")


async def test_candidates_that_all_differ_are_a_split_the_answer_says(
    service: AgentService, stub: OpenAIStub
):
    policy = ByRole(
        agent_script(DEFAULT_SALES_SQL, "华东最多，约78.2万元。"),
        [Reply(text=fenced(ALL_ORDERS_SQL), more_choices=[fenced(COUNT_SQL)])],
    )
    stub.default_policy = policy
    result = await service.runner.ask(QUESTION, "cand:split")

    confidence = result.confidence
    assert (confidence["candidates"], confidence["agreeing"]) == (3, 1)
    assert confidence["outcome"] == "split"
    assert [q["group"] for q in confidence["queries"]] == [0, 1, 2]
    assert result.sql == DEFAULT_SALES_SQL  # the agent's own reading answers
    assert "3 条独立写出的查询结果不一致" in result.answer


async def test_a_split_with_clarification_on_is_asked_back(
    candidate_settings: Settings, stub: OpenAIStub
):
    ask = ToolCall("ask_user", {"question": "销售额按哪些订单算？", "options": ["已完成", "全部"]})
    policy = ByRole(
        [*agent_script(DEFAULT_SALES_SQL, "华东最多，约78.2万元。"), Reply(tool_calls=[ask])],
        [Reply(text=fenced(ALL_ORDERS_SQL), more_choices=[fenced(COUNT_SQL)])],
    )
    stub.default_policy = policy
    settings = candidate_settings.model_copy(update={"clarify": "on"})
    async with open_agent_service(settings) as service:
        run = await service.runner.start(QUESTION, "cand:ask", flags=RunFlags(clarify=True))
        result = await run.result()

    assert result.approval is not None and result.approval["kind"] == "clarification"
    assert result.confidence["outcome"] == "asked"
    told = policy.agent_requests[2]["messages"][-1]["content"]
    assert "ask_user" in told and "3 different results" in told


async def test_a_candidate_without_sql_or_refused_agrees_with_none(
    service: AgentService, stub: OpenAIStub
):
    policy = ByRole(
        agent_script(DEFAULT_SALES_SQL, "华东最多，约78.2万元。"),
        [Reply(text="I cannot tell.", more_choices=[fenced("DELETE FROM orders")])],
    )
    stub.default_policy = policy
    result = await service.runner.ask(QUESTION, "cand:failed")

    confidence = result.confidence
    assert [q["status"] for q in confidence["queries"]] == ["ok", "no_sql", "refused"]
    assert (confidence["agreeing"], confidence["outcome"]) == (1, "unconfirmed")
    assert result.answer == "华东最多，约78.2万元。"  # nothing disagreed: no note


async def test_a_split_the_agent_was_to_ask_about_but_answered_is_said_like_any_split(
    candidate_settings: Settings, stub: OpenAIStub
):
    policy = ByRole(
        agent_script(DEFAULT_SALES_SQL, "华东最多，约78.2万元。", "华东最多。"),
        [Reply(text=fenced(ALL_ORDERS_SQL), more_choices=[fenced(COUNT_SQL)])],
    )
    stub.default_policy = policy
    settings = candidate_settings.model_copy(update={"clarify": "on"})
    async with open_agent_service(settings) as service:
        run = await service.runner.start(QUESTION, "cand:unasked", flags=RunFlags(clarify=True))
        result = await run.result()

    assert result.approval is None
    assert result.confidence["outcome"] == "split"
    assert result.answer.startswith("华东最多。\n\n⚖️ 3 条独立写出的查询结果不一致")


async def test_a_follow_ups_writer_reads_the_earlier_question_and_answer(
    service: AgentService, stub: OpenAIStub
):
    agree = Reply(text=fenced(SAME_SQL), more_choices=[fenced(DEFAULT_SALES_SQL)])
    policy = ByRole(
        [
            *agent_script(DEFAULT_SALES_SQL, "华东最多，约78.2万元。"),
            *agent_script(DEFAULT_SALES_SQL, "仍是华东。"),
        ],
        [agree, agree],
    )
    stub.default_policy = policy
    await service.runner.ask(QUESTION, "cand:follow")
    result = await service.runner.ask("那么按完成订单算呢？", "cand:follow")

    assert result.confidence["agreeing"] == 3
    roles = [(m["role"], m["content"]) for m in policy.candidate_requests[1]["messages"][1:]]
    assert roles == [
        ("user", QUESTION),
        ("assistant", "华东最多，约78.2万元。"),
        ("user", "那么按完成订单算呢？"),
    ]


async def test_a_writer_whose_calls_fail_leaves_the_answer_as_it_was(
    service: AgentService, stub: OpenAIStub
):
    # The request with n fails, then each call asked apart: three failed requests.
    policy = ByRole(
        agent_script(DEFAULT_SALES_SQL, "华东最多，约78.2万元。"), [Reply(status=500)] * 3
    )
    stub.default_policy = policy
    result = await service.runner.ask(QUESTION, "cand:down")

    assert result.answer == "华东最多，约78.2万元。"
    confidence = result.confidence
    assert [q["status"] for q in confidence["queries"]] == ["ok", "model_error", "model_error"]
    assert (confidence["outcome"], confidence["model_calls"]) == ("unconfirmed", 3)
    assert len(policy.candidate_requests) == 3
