"""Each lint rule fires on its case and stays quiet on the correct query, in every dialect."""

from __future__ import annotations

import pytest

from react_agent.databases.catalog_model import Catalog, CatalogColumn, CatalogTable
from react_agent.lint.linter import lint_statement, question_of, warnings_text

DIALECTS = ("sqlite", "postgres", "mysql", "duckdb")


def _table(name: str, key: str, *columns: tuple[str, str, bool]) -> CatalogTable:
    return CatalogTable(
        name,
        (
            CatalogColumn(key, "INTEGER", False, True),
            *tuple(CatalogColumn(n, t, nullable) for n, t, nullable in columns),
        ),
        primary_key=(key,),
    )


CATALOG = Catalog(
    "sqlite",
    (
        _table(
            "stores", "store_id", ("store_name", "TEXT", False), ("region_id", "INTEGER", False)
        ),
        _table(
            "orders",
            "order_id",
            ("store_id", "INTEGER", False),
            ("customer_id", "INTEGER", True),
            ("order_date", "DATE", False),
            ("total_amount", "DECIMAL(10,2)", False),
            ("status", "TEXT", False),
        ),
        _table(
            "order_items",
            "item_id",
            ("order_id", "INTEGER", False),
            ("quantity", "INTEGER", False),
            ("unit_price", "DECIMAL(10,2)", False),
        ),
        _table(
            "customers",
            "customer_id",
            ("customer_name", "TEXT", False),
            ("referrer_id", "INTEGER", True),
            ("email", "TEXT", True),
        ),
        _table("notes", "note_id", ("body", "TEXT", True), ("store_name", "TEXT", True)),
    ),
)

# rule: (question, query that is wrong, the correct query)
CASES = {
    "join_fanout": (
        "What is the total order amount of orders that have items?",
        "SELECT SUM(o.total_amount) FROM orders o JOIN order_items i ON i.order_id = o.order_id",
        "SELECT SUM(o.total_amount) FROM orders o JOIN stores s ON o.store_id = s.store_id",
    ),
    "limit_without_order": (
        "销售额最高的前5家门店是哪些？",
        "SELECT store_id, SUM(total_amount) AS t FROM orders GROUP BY store_id LIMIT 5",
        "SELECT store_id, SUM(total_amount) AS t FROM orders GROUP BY store_id "
        "ORDER BY t DESC LIMIT 5",
    ),
    "not_in_nullable": (
        "Which customers never referred anyone?",
        "SELECT customer_name FROM customers WHERE customer_id NOT IN "
        "(SELECT referrer_id FROM customers)",
        "SELECT customer_name FROM customers WHERE customer_id NOT IN "
        "(SELECT referrer_id FROM customers WHERE referrer_id IS NOT NULL)",
    ),
    "integer_division": (
        "What is the average quantity per item row?",
        "SELECT SUM(quantity) * 1.0 / COUNT(*), MAX(quantity / item_id) FROM order_items",
        "SELECT MAX(quantity * 1.0 / item_id) FROM order_items",
    ),
    "date_literal_format": (
        "How many orders since January 2024?",
        "SELECT COUNT(*) FROM orders WHERE order_date >= '2024/01/01'",
        "SELECT COUNT(*) FROM orders WHERE order_date >= '2024-01-01'",
    ),
    "ungrouped_column": (
        "Revenue per region",
        "SELECT region_id, store_name, COUNT(*) FROM stores GROUP BY region_id",
        "SELECT region_id, COUNT(*), MAX(store_name) FROM stores GROUP BY region_id",
    ),
    "count_column_for_rows": (
        "How many customers are there?",
        "SELECT COUNT(email) FROM customers",
        "SELECT COUNT(*) FROM customers",
    ),
}
ONLY_ON = {"integer_division": {"sqlite", "postgres"}, "ungrouped_column": {"sqlite", "mysql"}}


def _rules(sql: str, dialect: str, question: str) -> list[str]:
    return [w.rule for w in lint_statement(sql, dialect, question, CATALOG)]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("rule", sorted(CASES))
