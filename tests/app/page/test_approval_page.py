"""The page's SQL approval card in headless Chromium: approve, edit, reject, reopening."""

from __future__ import annotations

import json
import re

from playwright.async_api import expect

from config import Settings
from tests.app.page.test_progress_page import (  # noqa: F401  (the browser fixture)
    QUESTION,
    STORES_BY_REGION_SQL,
    browser,
    open_progress_page,
)
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

COUNT_SQL = "SELECT COUNT(*) AS n FROM regions"
COUNT_SQL_LAID_OUT = "SELECT\n  COUNT(*) AS n\nFROM\n  regions"


async def test_the_card_shows_the_sql_and_approve_runs_it_to_the_answer(
    settings: Settings,
    browser,  # noqa: F811
):
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=STORES_BY_REGION_SQL), answer("七个地区。")]
    )
    async with running_service(settings, model=model) as service:
        tab = await open_progress_page(browser, service.base_url, user_id="mei")
        await tab.hook("approve-sql-toggle").check()
        await tab.ask(QUESTION)

        card = tab.hook("approval-card")
        await expect(card).to_be_visible()
        # Laid out for reading: the same statement, a clause per line.
        await expect(tab.hook("approval-sql")).to_have_value(
            re.compile(r"^SELECT\n.*GROUP BY", re.S)
        )
        await expect(tab.hook("approval-tables")).to_contain_text("regions, stores")
        await expect(tab.hook("approval-message")).to_have_text("等待确认")
        assert tab.stream_query(0)["approve_sql"] == "true"
        await tab.hook("approval-approve").click()

        await expect(tab.hook("answer")).to_have_text("七个地区。")
        await expect(card).to_be_hidden()
        await expect(tab.hook("results-table").locator("tbody tr")).to_have_count(7)
        resumed = tab.stream_query(1)
        assert '"action":"approve"' in resumed["resume"] and resumed["thread_id"].startswith("mei:")
        await tab.assert_streams_closed()
    assert not tab.page_errors


async def test_approve_runs_what_the_editor_holds_and_a_refused_edit_comes_back_with_why(
    settings: Settings,
    browser,  # noqa: F811
):
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=STORES_BY_REGION_SQL), answer("共 7 个。")]
    )
    async with running_service(settings, model=model) as service:
        tab = await open_progress_page(browser, service.base_url, user_id="mei")
        await tab.hook("approve-sql-toggle").check()
        await tab.ask(QUESTION)
        await expect(tab.hook("approval-card")).to_be_visible()

        # One editor: the SQL shows once (its highlighted copy is hidden from readers).
        await expect(tab.hook("approval-card").locator("textarea")).to_have_count(1)
        await expect(tab.hook("approval-preview").locator("xpath=..")).to_have_attribute(
            "aria-hidden", "true"
        )
        await tab.hook("approval-sql").fill("DELETE FROM regions")
        await expect(tab.hook("approval-preview")).to_have_text("DELETE FROM regions\n")
        await tab.hook("approval-approve").click()  # Approve sends what the editor holds
        await expect(tab.hook("approval-refused")).to_contain_text("不允许 DELETE")
        await expect(tab.hook("approval-sql")).to_have_value("DELETE FROM regions")
        await tab.hook("approval-sql").fill(COUNT_SQL)
        await tab.hook("approval-approve").click()

        await expect(tab.hook("answer")).to_have_text("共 7 个。")
        await expect(tab.hook("sql")).to_have_text(COUNT_SQL_LAID_OUT)
        edits = [json.loads(tab.stream_query(i)["resume"]) for i in (1, 2)]
        assert [(e["action"], e["sql"]) for e in edits] == [
            ("edit", "DELETE FROM regions"),
            ("edit", COUNT_SQL),
        ]
    assert not tab.page_errors


async def test_reject_sends_the_comment_and_reopening_a_waiting_conversation_shows_the_card(
    settings: Settings,
    browser,  # noqa: F811
):
    model = ScriptedChatModel(
        replies=[
            call_tool("run_sql", sql=STORES_BY_REGION_SQL),
            call_tool("run_sql", sql=COUNT_SQL),
            answer("7"),
        ]
    )
    async with running_service(settings, model=model) as service:
        tab = await open_progress_page(browser, service.base_url, user_id="mei")
        await tab.hook("approve-sql-toggle").check()
        await tab.ask(QUESTION)
        await expect(tab.hook("approval-card")).to_be_visible()
        # While the pause waits, the turn says it waits for the reader, not "running…".
        waiting = tab.hook("tool-item").first.get_by_test_id("tool-status")
        await expect(waiting).to_have_text("等待你确认")
        await expect(tab.hook("status")).to_have_text("等待你确认 SQL")
        await tab.hook("approval-comment").fill("只要地区总数")
        await tab.hook("approval-reject").click()
        await expect(tab.hook("approval-sql")).to_have_value(COUNT_SQL_LAID_OUT)
        rejected = tab.hook("tool-item").first  # rejected, not failed: no red, no model text
        await expect(rejected).to_have_attribute("data-status", "rejected")
        await expect(rejected.get_by_test_id("tool-status")).to_have_text("已拒绝")
        await expect(rejected.locator(".tool-error")).to_have_count(0)
        thread_id = (await tab.hook("conversation-id").text_content()) or ""

        reopened = await open_progress_page(browser, service.base_url)
        await reopened.page.goto(f"{service.base_url}/?thread_id={thread_id}")
        await expect(reopened.hook("approval-card")).to_be_visible()
        await expect(reopened.hook("approval-sql")).to_have_value(COUNT_SQL_LAID_OUT)
        await reopened.hook("approval-approve").click()
        await expect(reopened.hook("answer")).to_have_text("7")

    assert "只要地区总数" in model.seen[1][-1].content
    assert not tab.page_errors and not reopened.page_errors


async def test_a_rejected_turn_shows_a_badge_on_the_turn_instead_of_done(
    settings: Settings,
    browser,  # noqa: F811
):
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=STORES_BY_REGION_SQL), answer("好的，不查了。")]
    )
    async with running_service(settings, model=model) as service:
        tab = await open_progress_page(browser, service.base_url, user_id="mei")
        await tab.hook("approve-sql-toggle").check()
        await tab.ask(QUESTION)
        await expect(tab.hook("approval-card")).to_be_visible()
        await tab.hook("approval-reject").click()

        await expect(tab.hook("answer")).to_have_text("好的，不查了。")
        await expect(tab.hook("turn-badge")).to_have_text("已拒绝执行")
        await expect(tab.hook("status")).not_to_have_text("已完成")
    assert not tab.page_errors
