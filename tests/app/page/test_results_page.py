"""The page's results in headless Chromium, offline: tool items, chart, CSV download, history."""

from __future__ import annotations

import asyncio
import csv
import io
import re
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from config import Settings
from react_agent.sample_data import SAMPLE_DB_PATH
from tests.app.page import test_progress_page as progress
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

try:
    from playwright.async_api import Browser, Page, expect
except ImportError:  # the browser fixture skips, or fails under REQUIRE_BROWSER=1
    pass

browser = progress.browser
fast_settings = progress.fast_settings
QUESTION = progress.QUESTION
STORES_SQL = progress.STORES_BY_REGION_SQL
STORES_ANSWER = progress.STORES_ANSWER
SCREENSHOT = Path("/tmp/results_page.png")

# Counts the chart picture's pixels that are not fully transparent (drawn onto a canvas).
PAINTED_PIXELS = """
() => {
  const image = document.querySelector('[data-testid="chart"] img');
  if (!image || !image.complete || !image.naturalWidth) return 0;
  const canvas = document.createElement("canvas");
  canvas.width = image.naturalWidth;
  canvas.height = image.naturalHeight;
  canvas.getContext("2d").drawImage(image, 0, 0);
  const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) painted += 1;
  return painted;
}
"""


async def open_offline(
    browser: Browser, url: str, *, user_id: str | None = None
) -> tuple[progress.ProgressPage, list[str]]:
    """Open `url` in a tab that can reach 127.0.0.1 only; return it and the blocked URLs.

    `user_id` is the browser's own id (as if made there before); else the page makes one.
    """
    context = await browser.new_context(viewport={"width": 1200, "height": 1000}, locale="zh-CN")
    page = await context.new_page()
    blocked: list[str] = []

    async def local_only(route: Any) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            await route.continue_()
        else:
            blocked.append(route.request.url)
            await route.abort()

    await page.route("**/*", local_only)
    await page.add_init_script(progress.TRACK_STREAMS)
    if user_id is not None:
        await page.add_init_script(f"localStorage.setItem('sqlAgentUserId', {user_id!r})")
    opened = progress.ProgressPage(page)
    page.on("request", opened.record)
    page.on("pageerror", lambda error: opened.page_errors.append(str(error)))
    await page.goto(url)
    return opened, blocked


def sample_rows(sql: str) -> list[list[str]]:
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        return [[str(value) for value in row] for row in connection.execute(sql)]


async def downloaded_csv(page: Page, link: Any) -> tuple[bytes, str]:
    async with page.expect_download() as info:
        await link.click()
    download = await info.value
    content = await asyncio.to_thread(Path(await download.path()).read_bytes)
    return content, download.suggested_filename


async def test_page_offline_draws_the_chart_downloads_the_csv_and_reopens_a_conversation(
    fast_settings: Settings, browser: Browser
) -> None:
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=STORES_SQL), answer(STORES_ANSWER)],
        default=answer("好的。"),
    )
    async with running_service(fast_settings, model=model) as service:
        page, blocked = await open_offline(browser, service.base_url + "/", user_id="li1")
        await page.ask(QUESTION)
        await expect(page.hook("answer")).to_have_text(STORES_ANSWER)
        first_thread = await page.hook("conversation-id").text_content() or ""

        # The chart: ECharts (served by the service itself) drew it as a picture in a worker.
        await expect(page.hook("chart")).to_be_visible()
        # Polled in the page frame by frame (wait_for_function would eval, which the CSP bars).
        painted = f"""async () => {{
          while (({PAINTED_PIXELS})() <= 2000) await new Promise(requestAnimationFrame);
          return true;
        }}"""
        assert await asyncio.wait_for(page.page.evaluate(painted), progress.WAIT_SECONDS)

        # The tool item: the query laid out clause by clause, its preview, a CSV link.
        item = page.hook("tool-item")
        await expect(item).to_have_count(1)
        await expect(item).to_have_attribute("data-status", "ok")
        laid_out = re.compile(r"\nFROM\s+stores")
        await expect(item.get_by_test_id("tool-sql")).to_contain_text(laid_out)
        await expect(item.get_by_test_id("tool-preview").locator("tbody tr")).to_have_count(7)

        # The CSV of the answer's records holds the query's rows, BOM first.
        link = page.hook("turn").locator(".records-bar").get_by_test_id("csv-download")
        content, name = await downloaded_csv(page.page, link)
        assert content.startswith("\ufeff".encode())
        header, *rows = list(csv.reader(io.StringIO(content.decode("utf-8-sig"))))
        assert header == ["地区", "门店数"] and rows == sample_rows(STORES_SQL)
        assert re.fullmatch(r"result-call_\d+\.csv", name)

        # A second conversation; then the sidebar reopens the first one.
        await page.hook("new-conversation").click()
        await page.ask("一共有多少家门店？")
        await expect(page.hook("answer").last).to_have_text("好的。")
        conversations = page.hook("conversation-item")
        await expect(conversations).to_have_count(2)
        await expect(conversations.nth(1)).to_contain_text(QUESTION[:10])
        await conversations.nth(1).click()

        await expect(page.hook("conversation-id")).to_have_text(first_thread)
        turn = page.hook("turn")
        await expect(turn).to_have_count(1)
        await expect(turn.get_by_test_id("turn-question")).to_have_text(QUESTION)
        await expect(turn.get_by_test_id("answer")).to_have_text(STORES_ANSWER)
        rows = turn.get_by_test_id("results-table").locator("tbody tr")
        await expect(rows).to_have_count(7)  # the table comes back
        await expect(turn.get_by_test_id("sql")).to_contain_text("FROM")
        await expect(turn.get_by_test_id("tool-item")).to_have_attribute("data-status", "ok")
        await turn.locator(".turn-work > summary").click()  # unfold the steps taken
        await turn.get_by_test_id("tool-item").locator("summary").click()  # unfold it
        reopened_csv, _ = await downloaded_csv(
            page.page, turn.get_by_test_id("tool-item").get_by_test_id("csv-download")
        )
        assert reopened_csv == content

        # Asking now continues the reopened conversation.
        await page.ask("其中哪个地区最多？")
        await expect(page.hook("answer").last).to_have_text("好的。")
        await page.page.screenshot(path=str(SCREENSHOT), full_page=True, animations="disabled")

    assert page.stream_query(2)["thread_id"] == first_thread
    assert all(page.stream_query(i)["stream_tools"] == "true" for i in range(3))
    assert blocked == []
    assert page.page_errors == []


