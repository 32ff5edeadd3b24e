"""What a person answers to an SQL approval, and what the interrupt tells them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import sqlglot
from sqlglot import exp

SQL_APPROVAL_KIND = "sql_approval"
"""`kind` of the interrupts that ask a person to approve SQL."""

ApprovalAction = Literal["approve", "edit", "reject"]
APPROVAL_ACTIONS: tuple[str, ...] = ("approve", "edit", "reject")


@dataclass(frozen=True)
class ApprovalDecision:
    """A person's answer to one pending SQL approval.

    Args:
        interrupt_id: The interrupt answered; a resume naming another one is stale.
        action: approve (run the SQL), edit (run `sql` instead) or reject (do not run).
        sql: The person's SQL, for edit.
        comment: Why, for the model to read (mostly with reject).

    """

    interrupt_id: str
    action: ApprovalAction
    sql: str | None = None
    comment: str | None = None

    def as_resume_value(self) -> dict[str, Any]:
        """Return the value `interrupt()` gives back to the approval node."""
        return {"action": self.action, "sql": self.sql, "comment": self.comment}


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
