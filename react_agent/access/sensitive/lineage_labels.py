"""The three labels of the lineage pass, and which expressions fold several values into one."""

from __future__ import annotations

from sqlglot import exp

CLEAN, VALUE, LIST = 0, 1, 2
"""Output labels, ordered: a combination takes the highest."""

LIST_AGGREGATES = tuple(
    getattr(exp, name)
    for name in (
        "GroupConcat",
        "ArrayAgg",
        "ArrayConcatAgg",
        "ArrayUniqueAgg",
        "JSONArrayAgg",
        "JSONObjectAgg",
        "JSONBObjectAgg",
    )
    if hasattr(exp, name)
)
LIST_NAMES = frozenset(
    {
        "string_agg",
        "group_concat",
        "listagg",
        "list",
        "array_agg",
        "json_agg",
        "jsonb_agg",
        "json_object_agg",
        "jsonb_object_agg",
        "json_group_array",
        "json_group_object",
        "json_arrayagg",
        "json_objectagg",
        "histogram",
        "xmlagg",
    }
) | frozenset(  # ClickHouse's
    """grouparray groupuniqarray grouparraysample grouparraylast grouparraysorted
    grouparraydistinct grouparrayinsertat groupconcat topk topkweighted approx_top_k
    approx_top_count summap maxmap minmap""".split()
)
"""Aggregates that fold several values into one text, array or document (any dialect)."""
MEASURES = (exp.Count, exp.Length, exp.Predicate, exp.Not, exp.Exists)
"""Expressions whose result tells about values without being one (like a WHERE does)."""


def folds(node: exp.Expression) -> bool:
    """Whether `node` folds several values into one (a list aggregate of any dialect)."""
    if isinstance(node, LIST_AGGREGATES):
        return True
    # ClickHouse's aggregates (groupArray, topK(10)(x)) parse as aggregates of their own.
    if isinstance(node, exp.Anonymous | exp.AnonymousAggFunc | exp.ParameterizedAgg):
        return is_list_name(str(node.this).lower())
    return isinstance(node, exp.Func) and node.sql_name().lower() in LIST_NAMES


_COMBINATORS = ("if", "distinct", "ornull", "ordefault", "array", "foreach", "state", "merge")
"""ClickHouse's aggregate suffixes: groupArrayIf, groupUniqArrayDistinctOrNull, …"""


def is_list_name(name: str) -> bool:
    """Whether `name` is a list aggregate's, ClickHouse's combinator suffixes taken off."""
    while name not in LIST_NAMES:
        stripped = next((name[: -len(s)] for s in _COMBINATORS if name.endswith(s)), name)
        if stripped == name or not stripped:
            return False
        name = stripped
    return True


def has_query(node: exp.Expression) -> bool:
    """Whether a query is one of `node`'s operands (`ARRAY(SELECT …)`)."""
    return any(isinstance(e, exp.Query | exp.Subquery) for e in node.iter_expressions())
