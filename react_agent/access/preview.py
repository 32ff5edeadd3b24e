"""`python -m react_agent.access.preview USER`: what a user of POLICY_FILE may read, live."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

from config import Settings
from react_agent.access.policy_file.policy_checks import PolicyError
from react_agent.access.policy_file.policy_source import open_policy_source
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import run_in_scope
from react_agent.databases.base import SQLDatabase
from react_agent.databases.open import open_configured
from react_agent.sample_data import SAMPLE_DATABASE_URL


@dataclass
class TablePreview:
    """One readable table as the user sees it."""

    name: str
    filter: str | None = None
    """The row filter with the user's attributes written in (None: every row)."""
    denied: list[str] = field(default_factory=list)
    sensitive: list[str] = field(default_factory=list)
    rows: int | None = None
    """Rows the user may read (a COUNT through the scoped executor); None if it failed."""
    error: str = ""


@dataclass
class Preview:
    """What a user may read: roles, readable tables with their rules, and hidden tables."""

    user: str
    roles: list[str]
    listed: bool
    """Whether the policy names the user (else the default role applies)."""
    tables: list[TablePreview]
    hidden: list[str]


def bind_parameters(predicate: str, parameters: Mapping[str, Any], dialect: str) -> str:
    """Return `predicate` with each `:name` replaced by the user's value, as a literal."""
    tree = sqlglot.parse_one(predicate, read=dialect)

    def bound(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Placeholder) and node.name in parameters:
            return exp.convert(parameters[node.name])
        return node

    tree = tree.transform(bound)
    return (tree.unnest() if isinstance(tree, exp.Paren) else tree).sql(dialect=dialect)


async def _visible_rows(
    database: SQLDatabase, table: str, scope: Scope, columns: TableColumns, timeout: float
) -> int:
    sql = exp.select("COUNT(*)").from_(exp.to_table(table)).sql(dialect=database.dialect)
    _, result = await run_in_scope(database, sql, scope, columns, row_limit=1, timeout=timeout)
    return int(next(iter(result.rows[0].values())))


async def build_preview(
    database: SQLDatabase, policy: Any, user_id: str, columns: TableColumns, timeout: float
) -> Preview:
    """Return what `user_id` may read under `policy`, counting visible rows in `database`."""
    actor = policy.actor_for(user_id)
    scope: Scope = policy.scope_for(actor)
    every = sorted(await columns.get())
    readable = [t for t in every if scope.can_read(t)]
    tables = []
    for name in readable:
        predicate = scope.row_filters.get(name)
        entry = TablePreview(
            name,
            bind_parameters(predicate, scope.parameters, database.dialect) if predicate else None,
            sorted(scope.denied_columns.get(name, ())),
            sorted(scope.sensitive(name)),
        )
        try:
            entry.rows = await _visible_rows(database, name, scope, columns, timeout)
        except Exception as exc:  # shown beside the table; the preview goes on
            entry.error = f"{type(exc).__name__}: {exc}"
        tables.append(entry)
    listed = user_id in policy.current().users
    hidden = [t for t in every if not scope.can_read(t)]
    return Preview(user_id, list(actor.roles), listed, tables, hidden)


def render_preview(preview: Preview) -> str:
    """Return the preview as text, one block per readable table."""
    how = "" if preview.listed else " (not in the policy: the default role)"
    lines = [f"user {preview.user}{how}: roles {', '.join(preview.roles) or '(none)'}", ""]
    lines.append(f"readable tables ({len(preview.tables)}):")
    for table in preview.tables:
        rows = f"{table.rows} row(s) visible" if table.rows is not None else table.error
        lines.append(f"  {table.name}: {rows}")
        lines.append(
            f"    filter: {table.filter}" if table.filter else "    filter: none (all rows)"
        )
        if table.denied:
            lines.append(f"    denied columns: {', '.join(table.denied)}")
        if table.sensitive:
            lines.append(f"    sensitive columns (masked): {', '.join(table.sensitive)}")
    lines += ["", f"not readable: {', '.join(preview.hidden) or '(none)'}"]
    return "\n".join(lines) + "\n"


async def preview_user(settings: Settings, user_id: str) -> str:
    """Open POLICY_FILE and the service's data and return the preview of `user_id` as text.

    The data is opened as the service opens it (databases/open.open_configured): with
    DATA_SOURCES the tables are `source.table`, as the policy names them.
    """
    if settings.policy_file is None:
        raise PolicyError("POLICY_FILE is not set: there is no policy to preview")
    database = await open_configured(settings, SAMPLE_DATABASE_URL)
    try:
        columns = TableColumns(database)
        policy = await open_policy_source(settings.policy_file, columns)
        preview = await build_preview(database, policy, user_id, columns, settings.sql_timeout)
    finally:
        await database.aclose()
    return render_preview(preview)


def main(argv: Sequence[str] | None = None) -> int:
    """Print what USER may read; return the exit status (2: no policy or a wrong one)."""
    parser = argparse.ArgumentParser(
        prog="python -m react_agent.access.preview",
        description="Show what a user of POLICY_FILE may read in the service's data "
        "(DATA_SOURCES, else DATA_DATABASE_URL).",
    )
    parser.add_argument("user", help="the user id, as API keys bind it")
    arguments = parser.parse_args(argv)
    try:
        sys.stdout.write(asyncio.run(preview_user(Settings(), arguments.user)))
    except PolicyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
