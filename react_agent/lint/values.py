"""Rules on values: integer division, and a date column compared with a date in another format."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from react_agent.lint.model import LintContext, column_info, own_tables, owning_select

DIVISION_RULE = "integer_division"
DATE_RULE = "date_literal_format"

TRUNCATING_DIALECTS = frozenset({"sqlite", "postgres"})
"""Engines where integer / integer drops the fraction (MySQL's / and DuckDB's give decimals)."""

INTEGER_TYPE = re.compile(r"INT(EGER)?\d*\b|SERIAL", re.IGNORECASE)
DATE_TYPE = re.compile(r"DATE|TIME", re.IGNORECASE)
DATE_NAME = re.compile(r"(^|_)(date|day|time|at|on)$|date", re.IGNORECASE)
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
DATE_LIKE = re.compile(
    r"^(\d{4}[/.年-]\d{1,2}([/.月-]\d{1,2}日?)?|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{8}|"
    r"\d{4}-\d{1,2}-\d{1,2})([ T].*)?$"
)
"""Text that reads as a date: 2024/01/05, 05/01/2024, 20240105, 2024年1月5日, 2024-1-5."""


def _is_integer(node: exp.Expression, context: LintContext) -> bool:
    if isinstance(node, exp.Count):
        return True
    if not isinstance(node, exp.Column):
        return False
    select = owning_select(node)
    info = column_info(node, own_tables(select), context) if select else None
    return info is not None and INTEGER_TYPE.search(info.type or "") is not None


def check_division(tree: exp.Expression, context: LintContext) -> Iterator[str]:
    """Yield for integer / integer on an engine where it truncates (SQLite, PostgreSQL)."""
    if context.dialect not in TRUNCATING_DIALECTS:
        return
    for division in tree.find_all(exp.Div):
        if _is_integer(division.this, context) and _is_integer(division.expression, context):
            yield (
                f"{division.sql(context.dialect)} divides two integers, which {context.dialect} "
                "truncates to an integer (3 / 4 = 0). Multiply by 1.0 or CAST one side to a "
                "decimal before dividing (a ratio or share)."
            )


def _is_date_column(node: exp.Expression, context: LintContext) -> bool:
    if not isinstance(node, exp.Column):
        return False
    select = owning_select(node)
    info = column_info(node, own_tables(select), context) if select else None
    if info is not None and DATE_TYPE.search(info.type or ""):
        return True
    return DATE_NAME.search(node.name) is not None


def check_dates(tree: exp.Expression, context: LintContext) -> Iterator[str]:
    """Yield for a date column compared with a text literal written in another date format."""
    comparisons = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between)
    for comparison in tree.find_all(*comparisons):
        column = comparison.this
        if not _is_date_column(column, context):
            continue
        literals = [
            value
            for value in comparison.args.values()
            if isinstance(value, exp.Literal) and value.is_string
        ]
        for literal in literals:
            text = literal.this.strip()
            if DATE_LIKE.match(text) and not ISO_DATE.match(text):
                yield (
                    f"{column.sql(context.dialect)} is compared with '{text}', a date in "
                    "another format than the column's (YYYY-MM-DD): text compares character by "
                    "character, so rows are missed or wrongly kept. Write the date as "
                    "'YYYY-MM-DD'."
                )
