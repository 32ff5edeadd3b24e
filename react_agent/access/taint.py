"""Which result columns carry a sensitive column's values, found on the parse tree by name."""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from react_agent.access.scope import Scope


def sensitive_outputs(
    columns: Sequence[exp.Column], tables: list[exp.Table], scope: Scope
) -> frozenset[str]:
    """Return the lower-case names of output columns that may carry sensitive values.

    Starts from the sensitive columns of the tables read (and those tables' names and
    aliases, for whole-row references such as `row_to_json(c)`), then follows aliases
    through subqueries and CTEs until nothing new is tainted. Over-approximates: a result
    column named like a tainted one is masked even if it came from elsewhere. A column
    counted (`count(customer_name)`) tells no value and taints nothing.

    Args:
        columns: Every column reference of the query (one walk of the tree, by the caller).
        tables: The real tables the query reads.
        scope: The scope whose sensitive columns count.

    """
    tainted: set[str] = set()
    for table in tables:
        sensitive = scope.sensitive(table.name)
        if sensitive:
            tainted |= sensitive | {table.name.lower(), table.alias_or_name.lower()}
    if not tainted:
        return frozenset()
    projections = {id(c): _projection_of(c) for c in columns}
    changed = True
    while changed:
        changed = False
        for column in columns:
            projection = projections[id(column)]
            if projection is None or column.name.lower() not in tainted:
                continue
            name = projection.alias_or_name.lower()
            if name and name not in tainted:
                tainted.add(name)
                changed = True
    return frozenset(tainted)


def _projection_of(column: exp.Column) -> exp.Expression | None:
    """Return the select-list item showing `column`'s values, or None (counted, or not shown)."""
    node: exp.Expression = column
    while node.parent is not None:
        parent = node.parent
        if isinstance(node, exp.Count):
            return None
        if isinstance(parent, exp.Select) and node.arg_key == "expressions":
            return node
        node = parent
    return None
