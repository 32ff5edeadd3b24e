"""What a person answers to a pause (SQL approval or clarification), and what it tells them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import sqlglot
from sqlglot import exp

SQL_APPROVAL_KIND = "sql_approval"
"""`kind` of the interrupts that ask a person to approve SQL."""
CLARIFICATION_KIND = "clarification"
"""`kind` of the interrupts that ask a person a clarifying question (ask_user)."""
PAUSE_KINDS = (SQL_APPROVAL_KIND, CLARIFICATION_KIND)

ApprovalAction = Literal["approve", "edit", "reject", "answer"]
APPROVAL_ACTIONS: tuple[str, ...] = ("approve", "edit", "reject")
"""The actions that decide an SQL approval."""
CLARIFICATION_ACTIONS: tuple[str, ...] = ("answer",)
"""The actions that answer a clarifying question."""
ACTIONS_BY_KIND = {SQL_APPROVAL_KIND: APPROVAL_ACTIONS, CLARIFICATION_KIND: CLARIFICATION_ACTIONS}


@dataclass(frozen=True)
class ApprovalDecision:
    """A person's answer to one pause: an SQL approval's decision, or a clarification's.

    Args:
        interrupt_id: The interrupt answered; a resume naming another one is stale.
        action: approve (run the SQL), edit (run `sql` instead) or reject (do not run),
            for an SQL approval; answer (with `text`), for a clarifying question.
        sql: The person's SQL, for edit.
        comment: Why, for the model to read (mostly with reject).
        text: The person's answer, for answer.

    """

    interrupt_id: str
    action: ApprovalAction
    sql: str | None = None
    comment: str | None = None
    text: str | None = None

    @property
    def kind(self) -> str:
        """The kind of pause this decision answers (sql_approval or clarification)."""
        return CLARIFICATION_KIND if self.action in CLARIFICATION_ACTIONS else SQL_APPROVAL_KIND

    def as_resume_value(self) -> dict[str, Any]:
        """Return the value `interrupt()` gives back to the node or tool that paused."""
        return {"action": self.action, "sql": self.sql, "comment": self.comment, "text": self.text}


def tables_read(sql: str, dialect: str) -> list[str]:
    """Return the tables `sql` reads (its own CTE names left out), sorted; [] if unreadable."""
    try:
        root = sqlglot.parse_one(sql, read=dialect)
    except Exception:
        return []
    ctes = {cte.alias_or_name.lower() for cte in root.find_all(exp.CTE)}
    names = set()
    for table in root.find_all(exp.Table):
        if not table.name:
            continue
        name = f"{table.db}.{table.name}" if table.db else table.name
        if table.db or table.name.lower() not in ctes:
            names.add(name)
    return sorted(names)
