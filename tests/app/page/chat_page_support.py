"""What the chat page's browser tests share: one served app per module, tabs, checks."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, expect

from tests.app.page.test_progress_page import CHROMIUM, CHROMIUM_ARGS, browser_missing
from tests.support.requirements import skip_or_fail

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "page"
"""Screenshots of the page's main states (docs/page.md names this folder; git ignores it)."""
AXE = Path(__file__).resolve().parents[1] / "vendor" / "axe-core" / "axe.min.js"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
WAIT_MS = 15_000
# Endpoints the page asks for and does without (another part of the service adds them); the
# browser logs their 404 as a console error, which is not the page's.
OPTIONAL_PATHS = ("/api/v0/suggestions", "/api/v0/schema", "/api/v0/datasets")
CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass
class ServedPage:
    """A module's served app: its base URL, the browser and the routed scripted model."""

    url: str
    browser: Browser
    model: Any
    service: Any = None


@dataclass
class Tab:
    """A page in a browser tab, with what it logged and what it asked."""

    page: Page
    errors: list[str] = field(default_factory=list)
    requests: list[Any] = field(default_factory=list)

    def hook(self, name: str):
        """Return the element(s) with this data-testid."""
        return self.page.get_by_test_id(name)

    async def ask(self, question: str) -> None:
        """Type a question and press Ask."""
        await self.hook("question-input").fill(question)
        await self.hook("submit").click()

    async def wait_for_answers(self, count: int) -> None:
        """Wait until `count` turns show their answer (live or read back)."""
        done = self.page.locator("[data-testid=turn][data-answered=true]")
        await expect(done).to_have_count(count, timeout=WAIT_MS)

    async def screenshot(self, name: str) -> None:
        """Save a screenshot of the whole page as SCREENSHOTS/<name>.png."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        await self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    async def own_text(self) -> str:
        """Return the page's own text: less what people wrote and the language switch's names.

        Questions, answers and conversation titles are people's words, in any language.
        """
        return await self.page.evaluate(
            """() => {
              const clone = document.body.cloneNode(true);
              const people = '[data-testid=lang-select], .conversation-title, ' +
                '[data-testid=turn-question], [data-testid=answer], [data-testid=headline] .note';
              for (const el of clone.querySelectorAll(people)) el.remove();
              for (const el of clone.querySelectorAll('[hidden]')) el.remove();
              return clone.textContent;
            }"""
        )

    async def axe_serious(self) -> list[str]:
        """Run axe-core (vendored for tests) and return its serious and critical violations."""
        await self.page.add_script_tag(path=str(AXE))
        found = await self.page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".filter((v) => ['serious', 'critical'].includes(v.impact))"
            ".map((v) => `${v.id}: ${v.nodes.map((n) => n.failureSummary).join(', ')}`)"
        )
        return list(found)


def skip_without_browser() -> None:
    """Skip (or fail under REQUIRE_BROWSER=1) when Chromium or playwright is missing."""
    skip_or_fail(browser_missing(), "REQUIRE_BROWSER")


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """Launch Debian's headless Chromium."""
    from playwright.async_api import async_playwright

    expect.set_options(timeout=WAIT_MS)
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield launched
        finally:
            await launched.close()


async def open_tab(
    browser: Browser,
    url: str,
    *,
    viewport: dict[str, int] = DESKTOP,
    locale: str = "zh-CN",
    bypass_csp: bool = False,
    api_key: str | None = None,
    user_id: str | None = None,
) -> Tab:
    """Open `url` in a fresh context (its own localStorage) that records errors and requests.

    `user_id` is the browser's own id (as if made there before); else the page makes one.
    """
    context = await browser.new_context(viewport=viewport, locale=locale, bypass_csp=bypass_csp)
    page = await context.new_page()
    if api_key is not None:
        await page.add_init_script(f"localStorage.setItem('sqlAgentApiKey', {api_key!r})")
    if user_id is not None:
        await page.add_init_script(f"localStorage.setItem('sqlAgentUserId', {user_id!r})")
    tab = Tab(page)

    def on_console(message: Any) -> None:
        where = message.location.get("url", "")
        if message.type == "error" and not any(p in where for p in OPTIONAL_PATHS):
            tab.errors.append(f"console: {message.text} ({where})")

    page.on("console", on_console)
    page.on("pageerror", lambda error: tab.errors.append(f"pageerror: {error}"))
    page.on("request", lambda request: tab.requests.append(request))
    await page.goto(url)
    return tab
