"""The lineage pass alone: which output positions carry customer names, and what is refused."""

from __future__ import annotations

import pytest

from react_agent.access.policy_file.policy import load_policy
from react_agent.access.scoping.rewrite import ScopeRefused, apply_scope
from react_agent.access.sensitive.masking import sensitive_names, token_for, tokenised_rows
from tests.react_agent.access.conftest import POLICY_FILE
from tests.react_agent.access.test_policy_file import CATALOG


@pytest.fixture(scope="module")
def east():
    policy = load_policy(POLICY_FILE, CATALOG)
    return policy.scope_for(policy.actor_for("alice"))


@pytest.mark.parametrize(
    ("sql", "dialect", "positions"),
    [
        ("SELECT city, customer_name FROM customers", "sqlite", {1}),
        ("SELECT substr(customer_name, 1, 1) AS initial FROM customers", "sqlite", {0}),
        ("SELECT c.* FROM customers c JOIN stores s ON s.store_id = c.region_id", "sqlite", {1}),
        ("SELECT * FROM stores, customers", "sqlite", {6}),
        (
            "SELECT a, b FROM (SELECT customer_name, city FROM customers) AS t(b, a)",
            "postgres",
            {1},
        ),
        (
            "WITH t(x, y) AS (SELECT city, customer_name FROM customers) SELECT y FROM t",
            "sqlite",
            {0},
        ),
        (
            "WITH RECURSIVE r(n, s) AS (SELECT 1, '' UNION ALL SELECT n + 1, s || "
            "(SELECT min(customer_name) FROM customers) FROM r WHERE n < 3) SELECT n, s FROM r",
            "sqlite",
            {1},
        ),
        (
            "SELECT o.order_id, (SELECT max(customer_name) FROM customers) FROM orders o",
            "sqlite",
            {1},
        ),
        ("SELECT row_to_json(c) AS j, 1 FROM customers c", "postgres", {0}),
        ("SELECT first_value(customer_name) OVER (ORDER BY city) FROM customers", "sqlite", {0}),
        ("SELECT row_number() OVER (ORDER BY customer_name) FROM customers", "sqlite", set()),
        ("SELECT customer_name = 'x', customer_name LIKE 'a%' FROM customers", "sqlite", set()),
        ("SELECT count(customer_name), length(customer_name) FROM customers", "sqlite", set()),
        (
            "SELECT city FROM customers WHERE customer_name <> '' ORDER BY customer_name",
            "sqlite",
            set(),
        ),
        ("SELECT customer_name || '' FROM customers", "mysql", {0}),  # OR, or a concat
        ("SELECT v FROM customers, unnest(ARRAY[customer_name]) AS u(v)", "postgres", {0}),
        ("SELECT store_name FROM stores", "sqlite", set()),
        ("SELECT #2, #1 FROM customers", "duckdb", {0}),  # positional: customer_name, id
        ("SELECT l.x FROM customers c, LATERAL (SELECT c.customer_name AS x) l", "postgres", {0}),
        ("SELECT value FROM customers, json_each(json_array(customer_name))", "sqlite", {0}),
    ],
)
def test_outputs_carrying_a_name_are_found_by_position(east, sql, dialect, positions):
    scoped = apply_scope(sql, dialect, east, CATALOG)
    assert set(scoped.sensitive_positions) == positions


@pytest.mark.parametrize(
    ("sql", "dialect"),
    [
        ("SELECT group_concat(customer_name) FROM customers", "sqlite"),
        ("SELECT string_agg(customer_name, ',') FROM customers", "postgres"),
        ("SELECT json_agg(c) FROM customers c", "postgres"),
        ("SELECT unnest(array_agg(customer_name)) FROM customers", "postgres"),
        ("SELECT list(customer_name) FROM customers", "duckdb"),
        ("SELECT json_arrayagg(customer_name) FROM customers", "mysql"),
        ("SELECT (SELECT group_concat(customer_name) FROM customers) AS x", "sqlite"),
        ("SELECT ARRAY(SELECT customer_name FROM customers)", "postgres"),
    ],
)
def test_folding_several_names_into_one_value_is_refused_with_a_way_out(east, sql, dialect):
    with pytest.raises(ScopeRefused) as refused:
        apply_scope(sql, dialect, east, CATALOG)
    assert refused.value.rule == "SENSITIVE_VALUES_FOLDED"
    assert "customer_name" in refused.value.reason and "count it" in refused.value.reason


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM customers PIVOT (count(*) FOR customer_name IN ('a', 'b'))",
        "SELECT * FROM (PIVOT customers ON customer_name USING count(*)) p",
        "SELECT * FROM (SELECT city, customer_name AS n FROM customers) "
        "PIVOT (count(*) FOR n IN (SELECT customer_name FROM customers))",
    ],
)
def test_a_pivot_on_a_name_is_refused_its_values_would_be_column_names(east, sql):
    with pytest.raises(ScopeRefused) as refused:
        apply_scope(sql, "duckdb", east, CATALOG)
    assert refused.value.rule == "SENSITIVE_VALUES_AS_COLUMNS"