async def test_docs_render_swagger_ui_offline(fast_settings: Settings, browser: Browser) -> None:
    async with running_service(fast_settings) as service:
        page, blocked = await open_offline(browser, service.base_url + "/docs")
        await expect(page.page.locator(".swagger-ui .info .title")).to_contain_text(
            "SQL ReAct agent service"
        )
        paths = page.page.locator(".opblock-summary-path")
        await expect(paths.filter(has_text="/results/")).to_have_count(1)

    assert blocked == []


async def test_history_reads_both_role_vocabularies_and_sql_is_laid_out_by_sql_formatter(
    fast_settings: Settings, browser: Browser
) -> None:
    messages = {
        "old": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [{"name": "run_sql", "args": {}}]},
            {"role": "tool", "tool_name": "run_sql", "status": "error", "content": "Error: x"},
            {"role": "assistant", "content": "a"},
        ],
        "new": [
            {"role": "human", "content": "q"},
            {"role": "ai", "content": "", "tool_calls": [{"name": "run_sql", "args": {}}]},
            {"role": "tool", "tool_name": "run_sql", "status": "error", "content": "Error: x"},
            {"role": "ai", "content": "a"},
        ],
    }
    async with running_service(fast_settings) as service:
        page, _ = await open_offline(browser, service.base_url + "/")
        turns = await page.page.evaluate(
            """async (messages) => {
              const { splitTurns } = await import("/static/history.js");
              return [splitTurns(messages.old), splitTurns(messages.new)];
            }""",
            messages,
        )
        laid_out = await page.page.evaluate(
            """async (sql) => {
              const sqlFormat = await import("/static/sql_format.js");
              await sqlFormat.whenSqlToolsReady();  // loaded with the first SQL shown
              return sqlFormat.formatSql(sql);
            }""",
            "select a, 'x from y' as b from t join u on t.id = u.id where a > 1 and b < 2",
        )

    old, new = turns
    assert old == new
    assert [(t["question"], t["answer"]) for t in new] == [("q", "a")]
    assert new[0]["tools"][0]["result"]["status"] == "error"
    assert laid_out == (
        "SELECT\n  a,\n  'x from y' AS b\nFROM\n  t\n  JOIN u ON t.id = u.id\nWHERE\n  a > 1\n"
        "  AND b < 2"
    )


async def test_page_shows_each_tool_call_as_it_runs_with_refusals_marked(
    fast_settings: Settings, browser: Browser
) -> None:
    model = ScriptedChatModel(
        replies=[
            call_tool("run_sql", sql="DELETE FROM orders"),
            call_tool("run_sql", sql=STORES_SQL),
            answer(STORES_ANSWER),
        ]
    )
    progress.gate_model_calls(model, 2)
    async with running_service(fast_settings, model=model) as service:
        try:
            page, _ = await open_offline(browser, service.base_url + "/", user_id="tools1")
            await page.ask(QUESTION)
            # The answer is held: what is on the page now came from tool events.
            await progress.wait_for(model.entered[2])
            items = page.hook("tool-item")
            await expect(items).to_have_count(2)
            await expect(items.nth(0)).to_have_attribute("data-status", "refused")
            await expect(items.nth(0).get_by_test_id("tool-status")).to_contain_text("安全检查拒绝")
            await expect(items.nth(0).locator(".tool-error")).to_contain_text("不允许 DELETE")
            await expect(items.nth(1)).to_have_attribute("data-status", "ok")
            await expect(items.nth(1).get_by_test_id("tool-sql")).to_contain_text(
                re.compile(r"\nFROM\s+stores")
            )
            preview = items.nth(1).get_by_test_id("tool-preview")
            await expect(preview.locator("tbody tr")).to_have_count(7)
            await expect(items.nth(0)).to_have_attribute("open", "")  # failures unfold
            await items.nth(1).locator("summary").click()
            await expect(items.nth(1).get_by_test_id("csv-download")).to_be_visible()
            await expect(page.hook("answer")).to_be_empty()
        finally:
            progress.release_all(model)
        await expect(page.hook("answer")).to_have_text(STORES_ANSWER)
        await expect(page.hook("tool-item")).to_have_count(2)
    assert page.page_errors == []
