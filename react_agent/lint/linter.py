"""Running every lint rule on a statement, and the words the model reads about the warnings."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

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


def question_of(state: Any) -> str:
    """Return the text of the newest human message in a graph state ('' when none)."""
    messages = state.get("messages") if isinstance(state, dict) else None
    for message in reversed(messages or []):
        if getattr(message, "type", None) == "human" and isinstance(message.content, str):
            return message.content
    return ""


def warnings_text(warnings: Sequence[LintWarning]) -> str:
    """Return the warnings as the lines added to a run_sql result for the model."""
    if not warnings:
        return ""
    lines = [
        "",
        "Lint warnings (the query ran, but may not answer the question; fix the query and run "
        "it again if a warning applies, or say in the answer why it does not):",
    ]
    lines += [f"- [{w.rule}] {w.message}" for w in warnings]
    return "\n".join(lines)


@dataclass(frozen=True)
class SqlLinter:
    """The lint as the SQL tools use it: the catalogue is read at each call (it may refresh)."""

    catalog: Callable[[], Catalog | None] = lambda: None

    def check(self, sql: str, dialect: str, state: Any = None) -> list[LintWarning]:
        """Return the warnings on `sql`, read against the question in the graph `state`."""
        return lint_statement(sql, dialect, question_of(state), self.catalog())


def as_json(warnings: Iterable[LintWarning]) -> list[dict[str, Any]]:
    """Return the warnings as react_agent_meta.lint lists them."""
    return [w.as_json() for w in warnings]
