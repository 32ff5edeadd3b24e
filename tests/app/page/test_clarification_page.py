"""The page's clarifying-question card in headless Chromium: an option, a typed answer."""

from __future__ import annotations

from playwright.async_api import expect

from config import Settings
from tests.app.page.test_progress_page import (  # noqa: F401  (the browser fixture)
    browser,
    open_progress_page,
)
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool, prompt_text

QUESTION = "上季度销售额是多少"
ASK = call_tool(
    "ask_user", question="按下单日期还是付款日期统计？", options=["下单日期", "付款日期"]
)


def echo_answer(messages) -> object:
    tool = [m for m in messages if m.type == "tool"][-1]
    return answer(f"好的：{tool.content}")


async def test_an_option_answers_the_question_and_the_run_goes_on(settings: Settings, browser):  # noqa: F811
    model = ScriptedChatModel(replies=[ASK, echo_answer])
    # CLARIFY left at its default (request): the page asks with clarification on.
    assert settings.clarify == "request"
    default = settings.model_copy(update={"stream_resume_grace": 0.0})
    async with running_service(default, model=model) as service:
        tab = await open_progress_page(browser, service.base_url, user_id="mei")
        await tab.ask(QUESTION)

        card = tab.hook("clarification-card")
        await expect(card).to_be_visible()
        assert tab.stream_query(0)["clarify"] == "true"
        await expect(tab.hook("clarification-question")).to_have_text(
            "按下单日期还是付款日期统计？"
        )
        options = tab.hook("clarification-option")
        await expect(options).to_have_text(["下单日期", "付款日期"])
        await options.nth(1).click()

        await expect(tab.hook("answer").last).to_have_text("好的：The person answered: 付款日期")
        await expect(card).to_be_hidden()
        resumed = tab.stream_query(1)
        assert '"action":"answer"' in resumed["resume"] and "付款日期" in resumed["resume"]
        await tab.assert_streams_closed()
    assert not tab.page_errors


async def test_a_reopened_conversation_shows_the_question_and_a_typed_answer_resumes_it(
    settings: Settings,
    browser,  # noqa: F811
):
    model = ScriptedChatModel(replies=[ASK, echo_answer])
    clarifying = settings.model_copy(update={"clarify": "on", "stream_resume_grace": 0.0})
    async with running_service(clarifying, model=model) as service:
        status, body = await service.ask(question=QUESTION, user_id="mei")
        assert status == 200 and body["data"]["status"] == "awaiting_clarification", body
        thread_id = body["data"]["thread_id"]
        tab = await open_progress_page(browser, service.base_url, user_id="mei")
        await tab.page.goto(f"{service.base_url}/?c={thread_id}")

        await expect(tab.hook("clarification-card")).to_be_visible()
        await tab.hook("clarification-text").fill("按付款日期，不含退款")
        await tab.hook("clarification-send").click()

        await expect(tab.hook("answer").last).to_have_text(
            "好的：The person answered: 按付款日期，不含退款"
        )
        await expect(tab.hook("clarification-card")).to_be_hidden()
    assert not tab.page_errors


async def test_with_asking_back_turned_off_the_page_asks_without_clarification(
    settings: Settings,
    browser,  # noqa: F811
):
    model = ScriptedChatModel(replies=[answer("假设按下单日期：销售额 100。")])
    async with running_service(settings, model=model) as service:
        tab = await open_progress_page(browser, service.base_url, user_id="mei")
        await expect(tab.hook("ask-back-toggle")).to_be_checked()
        await tab.hook("ask-back-toggle").uncheck()
        await tab.ask(QUESTION)

        await expect(tab.hook("answer").last).to_have_text("假设按下单日期：销售额 100。")
        assert tab.stream_query(0)["clarify"] == "false"
        prompt = prompt_text(model.seen[0])
        assert "state that assumption" in prompt and "call ask_user" not in prompt
        await tab.assert_streams_closed()
    assert not tab.page_errors
