"""join_fanout: SUM or COUNT of a table's column after a join that repeats that table's rows."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from react_agent.lint.model import LintContext, column_table, own_tables, selects

RULE = "join_fanout"


def _edges(select: exp.Select, tables: dict[str, str], context: LintContext) -> Iterator[tuple]:
    """Yield (table, column) pairs equated by each join's condition, and None for a bare join."""
    for join in select.args.get("joins") or []:
        condition = join.args.get("on")
        using = join.args.get("using")
        joined = join.this
        if using:
            right = tables.get((joined.alias or joined.name).lower())
            for name in using:
                others = [t for t in tables.values() if t != right]
                yield (others[0] if others else None, name.name.lower()), (right, name.name.lower())
            continue
        if condition is None:
            yield None
            continue
        for eq in condition.find_all(exp.EQ):
            left, right = eq.this, eq.expression
            if isinstance(left, exp.Column) and isinstance(right, exp.Column):
                yield (
                    (column_table(left, tables, context), left.name.lower()),
                    (column_table(right, tables, context), right.name.lower()),
                )


def _is_key(table: str | None, column: str, context: LintContext) -> bool:
    info = context.table(table)
    if info is None:
        return False
    primary = [c.lower() for c in info.primary_key] or [
        c.name.lower() for c in info.columns if c.primary_key
    ]
    return primary == [column]


def repeated_tables(select: exp.Select, context: LintContext) -> tuple[set[str], bool]:
    """Return the tables whose rows the joins repeat, and whether a join has no key at all.

    A join on `A.x = B.y` repeats A's rows when `y` is not B's primary key (one A row meets
    several B rows); a join without condition, or on no key either side, repeats both.
    """
    tables = own_tables(select)
    repeated: set[str] = set()
    keyless = False
    for edge in _edges(select, tables, context):
        if edge is None:
            keyless = True
            repeated |= set(tables.values())
            continue
        (left, left_column), (right, right_column) = edge
        left_key, right_key = (
            _is_key(left, left_column, context),
            _is_key(right, right_column, context),
        )
        if context.catalog is None:
            continue
        if not left_key and not right_key:
            keyless = True
        if not right_key and left:
            repeated.add(left)
        if not left_key and right:
            repeated.add(right)
    return repeated, keyless


def check(tree: exp.Expression, context: LintContext) -> Iterator[str]:
    """Yield a message for each SUM/COUNT of a column whose table the joins repeat."""
    for select in selects(tree):
        if not select.args.get("joins"):
            continue
        repeated, keyless = repeated_tables(select, context)
        if not repeated:
            continue
        tables = own_tables(select)
        for aggregate in select.find_all(exp.Sum, exp.Count):
            if aggregate.find_ancestor(exp.Select) is not select:
                continue
            argument = aggregate.this
            if isinstance(argument, exp.Distinct) or not isinstance(argument, exp.Column):
                continue
            owner = column_table(argument, tables, context)
            if owner in repeated:
                how = "a join without a key" if keyless else f"a one-to-many join from {owner}"
                yield (
                    f"{aggregate.sql(context.dialect)} adds up {owner} rows that {how} repeats "
                    f"(once per matching row of the other table), so the total is too large. "
                    f"Aggregate {owner} before the join (in a subquery), or use "
                    f"COUNT(DISTINCT ...) for counts."
                )
