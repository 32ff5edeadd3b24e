"""The answer check on the page: a figure no row supports is marked, live and after a reload."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.app.page.chat_page_support import ServedPage, open_tab
from tests.app.page.test_chat_page import script, served  # noqa: F401 (the module's served app)
from tests.support.openai_stub import DEFAULT_SALES_SQL
from tests.support.scripted_model import answer, call_tool

pytestmark = pytest.mark.asyncio(loop_scope="module")

# 华东 is 781,933.58 in the sample (78.2万); no row says 79.5万 nor 12; 2012 is the question's.
WRONG = "华东最多，约78.2万元；华南为**79.5万**元，比 2012 年多 12 家门店。"
RIGHT = "华东最多，约78.2万元。"


async def test_an_unsupported_figure_is_marked_with_its_reason_and_a_line_says_so(
    served: ServedPage,  # noqa: F811
) -> None:
    question = "2012 年以来各大区销售额，哪里最多？"
    script(served, question, call_tool("run_sql", sql=DEFAULT_SALES_SQL), answer(WRONG))
    tab = await open_tab(served.browser, served.url, bypass_csp=True)
    await tab.ask(question)
    await tab.wait_for_answers(1)

    for _ in range(2):  # live, then read back from the conversation's turns
        marks = tab.hook("answer").get_by_test_id("unsupported-figure")
        # Marked on the rendered text: inside the Markdown's bold, and never inside "2012".
        await expect(marks).to_have_text(["79.5万", "12"])
        await expect(tab.hook("answer").locator("strong mark.unsupported")).to_have_text("79.5万")
        await expect(marks.first).to_have_attribute("title", "查询结果中没有这个数字")
        await expect(tab.hook("answer")).to_have_text(WRONG.replace("**", ""))
        summary = tab.hook("answer-check")
        await expect(summary).to_have_text("⚠2 个数值未在查询结果中找到：79.5万, 12")
        await expect(summary).to_have_attribute("role", "note")
        await expect(tab.hook("answer-repaired")).to_have_count(0)
        assert await tab.axe_serious() == []
        await tab.page.reload()
        await tab.wait_for_answers(1)

    await tab.hook("lang-select").select_option("en-US")
    await expect(marks.first).to_have_attribute("title", "This number is not in the query results")
    english = "⚠2 figures not found in the rows: 79.5万, 12"
    await expect(tab.hook("answer-check")).to_have_text(english)
    await tab.screenshot("answer-check")
    assert tab.errors == []


async def test_an_answer_whose_figures_are_in_the_rows_has_no_mark_and_no_line(
    served: ServedPage,  # noqa: F811
) -> None:
    question = "各大区销售额？"
    script(served, question, call_tool("run_sql", sql=DEFAULT_SALES_SQL), answer(RIGHT))
    tab = await open_tab(served.browser, served.url)
    await tab.ask(question)
    await tab.wait_for_answers(1)
    await expect(tab.hook("answer")).to_have_text(RIGHT)

    await tab.page.reload()
    await tab.wait_for_answers(1)
    await expect(tab.hook("answer")).to_have_text(RIGHT)
    await expect(tab.page.locator("mark")).to_have_count(0)
    await expect(tab.hook("answer-check")).to_have_count(0)
    assert tab.errors == []
