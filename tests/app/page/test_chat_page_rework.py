"""Reworking a question and charts that help, in Chromium at 1280×900."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import pytest
import pytest_asyncio
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from playwright.async_api import expect

from tests.app.page.chat_page_support import ServedPage, chromium, open_tab, skip_without_browser
from tests.app.page.test_chat_page_weight import settings_in
from tests.support.live_server import running_service
from tests.support.routed_model import RoutedChatModel
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

pytestmark = pytest.mark.asyncio(loop_scope="module")

REGIONS_SQL = (
    "SELECT region_name AS 地区, COUNT(*) AS 门店数 FROM stores JOIN regions USING (region_id) "
    "GROUP BY region_name"
)
COUNT_SQL = "SELECT COUNT(*) AS n FROM regions"
ORDERS_AND_SALES_SQL = (
    "SELECT r.region_name AS 地区, COUNT(*) AS 订单数, ROUND(SUM(o.total_amount), 2) AS 销售额 "
    "FROM orders o JOIN stores s USING (store_id) JOIN regions r USING (region_id) "
    "GROUP BY r.region_name"
)
WIDE_SQL = "SELECT s.*, r.* FROM stores s JOIN regions r USING (region_id)"
CHART_OPTION = """(el) => {
  const option = echarts.getInstanceByDom(el).getOption();
  return {yAxes: option.yAxis.length, series: option.series.map((s) => [s.name, s.yAxisIndex])};
}"""


REPLIES: dict[str, list[Any]] = {}
"""Question → the model's replies while it is the newest question, in order."""


def reply_to_newest_question(messages: list[BaseMessage]) -> AIMessage:
    """Play the next reply scripted for the conversation's newest question."""
    newest = [m for m in messages if isinstance(m, HumanMessage)][-1].content
    queue = REPLIES.get(str(newest))
    return queue.pop(0) if queue else answer("好的。")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServedPage]:
    """One app and one Chromium for the module; each test scripts its own questions."""
    skip_without_browser()
    model = RoutedChatModel(parent=ScriptedChatModel(default=reply_to_newest_question))
    settings = settings_in(tmp_path_factory.mktemp("chat_rework"))
    async with running_service(settings, model=model) as service, chromium() as browser:
        yield ServedPage(service.base_url, browser, model, service)


def stream_bodies(requests: list[Any]) -> list[dict[str, Any]]:
    """Return the JSON bodies the page POSTed to the stream endpoint, in order."""
    return [
        json.loads(r.post_data)
        for r in requests
        if "ask_react_agent_stream" in r.url and r.method == "POST"
    ]


async def test_edit_and_resend_regenerate_and_edit_sql_then_run_each_make_a_new_turn(
    served: ServedPage,
) -> None:
    first = "各地区门店数？"
    REPLIES[first] = [
        call_tool("run_sql", sql=REGIONS_SQL),
        answer("第一次：华东最多。"),
        answer("重新生成的回答。"),
        call_tool("run_sql", sql=REGIONS_SQL),  # the model's SQL; the person's runs instead
        answer("地区一共 7 个。"),
    ]
    REPLIES["各地区门店数，按多到少？"] = [answer("改过的问题的回答。")]
    tab = await open_tab(served.browser, served.url)
    await tab.ask(first)
    await tab.wait_for_answers(1)
    turns = tab.hook("turn")

    await turns.nth(0).get_by_test_id("edit-question").click()
    editor = tab.hook("edit-question-form-text")
    await expect(editor).to_have_value(first)
    await editor.fill("各地区门店数，按多到少？")
    await tab.hook("edit-question-form-send").click()
    await tab.wait_for_answers(2)
    edited = turns.nth(1)
    await expect(edited.get_by_test_id("turn-question")).to_have_text("各地区门店数，按多到少？")
    await expect(edited.get_by_test_id("answer")).to_have_text("改过的问题的回答。")
    await expect(turns.nth(0).get_by_test_id("answer")).to_have_text("第一次：华东最多。")  # kept

    await turns.nth(0).get_by_test_id("regenerate").click()
    await tab.wait_for_answers(3)
    await expect(turns.nth(2).get_by_test_id("turn-question")).to_have_text(first)
    await expect(turns.nth(2).get_by_test_id("answer")).to_have_text("重新生成的回答。")

    await turns.nth(0).get_by_test_id("edit-sql").click()
    await tab.hook("sql-run-text").fill(COUNT_SQL)
    await tab.hook("sql-run-send").click()
    await tab.wait_for_answers(4)
    await expect(turns.nth(3).get_by_test_id("answer")).to_have_text("地区一共 7 个。")
    await expect(turns.nth(3).get_by_test_id("sql")).to_contain_text("COUNT(*) AS n")
    await expect(tab.hook("approval-card")).to_be_hidden()

    bodies = stream_bodies(tab.requests)
    assert [b.get("question") for b in bodies[:4]] == [
        first,
        "各地区门店数，按多到少？",
        first,
        first,
    ]
    # The person's SQL went through the approval path as an edit: the same guard checked it.
    assert bodies[3]["approve_sql"] is True
    assert bodies[4]["resume"]["action"] == "edit" and bodies[4]["resume"]["sql"] == COUNT_SQL
    assert len({b.get("thread_id") for b in bodies[1:]}) == 1  # all in the one conversation
    assert tab.errors == []


