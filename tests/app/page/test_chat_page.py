"""The page as a chat over data, in Chromium at 1280×900 and 390×844, as a person uses it."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import expect

from config import Settings
from config.sample_questions import sample_questions
from tests.app.page.chat_page_support import (
    CJK,
    PHONE,
    ServedPage,
    chromium,
    open_tab,
    skip_without_browser,
)
from tests.support.live_server import running_service
from tests.support.routed_model import RoutedChatModel
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

pytestmark = pytest.mark.asyncio(loop_scope="module")

REGIONS_SQL = (
    "SELECT region_name AS 地区, COUNT(*) AS 门店数 FROM stores JOIN regions USING (region_id) "
    "GROUP BY region_name"
)
THOUSAND_SQL = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) "
    "SELECT i AS id, i * 1234.5 AS amount, date('2020-01-01', '+' || i || ' days') AS day FROM n"
)
WIDE_SQL = (
    "SELECT s.*, r.*, 'a rather long text value that does not fit' AS note1, "
    "'another long text value for the ninth column' AS note2 "
    "FROM stores s JOIN regions r USING (region_id)"
)
HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServedPage]:
    """One app and one Chromium for the whole module; each test scripts its own questions."""
    skip_without_browser()
    data_dir: Path = tmp_path_factory.mktemp("chat_page")
    settings = Settings(
        _env_file=None,
        data_dir=data_dir,
        checkpoint_database_url=f"sqlite:///{data_dir / 'checkpoints.db'}",
        openai_api_key=None,
        openai_base_url=None,
        run_timeout=30,
        stream_resume_grace=0.0,
    )
    model = RoutedChatModel(parent=ScriptedChatModel(default=echo))
    async with running_service(settings, model=model) as service, chromium() as browser:
        yield ServedPage(service.base_url, browser, model)


def echo(messages: list) -> object:
    """Answer a question the test did not script (a follow-up) by quoting it."""
    return answer(f"回答：{[m for m in messages if m.type == 'human'][-1].content}")


def script(served: ServedPage, question: str, *replies) -> None:
    """Make the conversation that starts with `question` play `replies`."""
    served.model.routes[question] = ScriptedChatModel(replies=list(replies), default=echo)


async def test_two_follow_ups_and_a_reload_keep_every_turn_with_its_sql_chart_and_table(
    served: ServedPage,
) -> None:
    first = "各地区门店数？"
    script(
        served,
        first,
        call_tool("run_sql", sql=REGIONS_SQL),
        answer("**华东**最多，共 8 家。"),
    )
    tab = await open_tab(served.browser, served.url)
    await tab.ask(first)
    await tab.wait_for_answers(1)
    await tab.ask("再说一遍？")
    await tab.wait_for_answers(2)
    await tab.ask("第三个问题")
    await tab.wait_for_answers(3)
    await tab.screenshot("thread-desktop")
    assert re.search(r"\?c=web-[0-9a-f]{16}%3A\d{17}$", tab.page.url)  # this browser's own id

    await tab.page.reload()

    turns = tab.hook("turn")
    await expect(turns).to_have_count(3)
    await expect(turns.nth(0).get_by_test_id("answer").locator("strong")).to_have_text("华东")
    await expect(turns.nth(1).get_by_test_id("answer")).to_have_text("回答：再说一遍？")
    await expect(turns.nth(2).get_by_test_id("answer")).to_have_text("回答：第三个问题")
    await expect(turns.nth(0).get_by_test_id("sql")).to_contain_text("GROUP BY")
    await expect(turns.nth(0).get_by_test_id("chart").locator("img")).to_have_count(1)
    await expect(turns.nth(0).get_by_test_id("results-table").locator("tbody tr")).to_have_count(7)
    await expect(turns.nth(0).get_by_test_id("records-note")).to_have_text("共 7 行")
    await expect(turns.nth(1).get_by_test_id("sql")).to_have_count(0)
    assert tab.errors == []


async def test_markdown_renders_and_html_in_a_question_or_answer_never_runs(
    served: ServedPage,
) -> None:
    question = f"show me {HOSTILE}"
    script(served, question, answer(f"# Title\n\n1. *one*\n2. `two`\n\n{HOSTILE}"))
    tab = await open_tab(served.browser, served.url, locale="en-US")
    await tab.ask(question)
    await tab.wait_for_answers(1)
    await tab.page.reload()
    await tab.wait_for_answers(1)

    rendered = tab.hook("answer")
    await expect(rendered.locator("h1")).to_have_text("Title")
    await expect(rendered.locator("ol li em")).to_have_text("one")
    await expect(tab.hook("turn-question")).to_have_text(question)  # shown as typed
    assert await tab.page.evaluate("window.__pwned") is None
    assert await tab.page.locator("[onerror], .turn script").count() == 0
    assert tab.errors == []


async def test_a_thousand_rows_page_in_a_grid_and_the_page_stays_a_few_screens(
    served: ServedPage,
) -> None:
    question = "a thousand rows"
    script(served, question, call_tool("run_sql", sql=THOUSAND_SQL), answer("1000 rows."))
    tab = await open_tab(served.browser, served.url, locale="en-US")
    await tab.ask(question)
    await tab.wait_for_answers(1)
    grid = tab.hook("results-table")
    await expect(grid.locator(".grid-pager")).to_be_visible()
    await expect(grid.locator("tbody tr").first).to_contain_text("1,234.5")
    await expect(tab.hook("chart-partial")).to_have_count(0)  # all 1,000 rows came back
    await grid.locator(".grid-sort[data-column='0']").click()  # sort by id…
    await grid.locator(".grid-sort[data-column='0']").click()  # …descending
    await expect(grid.locator("tbody tr").first).to_contain_text("1,000")
    await expect(grid.locator("tbody tr").first).to_contain_text("Sep 27, 2022")
    await tab.hook("lang-select").select_option("zh-CN")  # dates follow the language
    await expect(grid.locator("tbody tr").first).to_contain_text("2022年9月27日")
    await tab.hook("lang-select").select_option("en-US")
    await tab.screenshot("thousand-rows")

    height = await tab.page.evaluate("document.documentElement.scrollHeight")
    assert height < 4 * 900, height
    assert tab.errors == []


async def test_on_a_phone_a_nine_column_result_scrolls_in_its_box_not_the_page(
    served: ServedPage,
) -> None:
    question = "wide result"
    script(served, question, call_tool("run_sql", sql=WIDE_SQL), answer("Here they are."))
    tab = await open_tab(served.browser, served.url, viewport=PHONE, locale="en-US")
    await expect(tab.hook("conversation-list")).to_be_hidden()  # a drawer, closed
    await tab.ask(question)
    await tab.wait_for_answers(1)
    header = tab.hook("results-table").locator("th")
    # The grid is built after the answer's text is shown: wait for the ninth header.
    await expect(header.nth(8)).to_be_attached()

    widths = await tab.page.evaluate(
        "[document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]"
    )
    assert widths[0] <= widths[2] and widths[1] <= widths[2], widths
    # Both read in one frame: the page may still be following the turn as it grows.
    tops = await tab.page.evaluate(
        """['answer', 'results-table'].map(
          (id) => document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect().top)"""
    )
    assert tops[0] < tops[1], tops  # the answer first
    await tab.screenshot("phone-wide-result")
    await tab.hook("open-drawer").click()
    await expect(tab.hook("conversation-list")).to_be_visible()
    await expect(tab.hook("conversation-item")).not_to_have_count(0)
    await tab.screenshot("phone-drawer")
    assert tab.errors == []


async def test_a_waiting_approval_shows_its_card_when_picked_from_the_list(
    served: ServedPage,
) -> None:
    question = "需要确认的问题"
    script(served, question, call_tool("run_sql", sql=REGIONS_SQL), answer("批准后的回答"))
    tab = await open_tab(served.browser, served.url, user_id="appr")
    await tab.hook("approve-sql-toggle").check()
    await tab.ask(question)
    await expect(tab.hook("approval-card")).to_be_visible()
    await expect(tab.hook("status")).to_have_text("等待你确认 SQL")
    await tab.hook("new-conversation").click()
    await expect(tab.hook("approval-card")).to_be_hidden()

    await tab.hook("conversation-item").first.click()

    await expect(tab.hook("approval-card")).to_be_visible()
    await expect(tab.hook("approval-sql")).to_have_value(re.compile(r"GROUP BY\s+region_name"))
    await expect(tab.hook("approval-preview").locator(".hljs-keyword").first).to_be_visible()
    await tab.screenshot("approval-from-list")
    await tab.hook("approval-approve").click()
    await expect(tab.hook("turn").last.get_by_test_id("answer")).to_have_text("批准后的回答")
    assert tab.errors == []


async def test_an_english_browser_and_a_switch_after_an_answer_leave_no_chinese(
    served: ServedPage,
) -> None:
    question = "How many regions are there?"
    script(
        served,
        question,
        call_tool("run_sql", sql="SELECT COUNT(*) AS n FROM regions"),
        answer("There are **7** regions."),
    )
    tab = await open_tab(served.browser, served.url, locale="en-US")
    await expect(tab.hook("lang-select")).to_have_value("en-US")
    await tab.ask(question)
    await tab.wait_for_answers(1)
    await expect(tab.hook("headline")).to_contain_text("7")  # one value: a headline figure
    assert not CJK.findall(await tab.own_text())

    await tab.hook("lang-select").select_option("zh-CN")
    await expect(tab.hook("submit")).to_have_text("提问")
    await tab.hook("lang-select").select_option("en-US")
    await tab.page.reload()  # the choice is remembered

    await tab.wait_for_answers(1)
    await expect(tab.hook("lang-select")).to_have_value("en-US")
    found = CJK.findall(await tab.own_text())
    assert not found, found
    assert tab.errors == []


async def test_the_question_box_counts_and_never_cuts_a_long_question(served: ServedPage) -> None:
    tab = await open_tab(served.browser, served.url, locale="en-US")
    await tab.hook("question-input").fill("x" * 3000)

    await expect(tab.hook("counter")).to_have_text("3000 / 2000")
    await expect(tab.hook("length-notice")).to_contain_text("1000 characters over")
    await expect(tab.hook("submit")).to_be_disabled()
    assert len(await tab.hook("question-input").input_value()) == 3000
    await tab.hook("question-input").fill("x" * 1900)
    await expect(tab.hook("length-notice")).to_contain_text("100 left")
    await expect(tab.hook("submit")).to_be_enabled()


async def test_the_empty_page_offers_starters_and_tables_never_the_starters_again_as_follow_ups(
    served: ServedPage,
) -> None:
    starters_en = sample_questions("en-US")  # GET /api/v0/suggestions on the sample database
    question = starters_en[0]
    script(served, question, call_tool("run_sql", sql=REGIONS_SQL), answer("Seven regions."))
    tab = await open_tab(served.browser, served.url, locale="en-US", bypass_csp=True)
    starters = tab.hook("starter")
    await expect(starters).to_have_text(starters_en)
    # The tables the caller may read, from GET /api/v0/schema (the catalogue, built at start).
    await expect(tab.hook("schema-table")).to_have_count(6)
    await expect(tab.hook("schema-table").first).to_contain_text("customers")
    await tab.screenshot("empty")
    assert await tab.axe_serious() == []

    async with tab.page.expect_response(lambda r: "after=" in r.url) as suggested:
        await starters.first.click()
    await tab.wait_for_answers(1)
    await expect(tab.hook("turn-question")).to_have_text(question)
    # The sample database suggests its starters again: that is not a follow-up to the answer.
    offered = (await (await suggested.value).json())["data"]["suggestions"]
    texts = {o["question"] if isinstance(o, dict) else o for o in offered}
    assert texts <= set(starters_en)
    await tab.page.evaluate("new Promise((done) => setTimeout(done, 0))")
    await expect(tab.hook("follow-up")).to_have_count(0)
    assert await tab.axe_serious() == []
    assert tab.errors == []


async def test_conversations_are_renamed_searched_and_deleted_from_the_list(
    served: ServedPage,
) -> None:
    for question in ("alpha question", "beta question"):
        script(served, question, answer(f"answer to {question}"))
    tab = await open_tab(served.browser, served.url, locale="en-US", user_id="lister")
    await tab.ask("alpha question")
    await tab.wait_for_answers(1)
    await tab.hook("new-conversation").click()
    await tab.ask("beta question")
    await tab.wait_for_answers(1)
    items = tab.hook("conversation-item")
    await expect(items).to_have_count(2)

    tab.page.once("dialog", lambda dialog: dialog.accept("Renamed beta"))
    await tab.hook("rename-conversation").first.click()
    await expect(items.first).to_contain_text("Renamed beta")
    await tab.hook("history-search").fill("alpha")
    await expect(items).to_have_count(1)
    await expect(items.first).to_contain_text("alpha question")
    tab.page.once("dialog", lambda dialog: dialog.accept())
    await tab.hook("delete-conversation").first.click()
    # The search still says "alpha": nothing matches it now (not "no conversations yet").
    await expect(tab.hook("conversation-list")).to_contain_text("No conversation matches")
    await tab.hook("history-search").fill("")
    await expect(items).to_have_count(1)
    assert tab.errors == []


async def test_an_error_says_what_happened_in_words_and_retry_asks_again(
    served: ServedPage,
) -> None:
    question = "a question whose first try fails"
    script(served, question, RuntimeError("model exploded"), answer("Second time lucky."))
    tab = await open_tab(served.browser, served.url, locale="en-US")
    await tab.ask(question)

    error_box = tab.hook("error-box")
    await expect(error_box).to_be_visible()
    await expect(tab.hook("status")).to_have_text("Failed")
    await expect(tab.hook("error-type")).to_be_hidden()  # the code is folded in the details
    assert "model exploded" not in await error_box.locator(".error-message").inner_text()
    await tab.hook("retry").click()

    await expect(tab.hook("answer")).to_have_text("Second time lucky.")
    await expect(tab.hook("turn")).to_have_count(1)
    await expect(error_box).to_be_hidden()
    assert tab.errors == []


async def test_with_keys_off_the_browser_asks_as_its_own_id_and_lists_only_its_conversations(
    served: ServedPage,
) -> None:
    others = "someone else's question"
    script(served, others, answer("not yours"))
    mine = "my own question"
    script(served, mine, answer("yours"))
    tab = await open_tab(served.browser, served.url, locale="en-US")
    response = await tab.page.request.post(
        f"{served.url}/api/v0/ask_react_agent",
        data={"question": others, "user_id": "someone-else"},
    )
    assert response.status == 200
    own = await tab.page.evaluate("localStorage.getItem('sqlAgentUserId')")
    assert re.fullmatch(r"web-[0-9a-f]{16}", own or "")
    # No field to type anyone's id into: the id is this browser's, shown read-only.
    await expect(tab.hook("acting-as")).to_have_text(f"This browser's user id: {own}")
    await expect(tab.hook("user-id-input")).to_be_hidden()
    await expect(tab.hook("user-pick")).to_be_hidden()
    typed = tab.page.locator("#drawer input:not([type=checkbox]):visible")
    await expect(typed).to_have_count(1)  # the search, and no other field to type in

    await tab.ask(mine)
    await tab.wait_for_answers(1)
    items = tab.hook("conversation-item")
    await expect(items).to_have_count(1)
    await expect(items.first).to_contain_text(mine)
    asked = [r for r in tab.requests if r.url.endswith("/api/v0/ask_react_agent_stream")]
    assert [r.post_data_json["user_id"] for r in asked] == [own]
    listed = [r.url for r in tab.requests if "/conversations" in r.url and "/users/" in r.url]
    assert listed and all(f"/users/{own}/conversations" in url for url in listed)

    await tab.page.reload()  # the same browser keeps its id, and its list
    await expect(tab.hook("conversation-item")).to_have_count(1)
    assert await tab.page.evaluate("localStorage.getItem('sqlAgentUserId')") == own
    assert tab.errors == []
