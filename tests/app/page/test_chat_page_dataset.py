"""The page's dataset chip: an uploaded file is what the conversation asks, across a reload."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.app.page.chat_page_support import chromium, open_tab, skip_without_browser
from tests.app.page.test_chat_page_weight import settings_in
from tests.support.live_server import running_service
from tests.support.routed_model import RoutedChatModel
from tests.support.scripted_model import ScriptedChatModel, answer

pytestmark = pytest.mark.asyncio

CSV = "city,visits\nHangzhou,12\nSuzhou,7\n"


async def test_an_upload_becomes_a_chip_the_questions_carry_and_a_reload_keeps(
    tmp_path: Path,
) -> None:
    skip_without_browser()
    settings = settings_in(tmp_path).model_copy(update={"datasets_enabled": True})
    upload = tmp_path / "visits.csv"
    upload.write_text(CSV, encoding="utf-8")
    model = RoutedChatModel(parent=ScriptedChatModel(default=answer("两座城市。")))
    async with running_service(settings, model=model) as service, chromium() as browser:
        tab = await open_tab(browser, service.base_url)
        await expect(tab.hook("upload")).to_be_visible()
        await tab.page.locator("#upload-file").set_input_files(str(upload))
        chip = tab.hook("dataset-chip")
        await expect(chip).to_contain_text("visits.csv")
        # The table browser shows the file's tables and columns.
        await expect(tab.hook("schema-table")).to_have_count(1)
        await expect(tab.hook("schema-list")).to_contain_text("visits")

        await tab.ask("每个城市多少访问？")
        await tab.wait_for_answers(1)
        bodies = [
            json.loads(r.post_data) for r in tab.requests if "ask_react_agent_stream" in r.url
        ]
        assert len(bodies[0]["dataset_id"]) == 16

        await tab.page.reload()
        await tab.wait_for_answers(1)
        await expect(chip).to_contain_text("visits.csv")  # it stays with the conversation
        await tab.hook("dataset-remove").click()
        await expect(chip).to_be_hidden()
        assert tab.errors == []


async def test_with_uploads_off_the_page_never_asks_for_datasets(tmp_path: Path) -> None:
    skip_without_browser()
    async with running_service(settings_in(tmp_path)) as service, chromium() as browser:
        tab = await open_tab(browser, service.base_url)
        await expect(tab.hook("starter").first).to_be_visible()
        await tab.page.wait_for_load_state("networkidle")
        assert [r.url for r in tab.requests if "/api/v0/datasets" in r.url] == []
        await expect(tab.hook("upload")).to_be_hidden()
        # With keys off there is no key to change or forget.
        await expect(tab.hook("change-key")).to_be_hidden()
        await expect(tab.hook("forget-key")).to_be_hidden()
