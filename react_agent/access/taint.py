"""Which result columns carry a sensitive column's values, found on the parse tree by name."""

from __future__ import annotations

from sqlglot import exp

from react_agent.access.scope import Scope

_COUNTS = (exp.Count,)
"""Aggregates whose result tells no value: counting over a sensitive column stays readable."""


def sensitive_outputs(
    tree: exp.Expression, tables: list[exp.Table], scope: Scope
) -> frozenset[str]:
    """Return the lower-case names of output columns that may carry sensitive values.

    Starts from the sensitive columns of the tables read (and those tables' names and
    aliases, for whole-row references such as `row_to_json(c)`), then follows aliases
    through subqueries and CTEs until nothing new is tainted. Over-approximates: a result
    column named like a tainted one is masked even if it came from elsewhere.
    """
    tainted: set[str] = set()
    for table in tables:
        columns = scope.sensitive(table.name)
        if columns:
            tainted |= columns | {table.name.lower(), table.alias_or_name.lower()}
    if not tainted:
        return frozenset()
    selects = list(tree.find_all(exp.Select))
    changed = True
    while changed:
        changed = False
        for select in selects:
            for projection in select.expressions:
                name = projection.alias_or_name.lower()
                if name and name not in tainted and _reads(projection, tainted):
                    tainted.add(name)
                    changed = True
    return frozenset(tainted)


def _reads(projection: exp.Expression, tainted: set[str]) -> bool:
    """Whether a projection shows a tainted column's values (a count of them does not)."""
    for column in projection.find_all(exp.Column):
        if column.name.lower() not in tainted:
            continue
        if column.find_ancestor(*_COUNTS) is None:
            return True
    return False
