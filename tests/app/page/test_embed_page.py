"""<sql-agent-chat> on another site's page (docs/embed/demo.html) in headless Chromium.

The service runs with API keys and EMBED_ORIGINS naming one host site; the model is the
OpenAI stub behind ChatOpenAI, scripted per test. The demo page is served by a plain HTTP
server on other ports: one listed site, where the chat asks, streams, shows the grid and the
chart and pauses for an approval, and one not listed, where the browser refuses it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
import pytest_asyncio
from playwright.async_api import Browser, expect
from pydantic import SecretStr

from config import Settings
from tests.app.page.chat_page_support import Tab, chromium, open_tab, skip_without_browser
from tests.support.live_server import running_service
from tests.support.openai_stub import OpenAIStub, Reply, ToolCall
from tests.support.sse import STREAM_PATH
from tests.support.waiting import eventually

pytestmark = pytest.mark.asyncio(loop_scope="module")

DEMO_DIR = Path(__file__).resolve().parents[3] / "docs" / "embed"
KEY = "embed-page-key-0123456789"
REGIONS_SQL = (
    "SELECT region_name AS 地区, COUNT(*) AS 门店数 FROM stores JOIN regions USING (region_id) "
    "GROUP BY region_name"
)
COUNT_SQL = "SELECT COUNT(*) AS n FROM regions"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def host_site() -> Iterator[str]:
    """Serve docs/embed/ on a free port of 127.0.0.1: another site than the service."""
    handler = functools.partial(_QuietHandler, directory=str(DEMO_DIR))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@dataclass
class Embedding:
    """The service, the stub model behind it, the two host sites and the browser."""

    service: str
    stub: OpenAIStub
    listed: str
    other: str
    browser: Browser


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def embedding(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Embedding]:
    skip_without_browser()
    data_dir = tmp_path_factory.mktemp("embed_page")
    with OpenAIStub() as stub, host_site() as listed, host_site() as other:
        settings = Settings(
            _env_file=None,
            data_dir=data_dir,
            checkpoint_database_url=f"sqlite:///{data_dir / 'checkpoints.db'}",
            openai_base_url=stub.base_url,
            openai_api_key=SecretStr("sk-stub"),
            api_keys=SecretStr(KEY),
            embed_origins=listed,
            run_timeout=30,
            stream_resume_grace=0.0,
        )
        async with running_service(settings) as service, chromium() as browser:
            yield Embedding(service.base_url, stub, listed, other, browser)


async def open_demo(embedding: Embedding, site: str) -> Tab:
    """Open the demo page of `site`, pointed at the service."""
    return await open_tab(embedding.browser, f"{site}/demo.html?service={embedding.service}")


async def ask(tab: Tab, question: str) -> None:
    """Give the key to the host page's callback, then ask in the chat."""
    await expect(tab.page.locator("sql-agent-chat[data-ready=true]")).to_have_count(1)
    await tab.hook("demo-key").fill(KEY)
    await tab.hook("question-input").fill(question)
    await tab.hook("submit").click()


def stream_requests(tab: Tab) -> list[Any]:
    return [r for r in tab.requests if r.url.endswith(STREAM_PATH) and r.method == "POST"]


