"""The page's weight: compressed, cached static files and no heavy library before an answer."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import expect

from config import Settings
from tests.app.page.chat_page_support import (
    ServedPage,
    chromium,
    open_tab,
    skip_without_browser,
)
from tests.support.live_server import running_service
from tests.support.routed_model import RoutedChatModel
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

pytestmark = pytest.mark.asyncio(loop_scope="module")

INITIAL_JS_BUDGET = 400_000
"""Bytes of JavaScript (as sent, compressed) before the first answer (issue #52.9)."""
HEAVY = ("echarts", "sql-formatter", "highlight")
REGIONS_SQL = (
    "SELECT region_name AS 地区, COUNT(*) AS 门店数 FROM stores JOIN regions USING (region_id) "
    "GROUP BY region_name"
)


def settings_in(data_dir: Path) -> Settings:
    """Return the settings of a served app with its own data folder."""
    return Settings(
        _env_file=None,
        data_dir=data_dir,
        checkpoint_database_url=f"sqlite:///{data_dir / 'checkpoints.db'}",
        openai_api_key=None,
        openai_base_url=None,
        run_timeout=30,
        stream_resume_grace=0.0,
    )


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServedPage]:
    """One app and one Chromium for the module."""
    skip_without_browser()
    model = RoutedChatModel(parent=ScriptedChatModel(default=answer("好的。")))
    settings = settings_in(tmp_path_factory.mktemp("chat_weight"))
    async with running_service(settings, model=model) as service, chromium() as browser:
        yield ServedPage(service.base_url, browser, model, service)


async def test_static_files_are_gzipped_with_an_etag_and_a_cache_policy(
    served: ServedPage,
) -> None:
    http = served.service.http
    vendor = await http.get("/static/vendor/echarts/echarts.min.js")
    own = await http.get("/static/app.js")
    again = await http.get("/static/app.js", headers={"If-None-Match": own.headers["etag"]})
    etag = own.headers["etag"].strip('"')
    versioned = await http.get(f"/static/app.js?v={etag}")
    stale = await http.get("/static/app.js?v=0000")
    plain = await http.get("/static/app.js", headers={"Accept-Encoding": "identity"})
    outside = await http.get("/static/../__init__.py")
    page = await http.get("/")

    assert vendor.headers["content-encoding"] == "gzip"
    assert int(vendor.headers["content-length"]) < len(vendor.content) / 2  # sent compressed
    assert vendor.headers["cache-control"] == "public, max-age=86400"
    assert own.headers["content-encoding"] == "gzip"
    # A cache keeps one copy per encoding (and, for the embedded chat's CORS, per Origin).
    assert "Accept-Encoding" in [part.strip() for part in own.headers["vary"].split(",")]
    assert own.headers["cache-control"] == "no-cache"  # revalidated: 304 while unchanged
    assert again.status_code == 304 and again.content == b""
    assert versioned.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert stale.headers["cache-control"] == "no-cache"
    assert "content-encoding" not in plain.headers and plain.content == own.content
    assert outside.status_code == 404
    assert f'src="static/app.js?v={etag}"' in page.text  # the page names this very version


async def test_the_first_screen_sends_at_most_400_kb_of_javascript_and_no_heavy_library(
    served: ServedPage,
) -> None:
    tab = await open_tab(served.browser, "about:blank")
    session = await tab.page.context.new_cdp_session(tab.page)
    await session.send("Network.enable")
    await session.send("Network.setCacheDisabled", {"cacheDisabled": True})
    scripts: dict[str, str] = {}
    sent: dict[str, int] = {}

    def on_response(event: dict[str, Any]) -> None:
        if event["type"] == "Script":
            scripts[event["requestId"]] = event["response"]["url"]

    def on_finished(event: dict[str, Any]) -> None:
        sent[event["requestId"]] = int(event["encodedDataLength"])

    session.on("Network.responseReceived", on_response)
    session.on("Network.loadingFinished", on_finished)
    await tab.page.goto(served.url)
    await expect(tab.hook("starter").first).to_be_visible()  # the app has started
    await tab.page.wait_for_load_state("networkidle")

    before = sum(sent.get(request_id, 0) for request_id in scripts)
    urls = list(scripts.values())
    assert not [url for url in urls if any(name in url for name in HEAVY)], urls
    assert 0 < before <= INITIAL_JS_BUDGET, before
    # The first answer with SQL, a chart and a grid brings what it needs.
    served.model.routes["各地区门店数？"] = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=REGIONS_SQL), answer("华东最多。")]
    )
    await tab.ask("各地区门店数？")
    await tab.wait_for_answers(1)
    # The chart is a picture and the SQL is laid out and coloured in the drawing worker: the
    # page itself loads no heavy library for the answer; ECharts comes with a click.
    await expect(tab.hook("chart").locator("img")).to_have_count(1)
    await expect(tab.hook("results-table").locator("tbody tr")).to_have_count(7)
    await expect(tab.hook("sql").locator(".hljs-keyword").first).to_be_visible()
    assert "\nGROUP BY\n" in (await tab.hook("sql").text_content() or "")  # sql-formatter's
    loaded = " ".join(scripts.values())
    assert not [name for name in HEAVY if name in loaded], loaded
    await tab.hook("chart").click()
    await expect(tab.hook("chart").locator("canvas")).to_have_count(1)
    assert "echarts" in " ".join(scripts.values())
    assert re.search(r"static/app\.js\?v=\w+", loaded)
    assert tab.errors == []


async def test_without_a_drawing_worker_charts_are_live_and_sql_is_laid_out_on_the_page(
    served: ServedPage,
) -> None:
    # The worker's script cannot be had (a proxy, a policy): the page does the work itself.
    tab = await open_tab(served.browser, "about:blank")
    refused: list[str] = []

    async def refuse(route: Any) -> None:
        refused.append(route.request.url)
        await route.abort()

    await tab.page.context.route("**/draw_worker.js*", refuse)
    await tab.page.goto(served.url)
    served.model.routes["各地区门店数？"] = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=REGIONS_SQL), answer("华东最多。")]
    )
    await tab.ask("各地区门店数？")
    await tab.wait_for_answers(1)
    await expect(tab.hook("chart").locator("canvas")).to_have_count(1)  # live from the start
    assert await tab.hook("chart").locator("img").count() == 0
    await expect(tab.hook("sql").locator(".hljs-keyword").first).to_be_visible()
    assert "\nGROUP BY\n" in (await tab.hook("sql").text_content() or "")
    assert refused  # the worker was asked for, and refused
    assert [e for e in tab.errors if "draw_worker" not in e] == []
