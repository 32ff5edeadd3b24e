"""The progress page with API keys on: it asks for the key once and streams with it."""

from __future__ import annotations

from pydantic import SecretStr

from config import Settings
from tests.app.page.test_progress_page import browser, fast_settings, open_progress_page  # noqa: F401
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer

try:
    from playwright.async_api import Browser, expect
except ImportError:  # the browser fixture skips, or fails under REQUIRE_BROWSER=1
    pass

KEY = "page-key-3f9a"


async def test_page_asks_for_the_key_once_keeps_it_and_streams_with_it(
    fast_settings: Settings,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    keyed = fast_settings.model_copy(update={"api_keys": SecretStr(f"{KEY}=alice")})
    model = ScriptedChatModel(replies=[answer("第一个回答"), answer("第二个回答")])
    async with running_service(keyed, model=model) as service:
        page = await open_progress_page(browser, service.base_url)
        await page.hook("question-input").fill("第一个问题")
        await page.hook("submit").click()
        # The key is typed into a password field of the page's own dialog, never a prompt().
        dialog = page.hook("key-dialog")
        await expect(dialog).to_be_visible()
        await expect(page.hook("key-input")).to_have_attribute("type", "password")
        await page.hook("key-input").fill("wrong-key")
        await page.hook("key-save").click()
        await expect(dialog).to_be_visible()  # a wrong key is asked again
        await page.hook("key-input").fill(KEY)
        await page.hook("key-save").click()
        await expect(page.hook("answer")).to_have_text("第一个回答")
        await page.ask("第二个问题")
        await expect(page.hook("answer").last).to_have_text("第二个回答")
        await expect(dialog).to_be_hidden()
        stored = await page.page.evaluate("localStorage.getItem('sqlAgentApiKey')")

    assert stored == KEY
    # The key goes in a header, never in the stream's URL (which logs and histories keep).
    requests = page.stream_requests
    assert [await r.header_value("authorization") for r in requests] == [f"Bearer {KEY}"] * 2
    assert all("api_key" not in r.url for r in requests)
    assert page.page_errors == []
