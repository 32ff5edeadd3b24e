"""Clarifying questions over real HTTP: the pause on both endpoints, answers, limits, 400s."""

from __future__ import annotations

import pytest

from tests.support.live_server import running_service
from tests.support.scripted_model import answer, call_tool, prompt_text
from tests.support.sse import collect_stream

QUESTION = "上季度销售额是多少"
ASK = call_tool(
    "ask_user",
    question="按下单日期还是付款日期统计？",
    options=["下单日期", "付款日期"],
)
SALES_SQL = "SELECT SUM(total_amount) AS sales FROM orders"
THREAD = "lin:clarify-1"


@pytest.fixture
async def clarifying(settings, model):
    """Yield the app served with CLARIFY=on and the scripted model."""
    update = {"clarify": "on", "stream_resume_grace": 0.0}
    async with running_service(settings.model_copy(update=update), model=model) as client:
        yield client


async def ask(service, **body):
    status, data = await service.ask(**body)
    assert status == 200, data
    return data["data"]


async def test_the_sync_answer_carries_the_question_its_options_and_an_interrupt_id(
    clarifying, model
):
    model.replies = [ASK, call_tool("run_sql", sql=SALES_SQL), answer("按下单日期：很多。")]

    paused = await ask(clarifying, question=QUESTION, thread_id=THREAD)

    assert paused["status"] == "awaiting_clarification" and paused["kind"] == "clarification"
    assert paused["question"] == "按下单日期还是付款日期统计？"
    assert paused["options"] == ["下单日期", "付款日期"] and paused["interrupt_id"]
    assert paused["response"] == paused["question"] and paused["message"] == "等待您的回答"
    assert "ask_user" in prompt_text(model.seen[0])  # the system prompt says when
    status = await clarifying.http.get(f"/api/v0/react/status/{THREAD}")
    assert status.json()["data"]["status"] == "awaiting_clarification"
    assert status.json()["data"]["approval"]["interrupt_id"] == paused["interrupt_id"]

    done = await ask(
        clarifying,
        thread_id=THREAD,
        resume={"interrupt_id": paused["interrupt_id"], "action": "answer", "text": "付款日期"},
    )

    assert done["response"] == "按下单日期：很多。" and done["sql"] == SALES_SQL
    tool_results = [m for m in model.seen[1] if m.type == "tool"]
    assert tool_results[-1].content == "The person answered: 付款日期"
    status = await clarifying.http.get(f"/api/v0/react/status/{THREAD}")
    assert status.json()["data"]["status"] == "completed"


async def test_the_stream_sends_a_clarification_interrupt_and_the_resume_streams_on(
    clarifying, model
):
    model.replies = [ASK, answer("好的，按付款日期。")]

    events = await collect_stream(
        clarifying.http, json={"question": QUESTION, "thread_id": THREAD, "lang": "en-US"}
    )

    assert [e.type for e in events][-2:] == ["interrupt", "end"]
    interrupt = events[-2].data
    assert interrupt["kind"] == "clarification" and interrupt["options"] == ["下单日期", "付款日期"]
    assert interrupt["message"] == "Waiting for your answer"
    resumed = await collect_stream(
        clarifying.http,
        json={
            "thread_id": THREAD,
            "resume": {"interrupt_id": interrupt["interrupt_id"], "action": "answer", "text": "1"},
        },
    )
    completed = next(e.data for e in resumed if e.type == "completed")
    assert completed["response"] == "好的，按付款日期。"


async def test_a_second_question_beyond_clarify_max_is_not_asked(clarifying, model):
    model.replies = [ASK, ASK, answer("假设按下单日期。")]
    paused = await ask(clarifying, question=QUESTION, thread_id=THREAD)

    done = await ask(
        clarifying,
        thread_id=THREAD,
        resume={"interrupt_id": paused["interrupt_id"], "action": "answer", "text": "下单"},
    )

    assert done["response"] == "假设按下单日期。"  # no second pause (CLARIFY_MAX=1)
    last_tool = [m for m in model.seen[2] if m.type == "tool"][-1]
    assert "may not ask the person again" in last_tool.content


@pytest.mark.parametrize(
    ("setting", "body"),
    [
        ("on", {"clarify": False}),
        ("off", {}),
        ("off", {"clarify": True}),
        ("request", {}),  # the default: a legacy client is never left at a pause
        ("request", {"clarify": False}),
    ],
)
async def test_clarify_false_or_clarify_off_never_pauses(settings, model, setting, body):
    model.replies = [ASK, answer("假设按下单日期。")]
    async with running_service(
        settings.model_copy(update={"clarify": setting}), model=model
    ) as service:
        data = await ask(service, question=QUESTION, **body)
    assert "status" not in data and data["response"] == "假设按下单日期。"
    prompt = prompt_text(model.seen[0])
    assert "state that assumption" in prompt and "call ask_user" not in prompt


async def test_with_the_default_setting_a_request_that_says_clarify_true_pauses(settings, model):
    model.replies = [ASK]
    assert settings.clarify == "request"
    async with running_service(settings, model=model) as service:
        paused = await ask(service, question=QUESTION, thread_id=THREAD, clarify=True)
    assert paused["status"] == "awaiting_clarification"
    assert "call ask_user" in prompt_text(model.seen[0])


async def test_a_new_question_abandons_the_pause_cleanly(clarifying, model):
    model.replies = [ASK, answer("门店有七十家。")]
    await ask(clarifying, question=QUESTION, thread_id=THREAD)

    done = await ask(clarifying, question="一共有多少家门店", thread_id=THREAD)

    assert done["response"] == "门店有七十家。"
    seen = model.seen[1]
    closing = [m for m in seen if m.type == "tool" and m.name == "ask_user"]
    assert closing and closing[-1].content.startswith("Not run")
    assert any("澄清问题未获回答" in str(m.content) for m in seen if m.type == "ai")


@pytest.mark.parametrize(
    ("resume", "reason"),
    [
        ({"action": "answer"}, "resume.text"),
        ({"action": "answer", "text": "  "}, "resume.text"),
        ({"action": "approve", "text": "x"}, "resume.text"),
        ({"action": "approve"}, "clarification is answered with answer"),
    ],
)
async def test_a_resume_that_does_not_answer_the_question_is_refused(
    clarifying, model, resume, reason
):
    model.replies = [ASK, answer("不会用到")]
    paused = await ask(clarifying, question=QUESTION, thread_id=THREAD)

    status, body = await clarifying.ask(
        thread_id=THREAD, resume={"interrupt_id": paused["interrupt_id"], **resume}
    )

    assert status == 400 and body["data"]["error_type"] == "RESUME_INVALID"
    assert reason in body["data"]["error"]


async def test_a_stale_or_foreign_interrupt_id_is_refused_with_the_envelope(clarifying, model):
    model.replies = [ASK, answer("不会用到")]
    await ask(clarifying, question=QUESTION, thread_id=THREAD)

    stale = await clarifying.ask(
        thread_id=THREAD, resume={"interrupt_id": "nope", "action": "answer", "text": "x"}
    )
    foreign = await clarifying.ask(
        thread_id=THREAD,
        user_id="mallory",
        resume={"interrupt_id": "nope", "action": "answer", "text": "x"},
    )

    assert stale[0] == 409 and stale[1]["data"]["error_type"] == "STALE_INTERRUPT"
    assert foreign[0] == 400 and foreign[1]["success"] is False