async def test_two_measures_far_apart_get_an_axis_each_a_picker_and_a_data_table(
    served: ServedPage,
) -> None:
    question = "各地区订单数和销售额"
    served.model.routes[question] = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=ORDERS_AND_SALES_SQL), answer("见图。")]
    )
    tab = await open_tab(served.browser, served.url)
    await tab.ask(question)
    await tab.wait_for_answers(1)
    chart = tab.hook("chart")
    # First a picture drawn in a worker (no ECharts on the page, no handlers for a scroll to
    # wait on); a picker draws it again.
    picture = chart.locator("img")
    await expect(picture).to_have_count(1)
    assert await chart.locator("canvas").count() == 0
    orders_drawn = chart.locator(f'img[src*="{quote("订单数")}"]')  # in the legend and axis
    await expect(orders_drawn).to_have_count(1)
    await tab.hook("chart-measure").select_option("销售额")
    await expect(orders_drawn).to_have_count(0)
    await expect(picture).to_have_count(1)
    await tab.hook("chart-measure").select_option("")
    await expect(orders_drawn).to_have_count(1)
    # A click makes it a live ECharts chart: values on hover.
    await chart.click()
    await expect(chart.locator("canvas")).to_have_count(1)
    await expect(picture).to_have_count(0)

    drawn = await chart.evaluate(CHART_OPTION)
    # Orders (hundreds) beside sales (hundreds of thousands): orders on the second axis.
    assert drawn == {"yAxes": 2, "series": [["订单数", 1], ["销售额", 0]]}
    table = tab.hook("chart-data-table")
    await expect(table.locator("tbody tr")).to_have_count(7)
    await expect(table.locator("th")).to_have_text(["地区", "订单数", "销售额"])

    await tab.hook("chart-measure").select_option("销售额")
    drawn = await chart.evaluate(CHART_OPTION)
    assert [name for name, _ in drawn["series"]] == ["销售额"]
    await expect(table.locator("th")).to_have_text(["地区", "销售额"])
    assert tab.errors == []


async def test_a_dump_of_rows_gets_a_grid_and_no_chart(served: ServedPage) -> None:
    question = "列出所有门店"
    served.model.routes[question] = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=WIDE_SQL), answer("都在这里。")]
    )
    tab = await open_tab(served.browser, served.url)
    await tab.ask(question)
    await tab.wait_for_answers(1)
    await expect(tab.hook("results-table").locator("tbody tr").first).to_be_visible()
    await expect(tab.hook("chart")).to_have_count(0)
    # The grid's pager and headers speak the page's language; a header sorts by keyboard.
    header = tab.hook("results-table").locator("th").first
    await expect(header).to_have_attribute("aria-sort", "none")
    await header.get_by_role("button").focus()
    await tab.page.keyboard.press("Enter")
    await expect(header).to_have_attribute("aria-sort", "ascending")
    assert tab.errors == []


async def test_markdown_columns_keep_their_alignment(served: ServedPage) -> None:
    question = "对齐的表格"
    REPLIES[question] = [answer("| 地区 | 门店数 |\n|:--|--:|\n| 华东 | 8 |")]
    tab = await open_tab(served.browser, served.url)
    await tab.ask(question)
    await tab.wait_for_answers(1)
    cells = tab.hook("answer").locator("td")
    await expect(cells).to_have_count(2)
    aligned = await cells.evaluate_all("(tds) => tds.map((td) => getComputedStyle(td).textAlign)")
    assert aligned == ["left", "right"]
    assert tab.errors == []


async def test_the_grid_pager_speaks_chinese_and_a_column_keeps_its_decimals(
    served: ServedPage,
) -> None:
    question = "一百二十行"
    sql = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120) "
        "SELECT i AS 序号, i * 1.25 AS 金额 FROM n"
    )
    REPLIES[question] = [call_tool("run_sql", sql=sql), answer("共 120 行。")]
    tab = await open_tab(served.browser, served.url)
    await tab.ask(question)
    await tab.wait_for_answers(1)
    pager = tab.hook("results-table").locator(".grid-pager")
    await expect(pager.locator("[data-page=next]")).to_have_text("下一页")
    await expect(pager.locator("[data-page=first]")).to_have_text("首页")
    amounts = tab.hook("results-table").locator("tbody tr td:nth-child(2)")
    await expect(amounts.nth(3)).to_have_text("5.00")  # 4 × 1.25, shown as 5.00 beside 1.25
    await expect(amounts.nth(0)).to_have_text("1.25")
    assert tab.errors == []
