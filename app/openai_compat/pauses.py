"""A paused run in a chat: its question or SQL as the assistant's message, the reply read back.

A chat client has no resume button, so a run that pauses (a clarifying question, SQL
waiting for approval) answers with what it waits for, options numbered; the user's next
message in the conversation resumes it when it reads as an answer (an option's number or
text, a short free answer, or approve/reject/edit words in Chinese or English), and is
asked as a new question otherwise, which closes the pause.
"""

from __future__ import annotations

import re
from typing import Any

from config import localize
from react_agent.approval.decisions import CLARIFICATION_KIND, ApprovalDecision

MAX_FREE_ANSWER_CHARS = 50
"""A clarification reply longer than this (or ending in a question mark) is a new question."""
APPROVE_WORDS = frozenset(
    {"approve", "approved", "yes", "y", "ok", "okay", "run", "run it", "go",
     "批准", "同意", "执行", "确认", "可以", "好", "好的", "是", "运行"}
)  # fmt: skip
REJECT_WORDS = frozenset(
    {"reject", "rejected", "no", "n", "cancel", "skip", "don't", "stop",
     "拒绝", "不", "否", "取消", "不要", "不执行", "不同意", "跳过"}
)  # fmt: skip
_SQL_BLOCK = re.compile(r"```(?:sql)?\s*(.+?)```", re.IGNORECASE | re.DOTALL)
_EDIT_PREFIX = re.compile(r"^\s*(?:edit|修改|改为|改成)\s*[:：]\s*(.+)$", re.IGNORECASE | re.DOTALL)
_BARE_SQL = re.compile(r"^\s*(?:select|with)\b", re.IGNORECASE)
_TRIM = " \t\r\n。.!！"


def pause_markdown(pause: dict[str, Any], lang: str) -> str:
    """Return what a paused run says in the chat: its question and options, or its SQL."""
    if pause["kind"] == CLARIFICATION_KIND:
        lines = [pause["question"], ""]
        lines += [f"{n}. {option}" for n, option in enumerate(pause.get("options") or [], 1)]
        return "\n".join([*lines, "", localize("CLARIFICATION_REPLY_HINT", lang)]).strip()
    waiting = localize("SQL_APPROVAL_WAITING", lang)
    hint = localize("APPROVAL_REPLY_HINT", lang)
    return f"{waiting}:\n\n```sql\n{pause['sql'].strip()}\n```\n\n{hint}"


def decision_for_reply(text: str, pause: dict[str, Any]) -> ApprovalDecision | None:
    """Return the resume a chat reply means for `pause`, or None when it is a new question."""
    if pause["kind"] == CLARIFICATION_KIND:
        answer = _clarification_answer(text, pause.get("options") or [])
        if answer is None:
            return None
        return ApprovalDecision(pause["interrupt_id"], "answer", text=answer)
    return _approval_decision(text, pause["interrupt_id"])


def _clarification_answer(text: str, options: list[str]) -> str | None:
    reply = text.strip().strip(_TRIM)
    if reply.isdigit() and 1 <= int(reply) <= len(options):
        return options[int(reply) - 1]
    for option in options:
        if reply.casefold() == option.strip().casefold():
            return option
    if not reply or len(reply) > MAX_FREE_ANSWER_CHARS or text.strip().endswith(("?", "？")):
        return None
    return reply


def _approval_decision(text: str, interrupt_id: str) -> ApprovalDecision | None:
    reply = text.strip()
    word = reply.strip(_TRIM).casefold()
    if word in APPROVE_WORDS:
        return ApprovalDecision(interrupt_id, "approve")
    if word in REJECT_WORDS:
        return ApprovalDecision(interrupt_id, "reject", comment=reply)
    edited = _edited_sql(reply)
    if edited:
        return ApprovalDecision(interrupt_id, "edit", sql=edited)
    return None


def _edited_sql(reply: str) -> str | None:
    if block := _SQL_BLOCK.search(reply):
        return block.group(1).strip().rstrip(";").strip() or None
    if prefixed := _EDIT_PREFIX.match(reply):
        return prefixed.group(1).strip().rstrip(";").strip() or None
    if _BARE_SQL.match(reply):
        return reply.strip().rstrip(";").strip()
    return None
