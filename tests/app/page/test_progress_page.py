"""The progress page in a real headless Chromium: steps as they arrive, the answer, errors."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from langchain_core.messages import HumanMessage

from config import Settings
from tests.support.live_server import running_service
from tests.support.requirements import skip_or_fail
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

try:
    from playwright.async_api import Browser, Locator, Page, async_playwright, expect
except ImportError as exc:  # the browser fixture skips, or fails under REQUIRE_BROWSER=1
    PLAYWRIGHT_IMPORT_ERROR: ImportError | None = exc
else:
    PLAYWRIGHT_IMPORT_ERROR = None

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Docker gives /dev/shm 64 MB, too little for Chromium; Debian's wrapper only adds this
    # flag when it can read the size of /dev/shm.
    "--disable-dev-shm-usage",
]
SCREENSHOT = Path("/tmp/progress_page.png")
STREAM_PATH = "/api/v0/ask_react_agent_stream"
WAIT_SECONDS = 15

QUESTION = "每个地区有多少家门店？"
STORES_BY_REGION_SQL = (
    "SELECT region_name AS 地区, COUNT(*) AS 门店数 FROM stores JOIN regions USING (region_id) "
    "GROUP BY region_name"
)
STORES_ANSWER = "共有 7 个地区，华东的门店最多（8 家）。"

# Wraps fetch so a test can see whether the page closed its streams (and what they carried).
TRACK_STREAMS = """
window.__streams = [];
window.__streamText = "";
const pageFetch = window.fetch;
window.fetch = async (input, init) => {
  const response = await pageFetch(input, init);
  if (!String(input).includes("ask_react_agent_stream") || !response.body) return response;
  const entry = { closed: false };
  window.__streams.push(entry);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const body = new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          entry.closed = true;
          controller.close();
          return;
        }
        window.__streamText += decoder.decode(value, { stream: true });
        controller.enqueue(value);
      } catch (error) {
        entry.closed = true;
        controller.error(error);
      }
    },
    cancel(reason) {
      entry.closed = true;
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status, statusText: response.statusText, headers: response.headers,
  });
};
"""


def stream_body(request: Any) -> dict[str, str]:
    """Return a stream request's fields as the old GET query had them (booleans as text)."""
    if request.method == "GET":
        query = parse_qs(urlsplit(request.url).query)
        return {key: values[0] for key, values in query.items()}
    body = json.loads(request.post_data or "{}")

    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, dict):
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        return str(value)

    return {key: text(value) for key, value in body.items()}


def browser_missing() -> str | None:
    """Return why the browser tests cannot run here, or None when they can."""
    if PLAYWRIGHT_IMPORT_ERROR is not None:
        return f"the playwright package is missing ({PLAYWRIGHT_IMPORT_ERROR})"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    return None


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    """Launch Debian's headless Chromium; skip without it, unless REQUIRE_BROWSER=1."""
    skip_or_fail(browser_missing(), "REQUIRE_BROWSER")
    expect.set_options(timeout=WAIT_SECONDS * 1000)
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield chromium
        finally:
            await chromium.close()


@pytest.fixture
def fast_settings(settings: Settings) -> Settings:
    """Return settings whose runs stop as soon as their page leaves (no resume grace)."""
    return settings.model_copy(update={"stream_resume_grace": 0.0})


@dataclass
class ProgressPage:
    """The page in a browser tab, its test hooks, and what it asked the stream endpoint."""

    page: Page
    stream_requests: list[Any] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def hook(self, name: str) -> Locator:
        """Return the element(s) with this data-testid."""
        return self.page.get_by_test_id(name)

    @property
    def steps(self) -> Locator:
        """The items of the step list."""
        return self.hook("step-list").get_by_test_id("step-item")

    async def ask(self, question: str) -> None:
        """Type a question and press the submit button."""
        await self.hook("question-input").fill(question)
        await self.hook("submit").click()

    def record(self, request: Any) -> None:
        """Keep `request` if it asks the stream endpoint."""
        if STREAM_PATH in request.url:
            self.stream_requests.append(request)

    def stream_query(self, index: int) -> dict[str, str]:
        """Return the fields of the page's `index`-th stream request (its POST body)."""
        return stream_body(self.stream_requests[index])

    async def progress_value(self) -> int:
        """Return the progress bar's aria-valuenow."""
        return int(await self.hook("progress-bar").get_attribute("aria-valuenow") or "-1")

    async def assert_streams_closed(self) -> None:
        """Assert the page has finished its run and closed every stream it opened."""
        await expect(self.hook("submit")).to_be_enabled()
        # Checked at once: a stream left open would still be being read now.
        states = await self.page.evaluate("window.__streams.map((s) => s.closed)")
        assert states and all(states), states


