"""How a chat reply to a paused run is read: an answer, a decision, or a new question."""

from __future__ import annotations

import pytest

from app.openai_compat.pauses import decision_for_reply, pause_markdown

CLARIFICATION = {
    "kind": "clarification",
    "interrupt_id": "i1",
    "question": "按下单日期还是付款日期？",
    "options": ["下单日期", "付款日期", "Ship date"],
    "tool_call_id": "c1",
}
APPROVAL = {
    "kind": "sql_approval",
    "interrupt_id": "i2",
    "sql": "SELECT 1",
    "tables": [],
    "tool_call_id": "c2",
}


@pytest.mark.parametrize(
    ("reply", "text"),
    [
        ("1", "下单日期"),
        (" 2。", "付款日期"),
        ("ship DATE", "Ship date"),
        ("按付款日期，不含退款", "按付款日期，不含退款"),
        ("last quarter by payment", "last quarter by payment"),
        ("2024", "2024"),  # a number that is no option's is an answer (a year, a count)
    ],
)
def test_a_clarification_reply_is_its_option_or_a_short_free_answer(reply, text):
    decision = decision_for_reply(reply, CLARIFICATION)
    assert decision is not None and decision.action == "answer" and decision.text == text
    assert decision.interrupt_id == "i1"


@pytest.mark.parametrize(
    "reply",
    ["", "那么华东地区每个月的订单数呢？", "What about the stores?", "长" * 51],
)
def test_a_question_or_a_long_message_is_a_new_question(reply):
    assert decision_for_reply(reply, CLARIFICATION) is None


@pytest.mark.parametrize(
    ("reply", "action", "sql"),
    [
        ("批准", "approve", None),
        ("同意。", "approve", None),
        ("Approve", "approve", None),
        ("yes!", "approve", None),
        ("拒绝", "reject", None),
        ("No", "reject", None),
        ("cancel", "reject", None),
        ("```sql\nSELECT 2;\n```", "edit", "SELECT 2"),
        ("修改：SELECT 3", "edit", "SELECT 3"),
        (
            "edit: with t as (select 1) select * from t",
            "edit",
            "with t as (select 1) select * from t",
        ),
        ("SELECT 4", "edit", "SELECT 4"),
    ],
)
def test_an_approval_reply_is_a_decision_in_chinese_or_english(reply, action, sql):
    decision = decision_for_reply(reply, APPROVAL)
    assert decision is not None and (decision.action, decision.sql) == (action, sql)


@pytest.mark.parametrize("reply", ["各地区门店数是多少", "tell me about products", "1"])
def test_anything_else_on_waiting_sql_is_a_new_question(reply):
    assert decision_for_reply(reply, APPROVAL) is None


def test_the_pause_is_shown_with_numbered_options_or_its_sql_in_the_language():
    zh = pause_markdown(CLARIFICATION, "zh-CN")
    en = pause_markdown(APPROVAL, "en-US")
    assert zh.splitlines()[:5] == [
        "按下单日期还是付款日期？",
        "",
        "1. 下单日期",
        "2. 付款日期",
        "3. Ship date",
    ]
    assert "请回复选项编号" in zh
    assert "```sql\nSELECT 1\n```" in en and en.startswith("Waiting for approval")