def test_the_rule_fires_on_its_case_and_is_quiet_on_the_correct_query(rule: str, dialect: str):
    question, wrong, right = CASES[rule]
    fires = dialect in ONLY_ON.get(rule, set(DIALECTS))
    assert (rule in _rules(wrong, dialect, question)) is fires
    assert _rules(right, dialect, question) == []


@pytest.mark.parametrize("dialect", DIALECTS)
def test_questions_that_do_not_rank_or_count_draw_no_question_rules(dialect: str):
    _, limit, _ = CASES["limit_without_order"]
    _, count, _ = CASES["count_column_for_rows"]
    assert _rules(limit, dialect, "Show some stores' revenue") == []
    assert _rules(count, dialect, "Which customers have an email?") == []
    for question in ("Top 5 stores", "最新的订单", "the latest orders", "前十名", "lowest price"):
        assert "limit_without_order" in _rules(limit, dialect, question)
    for question in ("多少个客户", "number of customers", "客户数量", "几位客户"):
        assert "count_column_for_rows" in _rules(count, dialect, question)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_joins_without_a_key_and_grouped_keys(dialect: str):
    keyless = "SELECT SUM(o.total_amount) FROM orders o JOIN notes n ON n.body = o.status"
    cross = "SELECT COUNT(o.order_id) FROM orders o CROSS JOIN stores s"
    per_store = (
        "SELECT s.store_id, s.store_name, SUM(o.total_amount) FROM stores s "
        "JOIN orders o ON o.store_id = s.store_id GROUP BY s.store_id"
    )
    assert "join_fanout" in _rules(keyless, dialect, "")
    assert "join_fanout" in _rules(cross, dialect, "")
    assert "join_fanout" not in _rules(
        "SELECT COUNT(DISTINCT o.order_id) FROM orders o JOIN order_items i "
        "ON i.order_id = o.order_id",
        dialect,
        "",
    )
    chained = (
        "SELECT s.store_name, SUM(o.total_amount) FROM stores s JOIN orders o ON o.store_id = "
        "s.store_id JOIN order_items i ON i.order_id = o.order_id GROUP BY s.store_name"
    )
    assert "join_fanout" in _rules(chained, dialect, "")  # items repeat each order
    pre_aggregated = (
        "SELECT s.store_name, SUM(t.amount) FROM stores s JOIN (SELECT store_id, "
        "SUM(total_amount) AS amount FROM orders GROUP BY store_id) t ON t.store_id = "
        "s.store_id GROUP BY s.store_name"
    )
    assert "join_fanout" not in _rules(pre_aggregated, dialect, "")
    # store_name depends on the grouped key: not arbitrary; SUM over the many side is right.
    assert _rules(per_store, dialect, "") == []
    assert _rules("SELECT 2 AS n GROUP BY 1", dialect, "") == []
    window = "SELECT store_name, COUNT(*) OVER (PARTITION BY region_id) AS n FROM stores"
    assert _rules(window, dialect, "") == []


def test_without_a_catalogue_only_what_the_text_shows_is_flagged():
    assert [w.rule for w in lint_statement(CASES["join_fanout"][1], "sqlite")] == []
    assert [
        w.rule
        for w in lint_statement(
            "SELECT COUNT(email) FROM customers", "sqlite", "how many customers"
        )
    ] == ["count_column_for_rows"]
    assert lint_statement("SELEC nonsense", "sqlite") == []


def test_the_warnings_read_as_instructions_with_the_rule_named():
    question, wrong, _ = CASES["limit_without_order"]
    text = warnings_text(lint_statement(wrong, "sqlite", question, CATALOG))
    assert "[limit_without_order]" in text and "Add ORDER BY" in text
    assert warnings_text([]) == ""

    class Human:
        type, content = "human", "最多的是谁？"

    assert question_of({"messages": [Human()]}) == "最多的是谁？"
    assert question_of(None) == ""