async def open_progress_page(
    browser: Browser, base_url: str, *, user_id: str | None = None
) -> ProgressPage:
    """Open the page at `base_url` in a new tab that records its stream requests.

    `user_id` is the browser's own id (as if made there before); else the page makes one.
    """
    context = await browser.new_context(viewport={"width": 1000, "height": 900}, locale="zh-CN")
    page = await context.new_page()
    await page.add_init_script(TRACK_STREAMS)
    if user_id is not None:
        await page.add_init_script(f"localStorage.setItem('sqlAgentUserId', {user_id!r})")
    progress_page = ProgressPage(page)
    page.on("request", progress_page.record)
    page.on("pageerror", lambda error: progress_page.page_errors.append(str(error)))
    await page.goto(base_url + "/")
    await expect(page).to_have_title("数据问答")
    return progress_page


async def wait_for(event: asyncio.Event) -> None:
    """Wait until the scripted model sets `event`, failing instead of hanging forever."""
    await asyncio.wait_for(event.wait(), WAIT_SECONDS)


def gate_model_calls(model: ScriptedChatModel, *calls: int) -> None:
    """Hold these model calls until the test sets their gate; mark when each one starts."""
    for call in calls:
        model.gates[call] = asyncio.Event()
        model.entered[call] = asyncio.Event()


def release_all(model: ScriptedChatModel) -> None:
    """Let every held model call go on (so a failed test does not hang the server)."""
    for gate in model.gates.values():
        gate.set()


async def test_root_serves_the_page_and_its_script_and_style(fast_settings: Settings) -> None:
    async with running_service(fast_settings) as service:
        page = await service.http.get("/")
        script = await service.http.get("/static/app.js")
        style = await service.http.get("/static/app.css")

    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert 'data-testid="question-input"' in page.text
    assert re.search(r'src="static/app\.js\?v=\w+"', page.text)
    assert re.search(r'href="static/app\.css\?v=\w+"', page.text)
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert 'from "./run.js"' in script.text
    assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")


async def test_page_shows_each_step_as_it_arrives_then_the_answer_sql_and_table(
    fast_settings: Settings, browser: Browser
) -> None:
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=STORES_BY_REGION_SQL), answer(STORES_ANSWER)]
    )
    gate_model_calls(model, 0, 1)
    async with running_service(fast_settings, model=model) as service:
        try:
            page = await open_progress_page(browser, service.base_url)
            await page.ask(QUESTION)

            # The first model call is held: the page is understanding the question.
            await wait_for(model.entered[0])
            await expect(page.steps).to_have_text(["理解问题", "查询数据", "组织回答"])
            await expect(page.steps.nth(0)).to_have_attribute("data-state", "active")
            await expect(page.hook("answer")).to_be_empty()
            early_progress = await page.progress_value()
            assert 0 < early_progress < 100

            # The query ran and the second model call is held: the answer is not here yet.
            model.gates[0].set()
            await wait_for(model.entered[1])
            await expect(page.steps.nth(0)).to_have_attribute("data-state", "done")
            await expect(page.steps.nth(1)).to_have_attribute("data-state", "active")
            await expect(page.hook("tool-item")).to_have_attribute("data-status", "ok")
            await expect(page.hook("tool-item")).to_contain_text("执行查询")
            await expect(page.hook("answer")).to_be_empty()
            await expect(page.hook("results-table")).to_have_count(0)
            mid_progress = await page.progress_value()
            assert early_progress < mid_progress < 100

            model.gates[1].set()
            await expect(page.hook("answer")).to_have_text(STORES_ANSWER)
        finally:
            release_all(model)

        for step in range(3):
            await expect(page.steps.nth(step)).to_have_attribute("data-state", "done")
        await expect(page.hook("status")).to_have_text("已完成")
        await expect(page.hook("progress-bar")).to_have_attribute("aria-valuenow", "100")
        await expect(page.hook("sql")).to_contain_text("GROUP BY")
        table = page.hook("results-table")
        await expect(table.locator("th")).to_have_text(["地区", "门店数"])
        await expect(table.locator("tbody tr")).to_have_count(7)
        await expect(table.locator("tbody tr").first).to_have_text(re.compile(r"^\D+\d+$"))
        await expect(page.hook("records-note")).to_have_text("共 7 行")
        await expect(page.hook("error-box")).to_be_hidden()
        await expect(page.hook("conversation-id")).to_have_text(
            re.compile(r"^web-[0-9a-f]{16}:\d{17}$")
        )
        await page.assert_streams_closed()
        assert len(page.stream_requests) == 1
        own = await page.page.evaluate("localStorage.getItem('sqlAgentUserId')")
        assert page.stream_query(0) == {
            "question": QUESTION,
            "lang": "zh-CN",
            "stream_tools": "true",
            "stream_tokens": "true",
            "clarify": "true",  # the page may be asked back, unless its user turns it off
            "user_id": own,  # this browser's own id (keys are off)
        }
        assert page.page_errors == []
        await page.page.screenshot(path=str(SCREENSHOT), full_page=True, animations="disabled")


