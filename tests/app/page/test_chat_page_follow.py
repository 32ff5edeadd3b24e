"""The chat page follows the answer, sends on Enter and opens its drawer on a phone (Chromium)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import expect

from config import Settings
from tests.app.page.chat_page_support import (
    DESKTOP,
    PHONE,
    WAIT_MS,
    ServedPage,
    chromium,
    open_tab,
    skip_without_browser,
)
from tests.support.live_server import running_service
from tests.support.routed_model import RoutedChatModel
from tests.support.scripted_model import ScriptedChatModel, answer

pytestmark = pytest.mark.asyncio(loop_scope="module")

LONG_ANSWER = "\n\n".join(
    f"第 {n} 段：这一段说明结果里的一个发现，写得足够长以便换行。" for n in range(40)
)
# Records, after each painted frame, how far the newest answer's bottom went below the
# composer's top (a task queued from requestAnimationFrame runs after the frame is painted).
SAMPLE_OVERLAP = """
window.__overlap = -Infinity;
const sample = () => {
  const answers = document.querySelectorAll('[data-testid=answer]');
  const answer = answers[answers.length - 1];
  const composer = document.getElementById('ask-form');
  if (answer && answer.textContent && composer) {
    const over = answer.getBoundingClientRect().bottom - composer.getBoundingClientRect().top;
    window.__overlap = Math.max(window.__overlap, over);
  }
  const channel = new MessageChannel();
  channel.port1.onmessage = () => requestAnimationFrame(sample);
  channel.port2.postMessage(0);
};
requestAnimationFrame(sample);
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServedPage]:
    """One app and one Chromium for the module; each test scripts its own questions."""
    skip_without_browser()
    data_dir: Path = tmp_path_factory.mktemp("chat_follow")
    settings = Settings(
        _env_file=None,
        data_dir=data_dir,
        checkpoint_database_url=f"sqlite:///{data_dir / 'checkpoints.db'}",
        openai_api_key=None,
        openai_base_url=None,
        run_timeout=30,
        stream_resume_grace=0.0,
    )
    model = RoutedChatModel(parent=ScriptedChatModel(default=answer(LONG_ANSWER)))
    async with running_service(settings, model=model) as service, chromium() as browser:
        yield ServedPage(service.base_url, browser, model, service)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_the_streaming_answer_stays_above_the_composer(
    served: ServedPage, viewport: dict[str, int]
) -> None:
    tab = await open_tab(served.browser, served.url, viewport=viewport)
    await tab.ask("先问一个")  # every question gets the long answer: the page overflows
    await tab.wait_for_answers(1)
    await tab.page.evaluate(SAMPLE_OVERLAP)
    await tab.ask("再问一个")
    await tab.wait_for_answers(2)

    overlap = await tab.page.evaluate("window.__overlap")
    assert -1e9 < overlap <= 1, overlap  # sampled, and never under the composer
    last = tab.hook("turn").last
    turn_box = await last.bounding_box()
    composer_box = await tab.page.locator("#ask-form").bounding_box()
    assert turn_box["y"] + turn_box["height"] <= composer_box["y"] + 1
    await expect(tab.hook("to-latest")).to_be_hidden()
    assert tab.errors == []


async def test_a_reader_who_scrolled_up_stays_put_and_latest_brings_them_back(
    served: ServedPage,
) -> None:
    first = "先来一个长回答"
    script = ScriptedChatModel(replies=[answer(LONG_ANSWER)] * 2, default=answer("好"))
    script.gates[1], script.entered[1] = asyncio.Event(), asyncio.Event()  # the second answer
    served.model.routes[first] = script
    tab = await open_tab(served.browser, served.url, viewport=PHONE)
    await tab.ask(first)
    await tab.wait_for_answers(1)
    try:
        await tab.ask("慢慢回答")
        await asyncio.wait_for(script.entered[1].wait(), WAIT_MS / 1000)
        await tab.page.mouse.wheel(0, -5000)  # the reader scrolls up to read
        await expect(tab.hook("to-latest")).to_be_visible()
    finally:
        script.gates[1].set()
    await tab.wait_for_answers(2)
    assert await tab.page.evaluate("window.scrollY") == 0  # left where they were reading
    await tab.hook("to-latest").click()
    await expect(tab.hook("to-latest")).to_be_hidden()
    at_end = "innerHeight + scrollY >= document.documentElement.scrollHeight - 2"
    await tab.page.wait_for_function(at_end)
    assert tab.errors == []


async def test_enter_sends_shift_enter_breaks_the_line_and_ime_composition_never_sends(
    served: ServedPage,
) -> None:
    tab = await open_tab(served.browser, served.url)
    box = tab.hook("question-input")
    await box.fill("第一行")
    await box.press("Shift+Enter")
    await box.type("第二行")
    await expect(box).to_have_value("第一行\n第二行")
    # An Enter that picks the IME's characters (pinyin) is the IME's, not a send.
    await box.evaluate(
        """(el) => {
          el.dispatchEvent(new CompositionEvent('compositionstart', {data: ''}));
          el.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', keyCode: 229,
            isComposing: true, bubbles: true, cancelable: true}));
          el.dispatchEvent(new CompositionEvent('compositionend', {data: '行'}));
        }"""
    )
    await expect(box).to_have_value("第一行\n第二行")
    assert tab.hook("turn") and await tab.hook("turn").count() == 0

    await box.press("Enter")
    await expect(tab.hook("turn-question")).to_have_text("第一行\n第二行")
    await expect(box).to_have_value("")
    await tab.wait_for_answers(1)
    assert tab.errors == []


async def test_the_phone_drawer_scrolls_traps_focus_and_closes_by_escape_and_outside_tap(
    served: ServedPage,
) -> None:
    for n in range(16):  # a history taller than the phone's screen
        response = await served.service.http.post(
            "/api/v0/ask_react_agent", json={"question": f"历史问题 {n}", "user_id": "drawer"}
        )
        assert response.status_code == 200
    tab = await open_tab(served.browser, served.url, viewport=PHONE, user_id="drawer")
    opener = tab.hook("open-drawer")
    await expect(opener).to_have_attribute("aria-expanded", "false")

    await opener.click()
    drawer = tab.hook("history")
    await expect(opener).to_have_attribute("aria-expanded", "true")
    await expect(tab.hook("conversation-item")).to_have_count(16)
    size = await drawer.evaluate(
        "(el) => [el.getBoundingClientRect().height, el.scrollHeight, el.clientHeight]"
    )
    assert size[0] <= PHONE["height"] and size[1] > size[2], size  # full height, scrolls inside
    assert await drawer.evaluate("(el) => { el.scrollTop = 10000; return el.scrollTop > 0; }")
    await expect(tab.hook("drawer-scrim")).to_be_visible()
    # Focus moved in and stays in: Tab past the last control comes back to the first.
    for _ in range(60):
        await tab.page.keyboard.press("Tab")
        assert await drawer.evaluate("(el) => el.contains(document.activeElement)")
    await tab.screenshot("phone-drawer-history")  # after its slide-in

    await tab.page.keyboard.press("Escape")
    await expect(drawer).to_be_hidden()
    await expect(opener).to_have_attribute("aria-expanded", "false")
    await expect(opener).to_be_focused()

    await opener.click()
    await expect(drawer).to_be_visible()
    await tab.page.mouse.click(PHONE["width"] - 20, PHONE["height"] // 2)  # the scrim
    await expect(drawer).to_be_hidden()
    await expect(tab.hook("drawer-scrim")).to_be_hidden()
    assert tab.errors == []