@pytest.mark.parametrize(
    ("sql", "names"),
    [
        ("SELECT v FROM customers UNPIVOT (v FOR k IN (customer_name, city))", ("v",)),
        ("SELECT columns('customer_.*') FROM customers", ("*",)),  # widths differ: all
        ("SELECT * FROM customers PIVOT (count(*) FOR city IN ('a'))", ("*",)),
    ],
)
def test_unpivot_and_columns_expressions_carry_names(east, sql, names):
    scoped = apply_scope(sql, "duckdb", east, CATALOG)
    assert scoped.sensitive_names == names


def test_folding_other_columns_is_allowed(east):
    scoped = apply_scope("SELECT group_concat(city) FROM customers", "sqlite", east, CATALOG)
    assert scoped.sensitive_positions == ()


def test_positions_name_the_result_columns_and_a_mismatch_marks_them_all():
    assert sensitive_names(["id", "upper(name)"], (1,), 2) == ["upper(name)"]
    assert sensitive_names(["a", "b", "c"], (1,), 2) == ["a", "b", "c"]
    assert sensitive_names(["k", "Name", "x"], (2,), 4, ("name",)) == ["Name"]  # USING: by name
    assert sensitive_names(["k", "x"], (2,), 4, ("",)) == ["k", "x"]
    assert sensitive_names(["a"], (), None) == []


def test_tokens_are_64_bits_and_do_not_collide_over_many_values():
    values = [f"客户{n}" for n in range(20_000)]
    tokens = {token_for("customer_name", value) for value in values}
    assert len(tokens) == len(values)
    code = token_for("customer_name", "李华").removesuffix("›").split("#")[1]
    assert len(code) == 13
    rows = tokenised_rows([{"n": "王", "id": 1}], ["n"])
    assert rows == [{"n": token_for("n", "王"), "id": 1}]  # one character is tokenised too


def test_a_table_counts_as_filtered_under_a_row_filter_or_a_database_role():
    from react_agent.access.scope import Scope

    assert Scope(row_filters={"orders": "1 = 1"}).filters_rows("ORDERS")
    assert not Scope(row_filters={"orders": "1 = 1"}).filters_rows("products")
    assert Scope(db_role="east_analyst").filters_rows("products")  # RLS may filter any table
    assert not Scope.allow_all().filters_rows("orders")


def test_a_query_too_deep_to_follow_is_refused_not_let_through(east):
    deep = "SELECT " + "upper(" * 3000 + "customer_name" + ")" * 3000 + " FROM customers"
    try:
        scoped = apply_scope(deep, "sqlite", east, CATALOG)
    except ScopeRefused as refused:
        assert refused.rule in ("QUERY_NOT_ANALYSABLE",)
    else:
        assert scoped.sensitive_positions == (0,)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT groupArray(customer_name) FROM customers",
        "SELECT groupArray(10)(customer_name) FROM customers",
        "SELECT arrayStringConcat(groupArray(customer_name), ',') FROM customers",
        "SELECT groupUniqArray(customer_name) FROM customers",
        "SELECT groupArrayIf(customer_name, customer_id > 1) FROM customers",
        "SELECT groupArrayDistinct(customer_name) FROM customers",
        "SELECT topK(10)(customer_name) FROM customers",
        "SELECT groupConcat(customer_name) FROM customers",
    ],
)
def test_clickhouses_folding_aggregates_are_refused(east, sql):
    with pytest.raises(ScopeRefused) as refused:
        apply_scope(sql, "clickhouse", east, CATALOG)
    assert refused.value.rule == "SENSITIVE_VALUES_FOLDED"


def test_clickhouses_single_value_aggregates_are_tokens(east):
    scoped = apply_scope(
        "SELECT any(customer_name), groupArray(city) FROM customers", "clickhouse", east, CATALOG
    )
    assert scoped.sensitive_positions == (0,)
