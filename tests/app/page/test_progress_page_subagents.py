"""The progress page nests each sub-agent's steps under the delegate step (headless Chromium)."""

from __future__ import annotations

import asyncio

from config import Settings
from tests.app.page.test_progress_page import (  # noqa: F401 (fixtures)
    WAIT_SECONDS,
    browser,
    fast_settings,
    open_progress_page,
)
from tests.react_agent.subagents.test_delegate import (
    QUESTION,
    SALES_SQL,
    TOP_SQL,
    delegate_both,
    routed,
    sub_script,
)
from tests.support.live_server import running_service
from tests.support.scripted_model import answer

try:
    from playwright.async_api import Browser, expect
except ImportError:  # the browser fixture skips
    Browser = object


async def test_page_lists_each_sub_agent_by_its_task_with_where_it_is(
    fast_settings: Settings,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    sales, top = sub_script(SALES_SQL, "七个地区"), sub_script(TOP_SQL, "三个产品")
    sales.gates[0], sales.entered[0] = asyncio.Event(), asyncio.Event()
    model = routed([delegate_both(), answer("两部分都答完了")], sales, top)
    async with running_service(fast_settings, model=model) as service:
        page = await open_progress_page(browser, service.base_url)
        try:
            await page.ask(QUESTION)
            await asyncio.wait_for(sales.entered[0].wait(), WAIT_SECONDS)
            agents = page.hook("subagent")
            # While the first sub-agent is held, the second one finishes, each under its task.
            top_agent = agents.filter(has_text="top products")
            await expect(top_agent).to_have_attribute("data-node", "format_final_response")
            await expect(agents).to_have_count(2)
            sales_agent = agents.filter(has_text="sales by year")
            await expect(sales_agent).to_contain_text("子任务")
            await expect(sales_agent).not_to_have_attribute("data-node", "format_final_response")
            await expect(page.steps.nth(1)).to_have_attribute("data-state", "active")
            sales.gates[0].set()
            await expect(page.hook("answer")).to_have_text("两部分都答完了")
        finally:
            sales.gates[0].set()
        await expect(page.hook("subagent")).to_have_count(2)
        await expect(page.hook("tool-item").first).to_contain_text("分成子任务")
        for step in range(3):
            await expect(page.steps.nth(step)).to_have_attribute("data-state", "done")
        assert page.page_errors == []
