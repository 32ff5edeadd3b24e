"""The page during ANSWER_CHECK=repair: the doubted answer gives way to the restated one, noted."""

from __future__ import annotations

import asyncio

from config import Settings
from tests.app.page.test_progress_page import (  # noqa: F401 (fixtures)
    browser,
    fast_settings,
    open_progress_page,
    release_all,
    wait_for,
)
from tests.support.live_server import running_service
from tests.support.openai_stub import DEFAULT_SALES_SQL
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

try:
    from playwright.async_api import Browser, expect
except ImportError:  # the browser fixture skips
    Browser = object

TWO_FRAMES = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"

WRONG = "华东最多，约78.2万元；华南为79.5万元。"
RIGHT = "华东最多，约78.2万元。"
CORRECTED_ONCE = "此回答已按查询结果更正过一次。"


async def test_page_clears_the_doubted_answer_while_the_model_restates_it(
    fast_settings: Settings,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=DEFAULT_SALES_SQL), answer(WRONG), answer(RIGHT)]
    )
    model.gates[2], model.entered[2] = asyncio.Event(), asyncio.Event()  # the repair call
    settings = fast_settings.model_copy(update={"answer_check": "repair"})
    async with running_service(settings, model=model) as service:
        page = await open_progress_page(browser, service.base_url)
        try:
            await page.ask("各大区销售额")
            await wait_for(model.entered[2])
            # The first answer was streamed, then dropped at the review_answer step.
            await page.page.wait_for_function("window.__streamText.includes('review_answer')")
            await page.page.evaluate(TWO_FRAMES)  # a pending render of the tokens is done
            assert await page.hook("answer").inner_text() == ""
            model.gates[2].set()
            await expect(page.hook("answer")).to_have_text(RIGHT)
        finally:
            release_all(model)
        await page.assert_streams_closed()
        # The restated answer is supported: no mark, only a note that it was corrected once,
        # live and read back from the conversation.
        for _ in range(2):
            await expect(page.hook("answer-repaired")).to_have_text(f"↻{CORRECTED_ONCE}")
            await expect(page.page.locator("mark")).to_have_count(0)
            await expect(page.hook("answer-check")).to_have_count(0)
            await page.page.reload()
            await expect(page.hook("answer")).to_have_text(RIGHT)
        assert page.page_errors == []
