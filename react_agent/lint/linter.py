"""Running every lint rule on a statement, and the words the model reads about the warnings."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from sqlglot import exp

from react_agent.databases.catalog_model import Catalog
from react_agent.guard.sql_guard import parse_statement
from react_agent.lint import grouping, joins, queries, values
from react_agent.lint.model import LintContext, LintWarning

Rule = Callable[[exp.Expression, LintContext], Iterator[str]]

RULES: tuple[tuple[str, Rule], ...] = (
    (joins.RULE, joins.check),
    (queries.LIMIT_RULE, queries.check_limit),
    (queries.NOT_IN_RULE, queries.check_not_in),
    (values.DIVISION_RULE, values.check_division),
    (values.DATE_RULE, values.check_dates),
    (grouping.RULE, grouping.check),
    (queries.COUNT_RULE, queries.check_count),
)
"""Every rule by name, in the order its warnings are listed."""


def lint_statement(
    sql: str, dialect: str, question: str = "", catalog: Catalog | None = None
) -> list[LintWarning]:
    """Return the warnings of every rule on `sql` (none when it does not parse)."""
    try:
        tree = parse_statement(sql, dialect)
    except Exception:
        return []  # the guard has refused it already, or will
    context = LintContext(dialect, question, catalog)
    found: list[LintWarning] = []
    for name, rule in RULES:
        messages = list(dict.fromkeys(rule(tree, context)))
        found += [LintWarning(name, message, sql) for message in messages]
    return found


def _turn(state: Any) -> list[Any]:
    """Return the graph state's messages from the newest human message on."""
    messages = list(state.get("messages") or []) if isinstance(state, dict) else []
    humans = [i for i, m in enumerate(messages) if getattr(m, "type", None) == "human"]
    return messages[humans[-1] :] if humans else []


def question_of(state: Any) -> str:
    """Return the text of the newest human message in a graph state ('' when none)."""
    turn = _turn(state)
    return turn[0].content if turn and isinstance(turn[0].content, str) else ""


def repair_asked(state: Any) -> bool:
    """Whether a run_sql result of this question already asked the model to fix its query."""
    for message in _turn(state):
        artifact = getattr(message, "artifact", None)
        lint = artifact.get("lint") if isinstance(artifact, dict) else None
        if any(isinstance(w, dict) and w.get("repair") for w in lint or []):
            return True
    return False


def warnings_text(warnings: Sequence[LintWarning]) -> str:
    """Return the warnings as the lines added to a run_sql result for the model."""
    if not warnings:
        return ""
    header = (
        "Lint warnings: fix the query now and run the corrected query before you answer (a "
        "warning that does not apply: say why in the answer):"
        if any(w.repair for w in warnings)
        else "Lint warnings (the query ran, but may not answer the question; fix the query and "
        "run it again if a warning applies, or say in the answer why it does not):"
    )
    lines = ["", header]
    lines += [f"- [{w.rule}] {w.message}" for w in warnings]
    return "\n".join(lines)


@dataclass(frozen=True)
class SqlLinter:
    """The lint as the SQL tools use it: the catalogue is read at each call (it may refresh).

    With `mode` repair, the first warned statement of a question asks the model to fix it
    (its warnings say `repair`); later ones of the same question only warn.
    """

    catalog: Callable[[], Catalog | None] = lambda: None
    mode: Literal["warn", "repair"] = "warn"

    def check(self, sql: str, dialect: str, state: Any = None) -> list[LintWarning]:
        """Return the warnings on `sql`, read against the question in the graph `state`."""
        found = lint_statement(sql, dialect, question_of(state), self.catalog())
        if found and self.mode == "repair" and not repair_asked(state):
            return [replace(w, repair=True) for w in found]
        return found


def as_json(warnings: Iterable[LintWarning]) -> list[dict[str, Any]]:
    """Return the warnings as react_agent_meta.lint lists them."""
    return [w.as_json() for w in warnings]