async def test_the_chat_on_a_listed_site_asks_and_shows_markdown_grid_chart_and_follows_up(
    embedding: Embedding,
) -> None:
    embedding.stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": REGIONS_SQL})]),
        Reply(text="**华东**最多，共 8 家。"),
    )
    tab = await open_demo(embedding, embedding.listed)
    await ask(tab, "各地区门店数？")

    turn = tab.hook("turn")
    await expect(turn.get_by_test_id("answer")).to_have_text("华东最多，共 8 家。")
    await expect(turn.get_by_test_id("answer").locator("strong")).to_have_text("华东")
    await expect(turn.get_by_test_id("results-table").locator("tbody tr")).to_have_count(7)
    await expect(turn.get_by_test_id("chart").locator("img")).to_have_count(1)
    await expect(turn.get_by_test_id("status")).to_have_text("已完成")
    await expect(tab.hook("demo-status")).to_contain_text("Answered in conversation guest:")
    await tab.screenshot("embed-answer")

    first = stream_requests(tab)[0]
    headers = await first.all_headers()
    assert headers["authorization"] == f"Bearer {KEY}"
    assert headers["origin"] == embedding.listed
    assert first.post_data_json["question"] == "各地区门店数？"
    response = await first.response()
    assert response is not None
    assert (await response.all_headers())["access-control-allow-origin"] == embedding.listed
    # The key went in a header only: never into the host's markup nor the chat's.
    shadow = "document.querySelector('sql-agent-chat').shadowRoot.innerHTML"
    assert KEY not in await tab.page.content() and KEY not in await tab.page.evaluate(shadow)

    # A follow-up continues the conversation (the stub's default answer quotes the rows).
    await tab.hook("question-input").fill("按销售额呢？")
    await tab.hook("question-input").press("Enter")
    await expect(turn).to_have_count(2)
    await expect(turn.nth(1).get_by_test_id("answer")).to_contain_text("查询结果如下")
    thread_id = stream_requests(tab)[1].post_data_json["thread_id"]
    assert thread_id.startswith("guest:")
    assert thread_id in await tab.hook("demo-status").inner_text()

    await tab.hook("demo-lang").select_option("en")
    await expect(tab.hook("submit")).to_have_text("Ask")
    await expect(turn.nth(0).get_by_test_id("status")).to_have_text("Done")
    assert tab.errors == []


async def test_the_chat_pauses_for_approval_and_the_approved_query_runs(
    embedding: Embedding,
) -> None:
    embedding.stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": COUNT_SQL})]),
        Reply(text="共 7 个地区。"),
    )
    tab = await open_demo(embedding, embedding.listed)
    await tab.hook("demo-approve").check()
    await ask(tab, "有几个地区？")

    card = tab.hook("approval-card")
    await expect(card).to_be_visible()
    await expect(tab.hook("approval-sql")).to_have_value("SELECT\n  COUNT(*) AS n\nFROM\n  regions")
    await expect(tab.hook("status")).to_have_text("等待你确认 SQL")
    assert stream_requests(tab)[0].post_data_json["approve_sql"] is True
    await tab.screenshot("embed-approval")
    await tab.hook("approval-approve").click()

    await expect(tab.hook("answer")).to_have_text("共 7 个地区。")
    await expect(tab.hook("headline")).to_contain_text("7")
    await expect(card).to_be_hidden()
    resumed = stream_requests(tab)[1].post_data_json
    assert resumed["resume"]["action"] == "approve" and resumed["thread_id"].startswith("guest:")
    assert "question" not in resumed
    assert tab.errors == []


async def test_the_chat_asks_back_and_a_chosen_option_resumes_the_run(
    embedding: Embedding,
) -> None:
    options = ["下单日期", "付款日期"]
    embedding.stub.script(
        Reply(tool_calls=[ToolCall("ask_user", {"question": "按哪个日期？", "options": options})]),
        Reply(text="按付款日期统计。"),
    )
    tab = await open_demo(embedding, embedding.listed)
    await ask(tab, "上个月销售额？")

    await expect(tab.hook("clarification-question")).to_have_text("按哪个日期？")
    await expect(tab.hook("clarification-option")).to_have_text(options)
    assert stream_requests(tab)[0].post_data_json["clarify"] is True
    assert await tab.axe_serious() == []  # the host page and the chat's shadow root
    await tab.hook("clarification-option").nth(1).click()

    await expect(tab.hook("answer")).to_have_text("按付款日期统计。")
    await expect(tab.hook("clarification-card")).to_be_hidden()
    resumed = stream_requests(tab)[1].post_data_json["resume"]
    assert resumed["action"] == "answer" and resumed["text"] == "付款日期"
    assert tab.errors == []


