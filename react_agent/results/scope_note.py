"""Honest empty answers under a scope: nothing *the asker may see* matched, said so.

When the query an answer rests on returned no rows (or one row of NULLs, an aggregate
over none) and read a table whose rows the asker's scope filters, the answer gets a line
naming their filters ("在你可见的 华东 数据中没有符合条件的记录", or `region_id=1` for a
value that is no name), kept as react_agent_meta.scope_note. The line is the same whether
or not rows outside the scope would have matched: it never says whether they exist.
Under a `db_role` (the database's own row level security) the filters are not known to
the service, and the line names none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from config import localize, resolve_lang
from react_agent.access.current import current_scope
from react_agent.access.scope import Scope
from react_agent.graph.run_context import run_context
from react_agent.graph.state import AgentState
from react_agent.results.candidate_groups import records_empty
from react_agent.runs.listener_reports import tables_read

_PLACEHOLDER = re.compile(r"(?<![:\w]):(?P<name>[A-Za-z_]\w*)")
"""A `:name` of a row filter, bound from the asker's attributes (access/policy)."""


def scope_filters(scope: Scope, tables: tuple[str, ...]) -> list[str]:
    """Return the asker's filter values that restrict `tables`: a name as is, else name=value."""
    names: dict[str, None] = {}
    for table in tables:
        predicate = scope.row_filters.get(table.lower())
        for match in _PLACEHOLDER.finditer(predicate or ""):
            names[match.group("name")] = None
    shown = []
    for name in names:
        if name not in scope.parameters:
            continue
        value = scope.parameters[name]
        shown.append(value if isinstance(value, str) else f"{name}={value}")
    return shown


def scope_note(scope: Scope, sql: str, dialect: str, lang: str | None) -> str | None:
    """Return the line for an empty result of `sql` under `scope`, or None when none is due."""
    tables = tables_read(sql, dialect)
    filtered = tuple(table for table in tables if scope.filters_rows(table))
    if not filtered:
        return None
    filters = scope_filters(scope, filtered)
    if not filters:
        return localize("SCOPE_EMPTY_NOTE_UNNAMED", lang)
    joined = ("、" if resolve_lang(lang).startswith("zh") else ", ").join(filters)
    return localize("SCOPE_EMPTY_NOTE", lang, filters=joined)


@dataclass(frozen=True)
class ScopeNote:
    """The line under an answer whose scoped query found nothing (graph/hooks.AnswerNote)."""

    dialect: str

    def note(self, state: AgentState) -> tuple[str, dict[str, Any]]:
        """Return the scope note and `scope_note`, when the answer's query returned nothing."""
        sql, records = state.get("sql"), state.get("records")
        scope = current_scope()
        if not sql or not records_empty(records):
            return "", {}
        line = scope_note(scope, sql, self.dialect, run_context().lang)
        return (line, {"scope_note": line}) if line else ("", {})