async def test_page_shows_the_error_event_in_the_error_box(
    fast_settings: Settings, browser: Browser
) -> None:
    # No model and no LLM settings: every question is answered with a 503 `error` event.
    async with running_service(fast_settings) as service:
        page = await open_progress_page(browser, service.base_url)
        await page.ask(QUESTION)

        error_box = page.hook("error-box")
        await expect(error_box).to_be_visible()
        await expect(error_box).to_contain_text("未配置大模型")
        await expect(page.hook("error-type")).to_have_text("LLM_NOT_CONFIGURED")
        await page.assert_streams_closed()

    await expect(page.hook("answer")).to_be_empty()
    await expect(page.hook("status")).to_have_text("出错了")
    # The error names a thread that never ran; the page must not continue it.
    await expect(page.hook("conversation-id")).to_be_empty()
    assert len(page.stream_requests) == 1
    assert page.page_errors == []


async def test_page_in_english_asks_in_english_and_shows_the_english_error(
    fast_settings: Settings, browser: Browser
) -> None:
    async with running_service(fast_settings) as service:
        page = await open_progress_page(browser, service.base_url)
        await page.hook("lang-select").select_option("en-US")
        await expect(page.hook("submit")).to_have_text("Ask")
        await expect(page.page.locator("html")).to_have_attribute("lang", "en-US")
        await page.ask("How many stores per region?")

        await expect(page.hook("error-box")).to_contain_text("No LLM is configured")
        await page.assert_streams_closed()

    assert page.stream_query(0)["lang"] == "en-US"
    assert page.page_errors == []


STATUS_MESSAGES = {
    401: "API 密钥缺失或不正确（HTTP 401）。",
    403: "没有权限这样提问（HTTP 403）。",
    429: "提问太频繁了（HTTP 429）。",
    502: "服务出错了（HTTP 502），请稍后重试。",
}


@pytest.mark.parametrize("status", sorted(STATUS_MESSAGES))
async def test_each_status_of_the_stream_shows_its_own_message(
    fast_settings: Settings, browser: Browser, status: int
) -> None:
    # A proxy or gateway in front of the service answers these (the service's own refusals
    # come as `error` events); an EventSource could not tell any of them from a lost line.
    async def refuse(route: Any) -> None:
        headers = {"Retry-After": "2"} if status == 429 else {}
        await route.fulfill(status=status, content_type="text/plain", body="no", headers=headers)

    async with running_service(fast_settings) as service:
        page = await open_progress_page(browser, service.base_url)
        await page.page.route(f"**{STREAM_PATH}*", refuse)
        await page.ask(QUESTION)

        await expect(page.hook("error-box")).to_contain_text(STATUS_MESSAGES[status])
        await page.assert_streams_closed()
        retry = page.hook("retry")
        if status == 429:  # Retry is live once Retry-After has passed, counting down till then
            await expect(retry).to_be_disabled()
            await expect(retry).to_have_text(re.compile(r"^[12] 秒后可重试$"))
        await expect(retry).to_be_enabled(timeout=(WAIT_SECONDS + 3) * 1000)
        await expect(retry).to_have_text("重试")

    assert "连接中断" not in (await page.hook("error-box").inner_text())
    assert page.page_errors == []


