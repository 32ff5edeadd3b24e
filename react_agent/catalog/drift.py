"""Schema drift: examples whose SQL reads a table or column that is gone or changed go stale."""

from __future__ import annotations

import logging

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from react_agent.databases.catalog_model import Catalog
from react_agent.memory.examples import ExampleStore

logger = logging.getLogger(__name__)

GONE = "gone: "
CHANGED = "changed: "
"""Reasons start with one of these; a `gone` mark is lifted when the names come back."""


def _parse(sql: str, dialect: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return None


def missing_names(tree: exp.Expression, catalog: Catalog) -> list[str]:
    """Return the tables and `table.column`s the query reads that `catalog` lacks.

    A column is missing when none of the query's tables has it and it is not one of the
    query's own aliases.
    """
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    names = sorted({t.name.lower() for t in tree.find_all(exp.Table)} - ctes)
    gone = [name for name in names if catalog.table(name) is None]
    if gone:
        return gone
    aliases = {a.alias.lower() for a in tree.find_all(exp.Alias)} | ctes
    tables = [catalog.table(name) for name in names]
    return sorted(
        f"{'/'.join(names)}.{column}"
        for column in {c.name.lower() for c in tree.find_all(exp.Column) if c.name}
        if column not in aliases and not any(t and t.column(column) for t in tables)
    )


def drift_reason(sql: str, previous: Catalog | None, current: Catalog) -> str | None:
    """Return why `sql` no longer fits `current` where it fitted `previous`, or None.

    Only what `previous` had can be gone: without a previous catalogue nothing is.
    """
    tree = _parse(sql, current.dialect)
    if tree is None or previous is None:
        return None
    gone = sorted(set(missing_names(tree, current)) - set(missing_names(tree, previous)))
    if gone:
        return f"{GONE}{', '.join(gone)} not in the database"
    changed = []
    for table in {t.name.lower() for t in tree.find_all(exp.Table)}:
        before, now = previous.table(table), current.table(table)
        if before is None or now is None:
            continue
        for column in {c.name.lower() for c in tree.find_all(exp.Column) if c.name}:
            old, new = before.column(column), now.column(column)
            if old is not None and new is not None and old.type != new.type:
                changed.append(f"{now.name}.{new.name} {old.type} -> {new.type}")
    return f"{CHANGED}type of {', '.join(sorted(changed))}" if changed else None


def mended(sql: str, current: Catalog) -> bool:
    """Whether every table and column `sql` reads is in `current` again."""
    tree = _parse(sql, current.dialect)
    return tree is not None and not missing_names(tree, current)


async def mark_drifted_examples(
    examples: ExampleStore, previous: Catalog | None, current: Catalog
) -> tuple[int, int]:
    """Mark the examples `current` broke stale and lift `gone` marks it mended.

    A `changed` mark stays until the example is edited. Returns how many were marked
    and how many un-marked.
    """
    marked = unmarked = 0
    for item in await examples.sql_items():
        reason = drift_reason(item.content, previous, current)
        if reason is not None and reason != item.stale_reason:
            await examples.set_stale(item.id, reason)
            marked += 1
        elif (
            reason is None
            and item.stale
            and (item.stale_reason or "").startswith(GONE)
            and mended(item.content, current)
        ):
            await examples.set_stale(item.id, None)
            unmarked += 1
    if marked or unmarked:
        logger.info("schema drift: %d examples marked stale, %d un-marked", marked, unmarked)
    return marked, unmarked
