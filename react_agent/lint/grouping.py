"""ungrouped_column: a selected column neither grouped nor aggregated (SQLite, MySQL)."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from react_agent.lint.model import LintContext, column_table, in_aggregate, own_tables, selects

RULE = "ungrouped_column"
PERMISSIVE_DIALECTS = frozenset({"sqlite", "mysql"})
"""Engines that run such a query and pick any row's value (the others refuse it)."""


def _group_keys(select: exp.Select) -> list[exp.Expression]:
    """Return the GROUP BY expressions, ordinals and aliases resolved to the projections."""
    group = select.args.get("group")
    projections = select.expressions
    aliases = {p.alias.lower(): p.unalias() for p in projections if p.alias}
    keys = []
    for key in group.expressions if group is not None else []:
        if isinstance(key, exp.Literal) and not key.is_string and key.this.isdigit():
            index = int(key.this) - 1
            keys.append(projections[index].unalias() if 0 <= index < len(projections) else key)
        elif isinstance(key, exp.Column) and not key.table and key.name.lower() in aliases:
            keys.append(aliases[key.name.lower()])
        else:
            keys.append(key)
    return keys


def _grouped_columns(keys: list[exp.Expression], tables: dict[str, str], context: LintContext):
    """Return (table, column) pairs grouped, and the tables whose whole primary key is grouped."""
    pairs = {
        (column_table(c, tables, context), c.name.lower())
        for key in keys
        for c in ([key] if isinstance(key, exp.Column) else key.find_all(exp.Column))
    }
    keyed = set()
    for table in set(tables.values()):
        info = context.table(table)
        primary = [c.lower() for c in info.primary_key] if info else []
        if primary and all((table, c) in pairs for c in primary):
            keyed.add(table)
    return pairs, keyed


def check(tree: exp.Expression, context: LintContext) -> Iterator[str]:
    """Yield for each projected column that is outside GROUP BY and every aggregate."""
    if context.dialect not in PERMISSIVE_DIALECTS:
        return
    for select in selects(tree):
        grouped = select.args.get("group") is not None
        aggregated = any(
            aggregate.find_ancestor(exp.Window) is None
            for p in select.expressions
            for aggregate in p.find_all(exp.AggFunc)
        )
        if not grouped and not aggregated:
            continue
        keys = _group_keys(select)
        key_texts = {k.sql() for k in keys}
        tables = own_tables(select)
        pairs, keyed = _grouped_columns(keys, tables, context)
        for projection in select.expressions:
            bare = projection.unalias()
            if bare.sql() in key_texts:
                continue
            for column in bare.find_all(exp.Column):
                if in_aggregate(column) or column.find_ancestor(exp.Select) is not select:
                    continue
                table = column_table(column, tables, context)
                if (table, column.name.lower()) in pairs or table in keyed:
                    continue
                yield (
                    f"{column.sql(context.dialect)} is selected but neither in GROUP BY nor "
                    f"inside an aggregate: {context.dialect} returns the value of an arbitrary "
                    "row of each group. Add it to GROUP BY, or wrap it in an aggregate "
                    "(MAX, MIN, SUM)."
                )
                break
