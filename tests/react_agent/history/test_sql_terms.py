"""The tables and columns of a turn's queries, read from the tree the SQL guard parsed."""

from __future__ import annotations

import pytest

from react_agent.guard.sql_guard import check_query, parse_statement
from react_agent.history.sql_terms import sql_terms

QUERIES = [
    (
        "SELECT r.region_name, SUM(o.amount) FROM orders o JOIN regions r "
        "ON o.region_id = r.id GROUP BY r.region_name",
        ["orders", "regions"],
        ["amount", "id", "region_id", "region_name"],
    ),
    (
        "WITH big AS (SELECT id FROM Orders WHERE amount > 100) SELECT COUNT(*) FROM big",
        ["orders"],
        ["amount", "id"],
    ),
    ("SELECT name FROM sales.customers", ["sales.customers"], ["name"]),
]


@pytest.mark.parametrize(("sql", "tables", "columns"), QUERIES)
@pytest.mark.parametrize("dialect", ["sqlite", "postgres", None])
def test_terms_are_the_tables_and_columns_read(sql, tables, columns, dialect):
    assert sql_terms(sql, dialect) == (tables, columns)


def test_a_query_the_guard_checked_is_not_parsed_again():
    sql = "SELECT region_name FROM regions WHERE region_name <> 'x' -- terms test"
    check_query(sql, "sqlite", None)
    before = parse_statement.cache_info()
    assert sql_terms(sql, "sqlite") == (["regions"], ["region_name"])
    after = parse_statement.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)


def test_what_sqlglot_cannot_read_has_no_terms():
    assert sql_terms("SELECT FROM WHERE (", "sqlite") == ([], [])


def test_two_statements_the_guard_refuses_are_still_described_as_before():
    assert sql_terms("SELECT a FROM t1; SELECT b FROM t2", "sqlite") == (["t1", "t2"], ["a", "b"])
