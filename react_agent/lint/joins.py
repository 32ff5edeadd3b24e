"""join_fanout: SUM or COUNT of a table's column after a join that repeats that table's rows."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from react_agent.lint.model import LintContext, own_tables, selects

RULE = "join_fanout"


def _alias_of(column: exp.Column, tables: dict[str, str], context: LintContext) -> str | None:
    """Return the alias (or name) of the table `column` reads from, or None when unknown."""
    if column.table:
        return column.table.lower() if column.table.lower() in tables else None
    if len(tables) == 1:
        return next(iter(tables))
    owners = [
        a for a, t in tables.items() if (info := context.table(t)) and info.column(column.name)
    ]
    return owners[0] if len(owners) == 1 else None


def _is_key(table: str | None, column: str, context: LintContext) -> bool:
    """Whether `column` alone is the primary key of `table` (per the catalogue)."""
    info = context.table(table)
    if info is None:
        return False
    primary = [c.lower() for c in info.primary_key] or [
        c.name.lower() for c in info.columns if c.primary_key
    ]
    return primary == [column.lower()]


def _join_sides(
    join: exp.Join, new: str, tables: dict[str, str], context: LintContext
) -> list[tuple[str, str, str]]:
    """Return (new table's column, other alias, other column) for each equality of the join."""
    sides = []
    for name in join.args.get("using") or []:
        others = [a for a in tables if a != new]
        sides.append((name.name, others[0] if others else new, name.name))
    condition = join.args.get("on")
    for eq in condition.find_all(exp.EQ) if condition is not None else []:
        left, right = eq.this, eq.expression
        if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
            continue
        left_alias, right_alias = (
            _alias_of(left, tables, context),
            _alias_of(right, tables, context),
        )
        if left_alias == new and right_alias and right_alias != new:
            sides.append((left.name, right_alias, right.name))
        elif right_alias == new and left_alias and left_alias != new:
            sides.append((right.name, left_alias, left.name))
    return sides


def repeated_tables(select: exp.Select, context: LintContext) -> tuple[set[str], bool]:
    """Return the aliases whose rows the joins repeat, and whether a join has no key at all.

    Joining B to the tables so far on `A.x = B.y` repeats every table so far when `y` is
    not B's primary key (one row meets several B rows), and B when `x` is not A's; a join
    without a condition, or on no key either side, repeats both sides.
    """
    tables = own_tables(select)
    source = select.args.get("from_") or select.args.get("from")
    before = {source.this.alias_or_name.lower()} if source is not None else set()
    repeated: set[str] = set()
    keyless = False
    for join in select.args.get("joins") or []:
        new = join.this.alias_or_name.lower()
        sides = _join_sides(join, new, tables, context)
        if not sides and join.args.get("on") is None and not join.args.get("using"):
            keyless, repeated = True, repeated | before | {new}
        elif context.catalog is not None and sides:
            new_key = any(_is_key(tables.get(new), column, context) for column, _, _ in sides)
            old_key = any(_is_key(tables.get(a), column, context) for _, a, column in sides)
            if not new_key:
                repeated |= before
            if not old_key:
                repeated.add(new)
            keyless = keyless or not (new_key or old_key)
        before.add(new)
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
            if not isinstance(argument, exp.Column):
                continue  # COUNT(*), COUNT(DISTINCT ...), an expression
            alias = _alias_of(argument, tables, context)
            if alias in repeated:
                owner = tables[alias]
                how = "a join without a key" if keyless else "a one-to-many join"
                yield (
                    f"{aggregate.sql(context.dialect)} adds up {owner} rows that {how} repeats "
                    "(once per matching row of the other table), so the total is too large. "
                    f"Aggregate {owner} before the join (in a subquery), or use "
                    "COUNT(DISTINCT ...) for counts."
                )
