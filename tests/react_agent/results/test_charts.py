"""Chart rules on real SQLite and PostgreSQL results: dates, decimals, text, NULLs."""

from __future__ import annotations

from decimal import Decimal

import pytest

from react_agent.databases.base import SQLDatabase
from react_agent.results.charts import asks_for_share, build_chart

SALES_BY_REGION = (
    "SELECT r.region_name AS 地区, SUM(o.total_amount) AS 销售额, COUNT(*) AS 订单数 "
    "FROM orders o JOIN stores s ON s.store_id = o.store_id "
    "JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name ORDER BY 2 DESC"
)
SALES_BY_DAY = (
    "SELECT order_date AS 日期, SUM(total_amount) AS 销售额 FROM orders "
    "WHERE order_date < '2024-01-15' GROUP BY order_date ORDER BY order_date DESC"
)
SALES_BY_MONTH = (
    "SELECT substr(CAST(order_date AS TEXT), 1, 7) AS 月份, SUM(total_amount) AS 销售额 "
    "FROM orders GROUP BY 1 ORDER BY 2"
)
PRODUCTS_BY_CATEGORY = "SELECT category, COUNT(*) AS 商品数 FROM products GROUP BY category"
NULLS = (
    "SELECT CASE WHEN region_id = 1 THEN NULL ELSE region_name END AS 地区, "
    "CASE WHEN region_id = 2 THEN NULL ELSE region_id * 1.5 END AS 值 "
    "FROM regions ORDER BY region_id"
)
BEYOND_FLOAT = (
    "SELECT region_name, region_id + 12345678901234567890.25 AS 大数 "
    "FROM regions ORDER BY region_id"
)


async def records_of(database: SQLDatabase, sql: str) -> dict:
    result = await database.run_query(sql, row_limit=1000, timeout=10)
    return result.as_records()


def exact(value: object) -> float | None:
    """Return the number a JSON number or decimal string stands for, as the chart draws it."""
    return None if value is None else float(Decimal(str(value)))


async def test_one_text_column_and_measures_make_a_bar_per_measure(sample_database):
    records = await records_of(sample_database, SALES_BY_REGION)
    chart = build_chart(records)

    assert chart is not None
    assert chart["xAxis"]["data"] == [row["地区"] for row in records["rows"]]
    assert len(chart["xAxis"]["data"]) == 7
    assert [s["type"] for s in chart["series"]] == ["bar", "bar"]
    assert [s["name"] for s in chart["series"]] == ["销售额", "订单数"]
    assert chart["series"][0]["data"] == [exact(row["销售额"]) for row in records["rows"]]
    assert all(isinstance(value, float) for value in chart["series"][0]["data"])


async def test_dates_make_a_line_sorted_by_date(sample_database):
    records = await records_of(sample_database, SALES_BY_DAY)
    chart = build_chart(records)

    assert chart is not None and chart["series"][0]["type"] == "line"
    days = chart["xAxis"]["data"]
    assert days == sorted(row["日期"] for row in records["rows"])
    assert days[0] == "2024-01-01" and len(days) == 14
    by_day = {row["日期"]: exact(row["销售额"]) for row in records["rows"]}
    assert chart["series"][0]["data"] == [by_day[day] for day in days]


async def test_months_make_a_line_even_when_the_result_is_sorted_by_value(sample_database):
    records = await records_of(sample_database, SALES_BY_MONTH)
    chart = build_chart(records)

    assert chart is not None and chart["series"][0]["type"] == "line"
    assert chart["xAxis"]["data"][:2] == ["2024-01", "2024-02"]
    assert chart["xAxis"]["data"][-1] == "2025-06" and len(chart["xAxis"]["data"]) == 18


async def test_a_share_question_over_few_categories_gets_a_pie(sample_database):
    records = await records_of(sample_database, PRODUCTS_BY_CATEGORY)

    pie = build_chart(records, share_hint=True)
    bar = build_chart(records)

    assert pie is not None and pie["series"][0]["type"] == "pie"
    slices = pie["series"][0]["data"]
    assert {s["name"] for s in slices} == {
        "家用电器",
        "数码产品",
        "食品饮料",
        "服装鞋帽",
        "日用百货",
        "图书文具",
    }
    assert sum(s["value"] for s in slices) == sum(row["商品数"] for row in records["rows"])
    assert bar is not None and bar["series"][0]["type"] == "bar"


async def test_nulls_become_a_null_label_and_a_gap(sample_database):
    records = await records_of(sample_database, NULLS)
    chart = build_chart(records)

    assert chart is not None
    assert chart["xAxis"]["data"][0] == "NULL"
    assert chart["series"][0]["data"][1] is None
    assert chart["series"][0]["data"][2] == 4.5  # region 3: 3 * 1.5, a decimal on PostgreSQL


async def test_decimals_beyond_a_float_still_chart(sample_database):
    records = await records_of(sample_database, BEYOND_FLOAT)
    chart = build_chart(records)

    assert chart is not None
    assert chart["series"][0]["data"] == [exact(row["大数"]) for row in records["rows"]]
    assert chart["series"][0]["data"][0] == pytest.approx(12345678901234567891.25)


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param("SELECT COUNT(*) AS 订单数 FROM orders", id="one scalar"),
        pytest.param("SELECT region_name, region_name AS 名 FROM regions", id="only text"),
        pytest.param(
            "SELECT store_name, city, COUNT(*) AS n FROM stores GROUP BY store_name, city",
            id="two text columns",
        ),
        pytest.param(
            "SELECT customer_name, customer_id * 2 AS score FROM customers "
            "ORDER BY customer_id LIMIT 60",
            id="too many categories for a bar",
        ),
        pytest.param("SELECT store_id, region_id FROM stores", id="only identifiers"),
        pytest.param(
            "SELECT region_name, COUNT(*) AS n FROM regions WHERE region_id = 1 "
            "GROUP BY region_name",
            id="one row",
        ),
    ],
)
async def test_results_that_fit_no_chart_get_none(sample_database, sql):
    assert build_chart(await records_of(sample_database, sql)) is None


def test_no_records_get_no_chart():
    assert build_chart(None) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("各品类销售额占比", True),
        ("各地区的比例是多少", True),
        ("What share of sales is each region?", True),
        ("Sales PERCENTAGE per store", True),
        ("每个地区的销售额是多少", False),
    ],
)
def test_share_questions_are_recognised_by_their_words(question, expected):
    assert asks_for_share(question) is expected
