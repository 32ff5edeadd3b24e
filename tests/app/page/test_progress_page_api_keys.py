"""The progress page with API keys on: it asks for the key once and streams with it."""

from __future__ import annotations

from pydantic import SecretStr

from config import Settings
from tests.app.page.test_progress_page import browser, fast_settings, open_progress_page  # noqa: F401
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer

try:
    from playwright.async_api import Browser, Dialog, expect
except ImportError:  # the browser fixture skips, or fails under REQUIRE_BROWSER=1
    pass

KEY = "page-key-3f9a"


async def test_page_asks_for_the_key_once_keeps_it_and_streams_with_it(
    fast_settings: Settings,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    keyed = fast_settings.model_copy(update={"api_keys": SecretStr(f"{KEY}=alice")})
    model = ScriptedChatModel(replies=[answer("第一个回答"), answer("第二个回答")])
    prompts: list[str] = []

    async def enter_key(dialog: Dialog) -> None:
        prompts.append(dialog.message)
        await dialog.accept("wrong-key" if len(prompts) == 1 else KEY)

    async with running_service(keyed, model=model) as service:
        page = await open_progress_page(browser, service.base_url)
        page.page.on("dialog", enter_key)
        await page.ask("第一个问题", user_id="alice")
        await expect(page.hook("answer")).to_have_text("第一个回答")
        await page.ask("第二个问题")
        await expect(page.hook("answer").last).to_have_text("第二个回答")
        stored = await page.page.evaluate("localStorage.getItem('sqlAgentApiKey')")

    # A wrong key is asked again; the right one is kept and not asked for the second time.
    assert len(prompts) == 2 and "API" in prompts[0]
    assert stored == KEY
    assert [page.stream_query(i)["api_key"] for i in range(2)] == [KEY, KEY]
    assert page.page_errors == []
