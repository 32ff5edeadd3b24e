"""Honest empty answers under a scope: nothing *the asker may see* matched, said so.

When the query an answer rests on returned no rows (or one row of NULLs, an aggregate
over none) and read a table whose rows the asker's scope filters, the answer gets a line
naming their filters ("在你可见的 华东 数据中没有符合条件的记录"), kept as
react_agent_meta.scope_note. The line is the same whether or not rows outside the scope
would have matched: it never says whether they exist.

A filter value is named by what it stands for where the policy says so: an attribute
that is text (`region: 华东`) as it is; an id (`region_id: 1`) by the one name the asker
may read beside it in the table the policy filters by that id alone (`regions:
region_id = :region_id` → its `region_name`, read under the asker's own scope, so
nothing outside it is read); else as `region_id=1`. Under a `db_role` the database's own
row level security filters rows the service cannot name, and the line names none.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from config import localize, resolve_lang
from react_agent.access.current import current_scope
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import run_in_scope
from react_agent.databases.base import SQLDatabase
from react_agent.graph.run_context import run_context
from react_agent.graph.state import AgentState
from react_agent.results.candidate_groups import records_empty
from react_agent.runs.events.listener_reports import tables_read

logger = logging.getLogger(__name__)

_PLACEHOLDER = re.compile(r"(?<![:\w]):(?P<name>[A-Za-z_]\w*)")
"""A `:name` of a row filter, bound from the asker's attributes (access/policy_file/policy)."""
_BY_ID = re.compile(r"\s*\(?\s*(?P<column>\w+)\s*=\s*:(?P<name>\w+)\s*\)?\s*")
"""A filter by one attribute alone: `region_id = :region_id` (merged roles add parentheses)."""
LABEL_TIMEOUT = 5.0
"""Seconds the lookup of a filter value's name may take (the note then shows the value)."""


def filter_names(scope: Scope, tables: tuple[str, ...]) -> list[str]:
    """Return the attributes whose values the row filters of `tables` are bound to, in order."""
    names: dict[str, None] = {}
    for table in tables:
        for match in _PLACEHOLDER.finditer(scope.row_filters.get(table.lower()) or ""):
            if match.group("name") in scope.parameters:
                names[match.group("name")] = None
    return list(names)


@dataclass(frozen=True)
class ScopeNote:
    """The line under an answer whose scoped query found nothing (graph/hooks.AnswerNote).

    Args:
        database: Where a filter value's name is looked up, under the asker's scope.
        columns: The database's columns (the rewrite needs them for denied columns).

    """

    database: SQLDatabase
    columns: TableColumns | None = None

    async def note(self, state: AgentState) -> tuple[str, dict[str, Any]]:
        """Return the scope note and `scope_note`, when the answer's query returned nothing."""
        sql, records = state.get("sql"), state.get("records")
        if not sql or not records_empty(records):
            return "", {}
        line = await self.line(current_scope(), sql, run_context().lang)
        return (line, {"scope_note": line}) if line else ("", {})

    async def line(self, scope: Scope, sql: str, lang: str | None) -> str | None:
        """Return the line for an empty result of `sql` under `scope`, or None when none is due."""
        filtered = tuple(
            t for t in tables_read(sql, self.database.dialect) if scope.filters_rows(t)
        )
        if not filtered:
            return None
        shown = [await self._shown(scope, name) for name in filter_names(scope, filtered)]
        if not shown:
            return localize("SCOPE_EMPTY_NOTE_UNNAMED", lang)
        joined = ("、" if resolve_lang(lang).startswith("zh") else ", ").join(shown)
        return localize("SCOPE_EMPTY_NOTE", lang, filters=joined)

    async def _shown(self, scope: Scope, name: str) -> str:
        """Return how the note names attribute `name`'s value (module docstring)."""
        value = scope.parameters[name]
        if isinstance(value, str):
            return value
        try:
            label = await self._label(scope, name)
        except Exception as exc:  # the value serves as well
            logger.info("scope note: no name for %s=%s (%s)", name, value, exc)
            label = None
        return label or f"{name}={value}"

    async def _label(self, scope: Scope, name: str) -> str | None:
        """Return the one name the asker reads in the table filtered by `name` alone."""
        columns = await (self.columns or TableColumns(self.database)).get()
        for table, predicate in sorted(scope.row_filters.items()):
            by_id = _BY_ID.fullmatch(predicate)
            if by_id is None or by_id.group("name") != name:
                continue
            readable = scope.readable_columns(table, columns.get(table, []))
            named = [
                c
                for c in readable
                if c.lower().endswith("name") and c.lower() not in scope.sensitive(table)
            ]
            if not named:
                continue
            sql = exp.select(exp.column(named[0], quoted=True)).from_(exp.to_table(table))
            sql = sql.distinct().limit(2)
            _, result = await run_in_scope(
                self.database,
                sql.sql(dialect=self.database.dialect),
                scope,
                self.columns,
                row_limit=2,
                timeout=LABEL_TIMEOUT,
            )
            values = [next(iter(row.values())) for row in result.rows]
            if len(values) == 1 and isinstance(values[0], str) and values[0]:
                return values[0]
        return None