async def test_page_reports_a_stream_cut_before_its_end_as_a_lost_connection(
    fast_settings: Settings, browser: Browser
) -> None:
    cut = 'id: run1:1\ndata: {"code":200,"success":true,"data":{"type":"started"}}\n\n'
    resumed_from: list[str | None] = []

    async def cut_short(route: Any) -> None:
        resumed_from.append(route.request.headers.get("last-event-id"))
        await route.fulfill(status=200, content_type="text/event-stream", body=cut)

    async with running_service(fast_settings) as service:
        page = await open_progress_page(browser, service.base_url)
        await page.page.route(f"**{STREAM_PATH}*", cut_short)
        await page.ask(QUESTION)

        await expect(page.hook("error-box")).to_contain_text("连接中断")
        await page.assert_streams_closed()

    # It picked the run up again from the last event it had, as a browser would, then gave up.
    assert resumed_from == [None, "run1:1", "run1:1", "run1:1"]
    await expect(page.hook("answer")).to_be_empty()
    assert page.page_errors == []


async def test_follow_up_question_continues_the_conversation_until_a_new_one_is_started(
    fast_settings: Settings, browser: Browser
) -> None:
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=STORES_BY_REGION_SQL), answer(STORES_ANSWER)],
        default=answer("华东地区有 8 家门店。"),
    )
    async with running_service(fast_settings, model=model) as service:
        page = await open_progress_page(browser, service.base_url, user_id="wang1")
        await page.ask(QUESTION)
        await expect(page.hook("answer")).to_have_text(STORES_ANSWER)
        conversation = page.hook("conversation-id")
        await expect(conversation).to_have_text(re.compile(r"^wang1:\d{17}$"))
        first_thread = await conversation.text_content()
        await page.assert_streams_closed()

        await page.ask("其中哪个地区最多？")
        await expect(page.hook("answer").last).to_have_text("华东地区有 8 家门店。")
        await expect(page.hook("turn")).to_have_count(2)
        await expect(conversation).to_have_text(first_thread or "")
        await page.assert_streams_closed()

        await page.hook("new-conversation").click()
        await expect(conversation).to_be_empty()
        await expect(page.hook("turn")).to_have_count(0)
        await page.ask("一共有多少家门店？")
        await expect(page.hook("answer")).to_have_text("华东地区有 8 家门店。")
        await expect(conversation).to_have_text(re.compile(r"^wang1:\d{17}$"))
        await page.assert_streams_closed()
        third_thread = await conversation.text_content()

    assert page.stream_query(0).get("thread_id") is None
    assert page.stream_query(1)["thread_id"] == first_thread
    assert page.stream_query(1)["user_id"] == "wang1"
    assert page.stream_query(2).get("thread_id") is None
    assert third_thread != first_thread
    # Model call 2 is the follow-up's first: its prompt holds the first question and answer.
    follow_up_prompt = [message.content for message in model.seen[2]]
    assert QUESTION in follow_up_prompt and STORES_ANSWER in follow_up_prompt
    assert any(isinstance(m, HumanMessage) and m.content == QUESTION for m in model.seen[2])
    # A new conversation starts from nothing.
    assert QUESTION not in [message.content for message in model.seen[3]]
    assert page.page_errors == []


async def test_stop_button_cancels_the_run_on_the_server_at_once(
    settings: Settings, browser: Browser
) -> None:
    # A long resume grace: only the cancel request can end the run within the test.
    patient = settings.model_copy(update={"stream_resume_grace": 600.0})
    model = ScriptedChatModel(replies=[answer("never shown")])
    gate_model_calls(model, 0)
    async with running_service(patient, model=model) as service:
        try:
            page = await open_progress_page(browser, service.base_url)
            await page.ask(QUESTION)
            await wait_for(model.entered[0])
            runner = service.app.extensions["agent"].runner
            run = next(iter(runner.active.values()))
            cancels: list[str] = []
            page.page.on("request", lambda r: cancels.append(r.url) if "/cancel" in r.url else None)
            await page.hook("stop").click()
            await asyncio.wait_for(asyncio.gather(run.task, return_exceptions=True), WAIT_SECONDS)
        finally:
            release_all(model)
        assert run.task.cancelled()
        assert cancels == [f"{service.base_url}/api/v0/react/runs/{run.run_id}/cancel"]
        await page.assert_streams_closed()
        await expect(page.hook("answer")).to_be_empty()
        await expect(page.hook("status")).to_have_text("已停止")
        assert page.page_errors == []