def reads_back(tab: Tab, path: str) -> list[Any]:
    """Return the chat's GETs of `path` (a conversation's turns, or its status)."""
    return [r for r in tab.requests if f"/api/v0/react/{path}/" in r.url and r.method == "GET"]


def read_thread(request: Any) -> str:
    """Return the conversation a GET of the chat read back (the last part of its path)."""
    return unquote(urlsplit(request.url).path.rsplit("/", 1)[-1])


async def reload_host(tab: Tab) -> None:
    """Reload the host page and wait until the chat has read its conversation back."""
    await tab.page.reload()
    await expect(tab.page.locator("sql-agent-chat[data-ready=true]")).to_have_count(1)


async def test_after_a_reload_the_approval_card_is_back_and_approving_resumes_the_run(
    embedding: Embedding,
) -> None:
    embedding.stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": COUNT_SQL})]),
        Reply(text="共 7 个地区。"),
    )
    tab = await open_demo(embedding, embedding.listed)
    await tab.hook("demo-approve").check()
    await ask(tab, "有几个地区？")
    await expect(tab.hook("approval-card")).to_be_visible()
    assert "thread_id" not in stream_requests(tab)[0].post_data_json  # a new conversation

    await reload_host(tab)
    await expect(tab.hook("approval-card")).to_be_visible()
    await expect(tab.hook("approval-sql")).to_have_value("SELECT\n  COUNT(*) AS n\nFROM\n  regions")
    await expect(tab.hook("turn-question")).to_have_text("有几个地区？")
    await expect(tab.hook("status")).to_have_text("等待你确认 SQL")
    await tab.screenshot("embed-approval-after-reload")
    # Read back across origins: the browser let the chat read both answers (CORS).
    for read in (*reads_back(tab, "conversations"), *reads_back(tab, "status")):
        response = await read.response()
        assert response is not None and response.status == 200
        assert (await response.all_headers())["access-control-allow-origin"] == embedding.listed
        assert (await read.all_headers())["authorization"] == f"Bearer {KEY}"
    assert len(reads_back(tab, "status")) == 1
    await tab.hook("approval-approve").click()

    await expect(tab.hook("answer")).to_have_text("共 7 个地区。")
    await expect(tab.hook("approval-card")).to_be_hidden()
    resumed = stream_requests(tab)[1].post_data_json
    assert resumed["resume"]["action"] == "approve" and resumed["thread_id"].startswith("guest:")
    assert resumed["thread_id"] == read_thread(reads_back(tab, "conversations")[0])

    # Answered, it comes back as an answer; "New conversation" forgets it for the next reload.
    await reload_host(tab)
    await expect(tab.hook("answer")).to_have_text("共 7 个地区。")
    await expect(tab.hook("approval-card")).to_be_hidden()
    await tab.hook("new-conversation").click()
    await reload_host(tab)
    await expect(tab.hook("turn")).to_have_count(0)
    assert len(reads_back(tab, "conversations")) == 2  # none after the conversation was left
    assert tab.errors == []


async def test_after_a_reload_the_question_card_is_back_and_a_typed_answer_resumes_the_run(
    embedding: Embedding,
) -> None:
    options = ["下单日期", "付款日期"]
    embedding.stub.script(
        Reply(tool_calls=[ToolCall("ask_user", {"question": "按哪个日期？", "options": options})]),
        Reply(text="按付款日期统计，不含退款。"),
    )
    tab = await open_demo(embedding, embedding.listed)
    await ask(tab, "上个月销售额？")
    await expect(tab.hook("clarification-question")).to_have_text("按哪个日期？")

    await reload_host(tab)
    await expect(tab.hook("clarification-card")).to_be_visible()
    await expect(tab.hook("clarification-question")).to_have_text("按哪个日期？")
    await expect(tab.hook("clarification-option")).to_have_text(options)
    await expect(tab.hook("turn-question")).to_have_text("上个月销售额？")
    await tab.hook("clarification-text").fill("付款日期，不含退款")
    await tab.hook("clarification-send").click()

    await expect(tab.hook("answer")).to_have_text("按付款日期统计，不含退款。")
    await expect(tab.hook("clarification-card")).to_be_hidden()
    resumed = stream_requests(tab)[1].post_data_json
    assert resumed["resume"] | {"interrupt_id": ""} == {
        "interrupt_id": "",
        "action": "answer",
        "text": "付款日期，不含退款",
    }
    assert resumed["thread_id"] == read_thread(reads_back(tab, "conversations")[0])
    # The model went on from the person's answer, in the same conversation.
    assert "付款日期，不含退款" in str(embedding.stub.requests[-1])
    assert tab.errors == []


