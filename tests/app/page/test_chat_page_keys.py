"""The page with API keys on: asked for first, a bound key's user, Stop that really stops."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import expect
from pydantic import SecretStr

from config import Settings
from tests.app.page.chat_page_support import ServedPage, chromium, open_tab, skip_without_browser
from tests.support.live_server import running_service
from tests.support.routed_model import RoutedChatModel
from tests.support.scripted_model import ScriptedChatModel, answer

pytestmark = pytest.mark.asyncio(loop_scope="module")

FREE_KEY = "free-key-1"
ALICE_KEY = "alice-key-1"
PAIR_KEY = "pair-key-1"
WAIT_SECONDS = 15


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServedPage]:
    """One keyed app (a free key, a key bound to alice) and one Chromium for the module."""
    skip_without_browser()
    data_dir: Path = tmp_path_factory.mktemp("chat_page_keys")
    settings = Settings(
        _env_file=None,
        data_dir=data_dir,
        checkpoint_database_url=f"sqlite:///{data_dir / 'checkpoints.db'}",
        openai_api_key=None,
        openai_base_url=None,
        run_timeout=30,
        # A long grace: only the page's cancel request can end a stopped run in time.
        stream_resume_grace=600.0,
        api_keys=SecretStr(f"{FREE_KEY};{ALICE_KEY}=alice;{PAIR_KEY}=alice,bob"),
    )
    model = RoutedChatModel(parent=ScriptedChatModel(default=answer("follow-up answer")))
    async with running_service(settings, model=model) as service, chromium() as browser:
        yield ServedPage(service.base_url, browser, model, service)


async def test_the_page_asks_for_a_key_before_anything_says_missing_or_invalid(
    served: ServedPage,
) -> None:
    tab = await open_tab(served.browser, served.url, locale="en-US")
    await expect(tab.hook("key-notice")).to_be_visible()
    assert "invalid" not in (await tab.page.locator("body").inner_text()).lower()
    await tab.hook("enter-key").click()
    await expect(tab.hook("key-input")).to_have_attribute("type", "password")
    await tab.hook("key-input").fill(FREE_KEY)
    await tab.hook("key-save").click()

    await expect(tab.hook("key-notice")).to_be_hidden()
    await expect(tab.hook("conversation-list")).to_contain_text("No conversations yet")
    assert await tab.page.evaluate("localStorage.getItem('sqlAgentApiKey')") == FREE_KEY
    await tab.hook("forget-key").click()
    await expect(tab.hook("key-notice")).to_be_visible()
    assert await tab.page.evaluate("localStorage.getItem('sqlAgentApiKey')") is None


async def test_a_key_bound_to_one_user_answers_as_that_user_without_a_user_field(
    served: ServedPage,
) -> None:
    question = "bound key question"
    served.model.routes[question] = ScriptedChatModel(replies=[answer("Answered for alice.")])
    tab = await open_tab(served.browser, served.url, locale="en-US", api_key=ALICE_KEY)
    await expect(tab.hook("acting-as")).to_have_text("Acting as alice")
    await expect(tab.hook("user-id-input")).to_be_hidden()  # the key says who asks

    await tab.ask(question)

    await expect(tab.hook("answer")).to_have_text("Answered for alice.")
    await expect(tab.hook("conversation-id")).to_have_text(__import__("re").compile("^alice:"))
    await expect(tab.hook("conversation-item")).to_have_count(1)
    assert tab.errors == []


async def test_a_key_bound_to_two_users_offers_only_those_two(served: ServedPage) -> None:
    question = "pair key question"
    served.model.routes[question] = ScriptedChatModel(replies=[answer("Answered for bob.")])
    tab = await open_tab(served.browser, served.url, locale="en-US", api_key=PAIR_KEY)
    pick = tab.page.get_by_label("User ID (optional)")  # the list, under the field's label
    await expect(pick).to_be_visible()
    await expect(pick).to_have_attribute("data-testid", "user-pick")
    await expect(pick.locator("option")).to_have_text(["alice", "bob"])
    await expect(tab.hook("user-id-input")).to_be_hidden()  # nobody else can be typed in

    await pick.select_option("bob")
    await tab.ask(question)

    await expect(tab.hook("answer")).to_have_text("Answered for bob.")
    await expect(tab.hook("conversation-id")).to_have_text(__import__("re").compile("^bob:"))
    assert tab.errors == []


async def test_stop_sends_the_cancel_with_the_key_and_no_model_call_follows(
    served: ServedPage,
) -> None:
    question = "a question to stop"
    # The held call is cancelled before it answers, so the follow-up gets this reply.
    script = ScriptedChatModel(replies=[answer("follow-up answer")])
    script.gates[0], script.entered[0] = asyncio.Event(), asyncio.Event()
    served.model.routes[question] = script
    tab = await open_tab(served.browser, served.url, locale="en-US", api_key=FREE_KEY)
    try:
        await tab.ask(question)
        await asyncio.wait_for(script.entered[0].wait(), WAIT_SECONDS)
        runner = served.service.app.extensions["agent"].runner
        run = next(iter(runner.active.values()))
        async with tab.page.expect_response(lambda r: r.url.endswith("/cancel")) as cancelled:
            await tab.hook("stop").click()
        response = await cancelled.value
        await asyncio.wait_for(asyncio.gather(run.task, return_exceptions=True), WAIT_SECONDS)
    finally:
        script.gates[0].set()

    assert response.status == 200
    assert response.request.headers["authorization"] == f"Bearer {FREE_KEY}"
    assert response.url == f"{served.url}/api/v0/react/runs/{run.run_id}/cancel"
    assert run.task.cancelled() and script.seen == []  # the held call never answered
    await expect(tab.hook("status")).to_have_text("Stopped")
    stopped_in = await tab.hook("conversation-id").inner_text()
    own = await tab.page.evaluate("localStorage.getItem('sqlAgentUserId')")
    assert stopped_in.startswith(f"{own}:")  # the stopped question keeps its conversation

    await tab.ask("and now?")

    await expect(tab.hook("turn").last.get_by_test_id("answer")).to_have_text("follow-up answer")
    assert await tab.hook("conversation-id").inner_text() == stopped_in
    (follow_up_prompt,) = script.seen  # the follow-up's call, the only one that answered
    assert question in [m.content for m in follow_up_prompt]  # the stopped question stayed
    assert tab.errors == []
