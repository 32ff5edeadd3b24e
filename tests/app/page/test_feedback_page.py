"""Thumb up / down under an answer on the page, in a real headless Chromium, and its undo."""

from __future__ import annotations

import re

from playwright.async_api import Browser, expect

from config import Settings
from tests.app.page import test_progress_page as progress_page
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

browser = progress_page.browser
fast_settings = progress_page.fast_settings


async def stored_ratings(service) -> list[dict]:
    response = await service.http.post("/api/v0/qa_feedback/query", json={"page_size": 100})
    return response.json()["data"]["records"]


async def test_a_thumb_rates_the_answer_with_its_sql_and_pressing_it_again_undoes_it(
    fast_settings: Settings, browser: Browser
) -> None:
    model = ScriptedChatModel(
        replies=[
            call_tool("run_sql", sql=progress_page.STORES_BY_REGION_SQL),
            answer(progress_page.STORES_ANSWER),
        ]
    )
    async with running_service(fast_settings, model=model) as service:
        page = await progress_page.open_progress_page(browser, service.base_url, user_id="wang")
        await page.ask(progress_page.QUESTION)
        await expect(page.hook("feedback")).to_be_visible()

        await page.hook("thumb-up").click()
        await expect(page.hook("thumb-up")).to_have_attribute("aria-pressed", "true")
        (rating,) = await stored_ratings(service)
        assert rating["question"] == progress_page.QUESTION
        assert rating["sql"] == progress_page.STORES_BY_REGION_SQL
        assert rating["is_thumb_up"] is True and rating["user_id"] == "wang"
        assert rating["thread_id"].startswith("wang:")
        assert re.fullmatch(r"[0-9a-f]{32}", rating["run_id"] or "")  # the answer rated

        await page.hook("thumb-down").click()
        await page.hook("reason-send").click()  # no reason given: the rating alone
        await expect(page.hook("thumb-down")).to_have_attribute("aria-pressed", "true")
        (replaced,) = await stored_ratings(service)
        assert replaced["is_thumb_up"] is False and replaced["id"] != rating["id"]
        assert replaced["reason"] is None

        await page.hook("thumb-down").click()
        await expect(page.hook("thumb-down")).to_have_attribute("aria-pressed", "false")
        await expect(page.hook("feedback-status")).to_have_text("已撤销")
        assert await stored_ratings(service) == []
        assert page.page_errors == []


async def test_a_thumbs_down_asks_why_and_posts_the_reason_with_the_rating(
    fast_settings: Settings, browser: Browser
) -> None:
    model = ScriptedChatModel(
        replies=[
            call_tool("run_sql", sql=progress_page.STORES_BY_REGION_SQL),
            answer(progress_page.STORES_ANSWER),
        ]
    )
    async with running_service(fast_settings, model=model) as service:
        page = await progress_page.open_progress_page(browser, service.base_url)
        posted: list[dict] = []
        page.page.on(
            "request",
            lambda request: (
                request.url.endswith("/qa_feedback/add") and posted.append(request.post_data_json)
            ),
        )
        await page.ask(progress_page.QUESTION)
        await page.hook("thumb-down").click()
        dialog = page.page.get_by_role("dialog", name="这个回答哪里不对？")
        await expect(dialog).to_be_visible()
        await expect(page.hook("reason-reasonWrongData")).to_be_focused()  # focus moved in
        await page.page.keyboard.press("Escape")  # backing out rates nothing
        await expect(dialog).to_be_hidden()
        await expect(page.hook("thumb-down")).to_be_focused()
        assert await stored_ratings(service) == []

        await page.hook("thumb-down").click()
        await dialog.get_by_label("SQL 不对").check()
        await dialog.get_by_label("补充说明（可选）").fill("少了退货的订单")
        await page.page.keyboard.press("Enter")  # Enter sends
        await expect(page.hook("thumb-down")).to_have_attribute("aria-pressed", "true")
        await expect(dialog).to_be_hidden()
        (rating,) = await stored_ratings(service)
        assert rating["is_thumb_up"] is False
        assert rating["reason"] == "SQL 不对：少了退货的订单"
        assert [body.get("reason") for body in posted] == ["SQL 不对：少了退货的订单"]
        assert page.page_errors == []


async def test_an_answer_without_sql_has_no_thumbs(
    fast_settings: Settings, browser: Browser
) -> None:
    model = ScriptedChatModel(replies=[answer("你好")])
    async with running_service(fast_settings, model=model) as service:
        page = await progress_page.open_progress_page(browser, service.base_url)
        await page.ask("你好")
        await expect(page.hook("answer")).to_have_text("你好")
        await expect(page.hook("feedback")).to_be_hidden()
