"""Rules read against the question: LIMIT without ORDER BY, COUNT(column), NOT IN over NULLs."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from react_agent.lint.model import (
    LintContext,
    asks,
    column_info,
    own_tables,
    owning_select,
    selects,
)

LIMIT_RULE = "limit_without_order"
COUNT_RULE = "count_column_for_rows"
NOT_IN_RULE = "not_in_nullable"

RANKING_WORDS = re.compile(
    r"前\s*[0-9一二三四五六七八九十百]+|后\s*[0-9一二三四五六七八九十]+|最高|最低|最多|最少|最大|最小|"
    r"最新|最近|最早|最贵|最便宜|排名|倒数|\b(top|bottom|latest|newest|oldest|earliest|"
    r"most\s+recent|highest|lowest|largest|smallest|biggest|best|worst|most|least|first\s+\d+|"
    r"last\s+\d+)\b",
    re.IGNORECASE,
)
"""Words of a question that asks for the first rows of an order (top, latest, 前N, 最高, …)."""

COUNTING_WORDS = re.compile(
    r"多少(个|家|笔|位|名|人|条|单|种|次|件)?|几(个|家|笔|位|名|条|单|种|次|件)|数量|总数|个数|"
    r"\b(how\s+many|number\s+of|count\s+of|count\s+the)\b",
    re.IGNORECASE,
)
"""Words of a question that counts rows (how many, number of, 多少, 几个, 数量)."""


def check_limit(tree: exp.Expression, context: LintContext) -> Iterator[str]:
    """Yield when a LIMIT without ORDER BY answers a question about the top or latest rows."""
    if not asks(context.question, RANKING_WORDS):
        return
    for select in selects(tree):
        if select.args.get("limit") is not None and select.args.get("order") is None:
            yield (
                "LIMIT without ORDER BY returns arbitrary rows, but the question asks for the "
                "top, bottom or latest ones. Add ORDER BY on the measure or date the question "
                "ranks by (DESC for highest or latest)."
            )


def check_count(tree: exp.Expression, context: LintContext) -> Iterator[str]:
    """Yield for COUNT(column), which skips NULLs, when the question counts rows."""
    if not asks(context.question, COUNTING_WORDS):
        return
    for count in tree.find_all(exp.Count):
        argument = count.this
        if not isinstance(argument, exp.Column):
            continue  # COUNT(*), COUNT(DISTINCT ...), COUNT(expression)
        select = owning_select(count)
        info = column_info(argument, own_tables(select), context) if select else None
        if info is not None and (not info.nullable or info.primary_key):
            continue  # a NOT NULL column: COUNT(column) is COUNT(*)
        yield (
            f"{count.sql(context.dialect)} skips rows where {argument.name} is NULL, but the "
            "question counts rows. Use COUNT(*) to count rows (or COUNT(DISTINCT ...) to "
            "count distinct values)."
        )


def check_not_in(tree: exp.Expression, context: LintContext) -> Iterator[str]:
    """Yield for NOT IN (subquery) whose column may be NULL: one NULL makes it match nothing."""
    for negation in tree.find_all(exp.Not):
        inner = negation.this
        if not isinstance(inner, exp.In) or inner.args.get("query") is None:
            continue
        query = inner.args["query"]
        select = query.this if isinstance(query, exp.Subquery) else query
        if not isinstance(select, exp.Select) or len(select.expressions) != 1:
            continue
        column = select.expressions[0].unalias()
        if not isinstance(column, exp.Column):
            continue
        info = column_info(column, own_tables(select), context)
        if info is None or not info.nullable or info.primary_key:
            continue
        if _excludes_null(select, column.name):
            continue
        yield (
            f"NOT IN over {column.sql(context.dialect)}, which may be NULL: if the subquery "
            "returns one NULL, NOT IN matches no row at all. Use NOT EXISTS, or add "
            f"WHERE {column.name} IS NOT NULL to the subquery."
        )


def _excludes_null(select: exp.Select, name: str) -> bool:
    """Whether the subquery's WHERE says `name IS NOT NULL`."""
    where = select.args.get("where")
    if where is None:
        return False
    for test in where.find_all(exp.Is):
        negated = test.args.get("negate") or isinstance(test.parent, exp.Not)
        column = test.this
        if negated and isinstance(column, exp.Column) and column.name.lower() == name.lower():
            return True
    return False
