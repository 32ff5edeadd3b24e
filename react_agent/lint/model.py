"""What every lint rule reads: the statement's tables, catalogue facts, the question."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from react_agent.databases.catalog_model import Catalog, CatalogColumn, CatalogTable


@dataclass(frozen=True)
class LintWarning:
    """One rule's finding on one statement: the rule's name, words the model can act on, SQL."""

    rule: str
    message: str
    sql: str
    repair: bool = False
    """Whether the model was asked to fix the query (SQL_LINT=repair, once per question)."""

    def as_json(self) -> dict[str, Any]:
        """Return the warning as react_agent_meta.lint lists it (`repair` only when asked)."""
        data: dict[str, Any] = {"rule": self.rule, "message": self.message, "sql": self.sql}
        return {**data, "repair": True} if self.repair else data


@dataclass(frozen=True)
class LintContext:
    """The statement's dialect, the question it answers and the catalogue (None: unknown)."""

    dialect: str
    question: str = ""
    catalog: Catalog | None = None

    def table(self, name: str | None) -> CatalogTable | None:
        """Return the catalogue's table `name`, or None."""
        return self.catalog.table(name) if self.catalog is not None and name else None


def selects(tree: exp.Expression) -> list[exp.Select]:
    """Return every SELECT of the statement, the outermost first."""
    return list(tree.find_all(exp.Select))


def own_tables(select: exp.Select) -> dict[str, str]:
    """Return alias (or name) → real table name of the tables in `select`'s FROM and JOINs."""
    found: dict[str, str] = {}
    sources = [select.args.get("from_") or select.args.get("from")]
    sources += [join for join in select.args.get("joins") or []]
    for source in sources:
        table = source.this if source is not None else None
        if isinstance(table, exp.Table) and table.name:
            found[(table.alias or table.name).lower()] = table.name.lower()
    return found


def column_table(column: exp.Column, tables: dict[str, str], context: LintContext) -> str | None:
    """Return the real table `column` reads from among `tables`, or None when unknown."""
    if column.table:
        return tables.get(column.table.lower())
    real = set(tables.values())
    if len(real) == 1:
        return next(iter(real))
    owners = [t for t in real if (info := context.table(t)) and info.column(column.name)]
    return owners[0] if len(owners) == 1 else None


def column_info(
    column: exp.Column, tables: dict[str, str], context: LintContext
) -> CatalogColumn | None:
    """Return the catalogue's facts about `column` (type, nullable, key), or None."""
    info = context.table(column_table(column, tables, context))
    return info.column(column.name) if info is not None else None


def in_aggregate(node: exp.Expression) -> bool:
    """Whether `node` sits inside an aggregate function."""
    return node.find_ancestor(exp.AggFunc) is not None


def owning_select(node: exp.Expression) -> exp.Select | None:
    """Return the SELECT `node` belongs to (the nearest enclosing one)."""
    return node.find_ancestor(exp.Select)


def asks(question: str, pattern: re.Pattern[str]) -> bool:
    """Whether the question's text matches one of a rule's question words."""
    return bool(question) and pattern.search(question) is not None
