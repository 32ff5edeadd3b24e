"""The candidates on the page: "3 of 3 queries agree", or the disagreement with each one's SQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import expect

from config import Settings
from tests.app.page.chat_page_support import ServedPage, chromium, open_tab, skip_without_browser
from tests.support.candidate_scripts import ALL_ORDERS_SQL, SAME_SQL, fenced
from tests.support.live_server import running_service
from tests.support.openai_stub import DEFAULT_SALES_SQL
from tests.support.routed_model import RoutedChatModel
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

pytestmark = pytest.mark.asyncio(loop_scope="module")

RIGHT = "华东最多，约78.2万元。"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServedPage]:
    """One app with three candidates per answer, and one Chromium, for the module."""
    skip_without_browser()
    data_dir: Path = tmp_path_factory.mktemp("candidates_page")
    settings = Settings(
        _env_file=None,
        data_dir=data_dir,
        checkpoint_database_url=f"sqlite:///{data_dir / 'checkpoints.db'}",
        openai_api_key=None,
        openai_base_url=None,
        run_timeout=30,
        stream_resume_grace=0.0,
        answer_candidates="3",
    )
    # The candidate writer's requests start with the same question: one script each.
    model = RoutedChatModel(parent=ScriptedChatModel(default=answer("?")))
    async with running_service(settings, model=model) as service, chromium() as browser:
        yield ServedPage(service.base_url, browser, model)


def script(served: ServedPage, question: str, *replies) -> None:
    served.model.routes[question] = ScriptedChatModel(replies=list(replies))


async def test_candidates_that_agree_are_one_quiet_line(served: ServedPage) -> None:
    question = "各大区销售额？"
    script(
        served,
        question,
        call_tool("run_sql", sql=DEFAULT_SALES_SQL),
        answer(RIGHT),
        answer(fenced(SAME_SQL)),  # the writer's request with n: the scripted model gives one
        answer(fenced(DEFAULT_SALES_SQL)),
    )
    tab = await open_tab(served.browser, served.url)
    await tab.ask(question)
    await tab.wait_for_answers(1)

    for _ in range(2):  # live, then read back from the conversation's turns
        await expect(tab.hook("answer")).to_have_text(RIGHT)
        summary = tab.hook("confidence-summary")
        await expect(summary).to_have_text("⚖️ 3 / 3 条独立写出的查询结果一致")
        await expect(tab.hook("confidence")).not_to_have_attribute("open", "")
        await tab.page.reload()
        await tab.wait_for_answers(1)
    await tab.hook("lang-select").select_option("en-US")
    await expect(tab.hook("confidence-summary")).to_have_text("⚖️ 3 of 3 queries agree")
    assert tab.errors == []


async def test_a_majority_against_the_agent_restates_the_answer_and_lists_every_candidate(
    served: ServedPage,
) -> None:
    question = "各大区的销售额？"
    script(
        served,
        question,
        call_tool("run_sql", sql=ALL_ORDERS_SQL),
        answer("华东最多，约100万元。"),
        answer(fenced(SAME_SQL)),
        answer(fenced(DEFAULT_SALES_SQL)),
        answer(RIGHT),  # the agent again, from the majority's rows
    )
    tab = await open_tab(served.browser, served.url, bypass_csp=True)  # axe's script
    await tab.ask(question)
    await tab.wait_for_answers(1)

    # Only the restated answer, with its line: the first was dropped, not run together.
    answer_text = await tab.hook("answer").inner_text()
    assert answer_text.startswith(RIGHT) and "100万" not in answer_text
    assert "3 条独立写出的查询中有 2 条结果一致" in answer_text
    box = tab.hook("confidence")
    await expect(box).to_have_attribute("open", "")
    await expect(tab.hook("confidence-summary")).to_have_text(
        "⚖️ 3 条独立写出的查询中 2 条结果一致，其余不同"
    )
    await expect(tab.hook("candidate")).to_have_count(3)
    await expect(tab.hook("candidate-sql")).to_have_count(3)
    await expect(tab.hook("candidate").first).to_contain_text("原查询")
    await expect(tab.hook("candidate").nth(1)).to_contain_text("（回答依据）")
    assert await tab.axe_serious() == []
    assert tab.errors == []
