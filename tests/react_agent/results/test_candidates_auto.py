"""ANSWER_CANDIDATES=auto weighs only answers with a reason to doubt them; approval: never."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from config import Settings
from react_agent.approval.decisions import ApprovalDecision
from react_agent.runs.run_flags import RunFlags
from react_agent.service.assembly import open_agent_service
from react_agent.service.state import AgentService
from tests.support.candidate_scripts import SAME_SQL, ByRole, agent_script, fenced
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub, Reply

RIGHT = "华东最多，约78.2万元。"
WRONG_FIGURE = "华东最多，约78.2万元；华南为79.5万元。"  # 79.5万 is in no row
NO_ROWS_SQL = "SELECT region_name FROM regions WHERE region_name = '火星'"
TOP_WITHOUT_ORDER = "SELECT product_name, unit_price FROM products LIMIT 3"


@pytest.fixture
async def auto_service(candidate_settings: Settings) -> AsyncIterator[AgentService]:
    settings = candidate_settings.model_copy(update={"answer_candidates": "auto"})
    async with open_agent_service(settings) as opened:
        yield opened


@pytest.mark.parametrize(
    ("question", "sql", "answer", "trigger"),
    [
        ("各大区销售额", DEFAULT_SALES_SQL, WRONG_FIGURE, "unsupported"),
        ("火星大区有哪些", NO_ROWS_SQL, "没有这个大区。", "no_rows"),
        ("单价最高的3个产品", TOP_WITHOUT_ORDER, "见下表。", "lint"),
    ],
)
async def test_auto_weighs_an_answer_with_a_reason_to_doubt_it(
    auto_service: AgentService,
    stub: OpenAIStub,
    question: str,
    sql: str,
    answer: str,
    trigger: str,
):
    policy = ByRole(
        agent_script(sql, answer), [Reply(text=fenced(sql), more_choices=[fenced(sql)])]
    )
    stub.default_policy = policy
    result = await auto_service.runner.ask(question, f"auto:{trigger}")

    assert result.confidence is not None
    assert result.confidence["trigger"] == trigger
    assert (result.confidence["candidates"], result.confidence["agreeing"]) == (3, 3)
    assert len(policy.candidate_requests) == 1


async def test_auto_leaves_an_answer_without_a_reason_to_doubt_it(
    auto_service: AgentService,
    stub: OpenAIStub,
):
    policy = ByRole(agent_script(DEFAULT_SALES_SQL, RIGHT), [])
    stub.default_policy = policy
    result = await auto_service.runner.ask("各大区销售额", "auto:none")

    assert result.confidence is None
    assert policy.candidate_requests == []
    assert "compare_candidates" not in result.execution_path


async def test_an_answer_without_a_query_has_no_candidates_even_when_always_on(
    candidate_settings: Settings,
    stub: OpenAIStub,
):
    policy = ByRole([Reply(text="你好！")], [])
    stub.default_policy = policy
    async with open_agent_service(candidate_settings) as service:
        result = await service.runner.ask("你好", "auto:chat")

    assert result.confidence is None and policy.candidate_requests == []


async def test_a_run_whose_queries_wait_for_approval_writes_no_candidates(
    candidate_settings: Settings,
    stub: OpenAIStub,
):
    # ANSWER_CANDIDATES=3 would weigh every answer, but candidates would run unapproved SQL.
    policy = ByRole(agent_script(DEFAULT_SALES_SQL, RIGHT), [Reply(text=fenced(SAME_SQL))] * 2)
    stub.default_policy = policy
    async with open_agent_service(candidate_settings) as service:
        run = await service.runner.start(
            "各大区销售额", "auto:approval", flags=RunFlags(approve_sql=True)
        )
        waiting = await run.result()
        decision = ApprovalDecision(waiting.approval["interrupt_id"], "approve")
        result = await (await service.runner.start("", "auto:approval", resume=decision)).result()

    assert result.answer == RIGHT
    assert result.confidence is None and policy.candidate_requests == []