async def test_a_stream_cut_short_resumes_from_its_last_event(embedding: Embedding) -> None:
    embedding.stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": REGIONS_SQL})]),
        Reply(text="华东的门店最多。"),
    )
    tab = await open_demo(embedding, embedding.listed)
    sent: list[str] = []

    async def cut_after_three_events(route: Any) -> None:
        response = await route.fetch()
        events = (await response.text()).split("\n\n")
        sent.extend(events[:3])
        # The body ends there, with no `end`: as a connection that broke.
        await route.fulfill(response=response, body="\n\n".join(sent) + "\n\n")

    await tab.page.route(f"{embedding.service}{STREAM_PATH}", cut_after_three_events, times=1)
    await ask(tab, "各地区门店数？")

    await expect(tab.hook("answer")).to_have_text("华东的门店最多。")
    await expect(tab.hook("results-table").locator("tbody tr")).to_have_count(7)
    first, resumed = stream_requests(tab)
    last_id = next(line[4:] for line in sent[-1].splitlines() if line.startswith("id: "))
    assert (await resumed.all_headers())["last-event-id"] == last_id
    assert (await first.all_headers()).get("last-event-id") is None
    await expect(tab.hook("status")).to_have_text("已完成")
    assert tab.errors == []


async def test_stop_cancels_the_run_through_the_cancel_route_across_origins(
    embedding: Embedding,
) -> None:
    held = threading.Event()
    embedding.stub.script(Reply(text="不会说完的回答", wait_for=held))
    tab = await open_demo(embedding, embedding.listed)
    asked = len(embedding.stub.requests)
    try:
        await ask(tab, "一个要停下的问题")
        await expect(tab.hook("stop")).to_be_visible()
        # The model call is under way (and the scripted reply taken): stop in the middle.
        assert await eventually(lambda: len(embedding.stub.requests) > asked)
        async with tab.page.expect_response(lambda r: r.url.endswith("/cancel")) as cancelled:
            await tab.hook("stop").click()
        response = await cancelled.value
    finally:
        held.set()
    # Readable by the host's page: the preflight and the answer carried the CORS headers.
    assert response.status == 200
    assert (await response.json())["data"]["status"] in ("cancelling", "finished")
    await expect(tab.hook("status")).to_have_text("已停止")
    await expect(tab.hook("stop")).to_be_hidden()
    await expect(tab.hook("submit")).to_be_enabled()
    assert tab.errors == []


async def test_a_site_not_in_embed_origins_is_refused_by_the_browser(
    embedding: Embedding,
) -> None:
    asked = len(embedding.stub.requests)
    tab = await open_demo(embedding, embedding.other)
    await expect(tab.page.locator("body[data-embed=refused]")).to_have_count(1)
    assert await tab.page.evaluate("customElements.get('sql-agent-chat') === undefined")
    assert any("CORS policy" in error for error in tab.errors), tab.errors
    # Nor may its own script call the stream route with a key: the preflight is refused.
    outcome = await tab.page.evaluate(
        """async ([url, key]) => {
          try {
            await fetch(url, {method: "POST", headers: {Authorization: `Bearer ${key}`,
              "Content-Type": "application/json"}, body: JSON.stringify({question: "q"})});
            return "answered";
          } catch (error) {
            return error.name;
          }
        }""",
        [f"{embedding.service}{STREAM_PATH}", KEY],
    )
    assert outcome == "TypeError"
    assert len(embedding.stub.requests) == asked
