"""Candidate queries grouped by their results, with the evaluation's own comparison.

Two candidates agree when their results compare equal as the evaluation compares a
prediction with the gold result (results/result_comparison: the same columns in any
order, the same rows as a multiset, numbers to 6 significant digits), in order only when
both queries order their outermost SELECT, and both counted the same rows in all. A
candidate that wrote no SQL, or whose SQL was refused or failed, agrees with none.

The group of more than half of the candidates answers; without one the candidates are
split, and the agent's own query (candidate 0) answers, saying so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolMessage

from react_agent.results.result_comparison import Row, compare_results, outer_query_orders

METHOD = "execution_match"
"""react_agent_meta.confidence.method: the results compared, as the evaluation scores."""

AGREED = "agreed"
"""Every candidate that ran agrees with the answer's query."""
MAJORITY = "majority"
"""More than half agree; others differ (the answer rests on the majority)."""
SPLIT = "split"
"""No group holds more than half: the answer rests on the agent's query, and says so."""
ASKED = "asked"
"""Split, and the agent was told to ask the person which reading they mean."""
UNCONFIRMED = "unconfirmed"
"""No other candidate ran (no SQL, refused, failed): nothing agrees, nothing disagrees."""


@dataclass
class Candidate:
    """One candidate query: 0 is the agent's own, the others were written for the check."""

    index: int
    sql: str | None
    status: str
    """ok, error, refused, no_sql (the reply held no query) or model_error."""
    records: dict[str, Any] | None = None
    result: ToolMessage | None = field(default=None, repr=False)
    """The run_sql result of a candidate that ran (its artifact holds the records)."""
    error: str = ""

    def as_json(self, group: int | None, answers: bool) -> dict[str, Any]:
        """Return the candidate as react_agent_meta.confidence.queries lists it."""
        records = self.records or {}
        entry: dict[str, Any] = {
            "sql": self.sql,
            "status": self.status,
            "row_count": records.get("total_row_count") if self.status == "ok" else None,
            "group": group,
            "answers": answers,
        }
        if self.error:
            entry["error"] = self.error
        return entry


def rows_of(records: dict[str, Any]) -> list[Row]:
    """Return a result's rows as tuples in its columns' order."""
    columns = list(records.get("columns") or [])
    return [tuple(row.get(name) for name in columns) for row in records.get("rows") or []]


def records_empty(records: dict[str, Any] | None) -> bool:
    """Whether a result says nothing: no rows, or one row of NULLs (an aggregate of none)."""
    if not records:
        return False
    if not records.get("total_row_count"):
        return True
    rows = records.get("rows") or []
    return len(rows) == 1 and all(value is None for value in rows[0].values())


def same_result(first: Candidate, second: Candidate, dialect: str) -> bool:
    """Whether two candidates that ran returned the same result (module docstring)."""
    a, b = first.records or {}, second.records or {}
    if a.get("total_row_count") != b.get("total_row_count"):
        return False
    ordered = outer_query_orders(first.sql or "", dialect) and outer_query_orders(
        second.sql or "", dialect
    )
    return compare_results(rows_of(a), rows_of(b), ordered=ordered).passed


@dataclass(frozen=True)
class Weighing:
    """The candidates, their groups (largest first) and the group that answers."""

    candidates: list[Candidate]
    groups: list[list[Candidate]]
    answering: list[Candidate]

    @property
    def outcome(self) -> str:
        """AGREED, MAJORITY, SPLIT or UNCONFIRMED (see the constants)."""
        if 2 * len(self.answering) <= len(self.candidates):
            return SPLIT if len(self.groups) > 1 else UNCONFIRMED
        return AGREED if len(self.groups) == 1 else MAJORITY

    @property
    def overturns(self) -> bool:
        """Whether the majority's result is not the one the agent's answer rests on."""
        return self.outcome == MAJORITY and self.answering[0].index != 0

    def confidence(self, trigger: str, sampling: str, outcome: str | None = None) -> dict[str, Any]:
        """Return react_agent_meta.confidence: candidates, agreeing, method, and the queries."""
        group_of = {c.index: number for number, group in enumerate(self.groups) for c in group}
        answering = {c.index for c in self.answering}
        return {
            "candidates": len(self.candidates),
            "agreeing": len(self.answering),
            "method": METHOD,
            "outcome": outcome or self.outcome,
            "trigger": trigger,
            "sampling": sampling,
            "queries": [
                c.as_json(group_of.get(c.index), c.index in answering) for c in self.candidates
            ],
        }


def weigh(candidates: list[Candidate], dialect: str) -> Weighing:
    """Group the candidates that ran by their results; the largest group answers.

    Candidate 0 (the agent's query, which ran) breaks a tie: its group answers unless
    another is strictly larger.
    """
    groups: list[list[Candidate]] = []
    for candidate in candidates:
        if candidate.status != "ok":
            continue
        home = next((g for g in groups if same_result(g[0], candidate, dialect)), None)
        if home is None:
            groups.append([candidate])
        else:
            home.append(candidate)
    groups.sort(key=lambda group: (-len(group), group[0].index))
    return Weighing(candidates, groups, groups[0] if groups else [])


def confidence_note(confidence: dict[str, Any] | None) -> str | None:
    """Return a one-line note of how many candidates agree, or None when none were written."""
    if not confidence:
        return None
    k, n = confidence.get("agreeing"), confidence.get("candidates")
    return f"⚖️ {k}/{n} 条独立写出的查询结果一致 / {k} of {n} queries agree"
