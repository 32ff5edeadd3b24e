"""Which output columns of a query carry a sensitive column's values: lineage on the parse tree.

One pass over the query, scope by scope (CTEs, derived tables, set operations, scalar and
correlated subqueries), gives each output column one of three labels:

- CLEAN: no sensitive value in it: constants, other columns, `count(…)` of anything, a
  predicate's true/false (`name LIKE 'A%'`, `EXISTS`, `IN`), a length, a window's ordering;
- VALUE: a sensitive value passes through, whatever the expression: `upper()`, `||`,
  `coalesce`, `cast`, `CASE … THEN`, `min`/`max`, a scalar subquery, a CTE's or an alias's
  column list (`t(a, b)`), a union branch, a whole-row reference (`row_to_json(c)`). Its
  values become tokens before the model reads them;
- LIST: several sensitive values folded into one (`string_agg`, `group_concat`,
  `json_agg`, `array_agg`, `list`, `ARRAY(SELECT …)`, and whatever is made of them, such as
  `unnest(array_agg(…))`). No per-value token can stand for it: the query is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp

from react_agent.access.scope import Scope
from react_agent.access.sensitive.lineage_labels import LIST, VALUE
from react_agent.access.sensitive.lineage_pass import LineagePass, Refused
from react_agent.access.table_keys import table_key

LIST_REFUSAL = (
    "the query folds several values of the sensitive column{s} {names} into one "
    "(string_agg, group_concat, json_agg, array_agg, list…); each value can only be shown as "
    "its own token: select the column itself, one value per row (GROUP BY it or use "
    "DISTINCT), or count it"
)


@dataclass(frozen=True)
class Lineage:
    """The outputs whose values are sensitive, by position; or why the query is refused."""

    positions: tuple[int, ...] = ()
    """0-based positions of the result columns that carry sensitive values."""
    refusal: str | None = None
    """Why no token can stand for some output (it folds several values), or None."""
    rule: str = "SENSITIVE_VALUES_FOLDED"
    """The rule a refusal names (SENSITIVE_VALUES_AS_COLUMNS for a pivot on one)."""
    output_count: int | None = None
    """How many result columns the pass saw (None: no sensitive column is read)."""
    names: tuple[str, ...] = ()
    """Lower-case names of those outputs ("" when unnamed), for a result of another width."""

    @property
    def outputs(self) -> tuple[tuple[int, ...], int | None, tuple[str, ...]]:
        """Return (positions, output_count, names), as ScopedQuery takes them."""
        return self.positions, self.output_count, self.names


def sensitive_lineage(
    tree: exp.Expression,
    tables: list[exp.Table],
    scope: Scope,
    columns_of: Mapping[str, Sequence[str]],
) -> Lineage:
    """Return which outputs of `tree` carry values of the scope's sensitive columns.

    Args:
        tree: The query's parse tree (the guard's, read only).
        tables: The real tables it reads (the rewrite found them).
        scope: The scope whose sensitive columns count.
        columns_of: Lower-case table name → its columns in order (to expand `*`).

    """
    sensitive = sorted({c for table in tables for c in scope.sensitive(table_key(table))})
    if not sensitive:
        return Lineage()
    walk = LineagePass(scope, columns_of)
    plural = "s" if len(sensitive) > 1 else ""
    try:
        outputs = walk.query(tree, None)
    except Refused as refused:
        reason = str(refused).format(s=plural, names=", ".join(sensitive))
        return Lineage(refusal=reason, rule="SENSITIVE_VALUES_AS_COLUMNS")
    except (RecursionError, AttributeError, TypeError, ValueError) as exc:  # fail closed
        reason = f"which outputs carry sensitive values could not be told ({type(exc).__name__})"
        return Lineage(refusal=reason, rule="QUERY_NOT_ANALYSABLE")
    if any(label == LIST for _, label in outputs):
        return Lineage(refusal=LIST_REFUSAL.format(s=plural, names=", ".join(sensitive)))
    positions = tuple(i for i, (_, label) in enumerate(outputs) if label == VALUE)
    names = tuple(outputs[i][0] for i in positions)
    return Lineage(positions, output_count=len(outputs), names=names)
