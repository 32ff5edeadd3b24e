"""Tests for the embedded sample sales database, its build script and the PostgreSQL loader."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.sample_data.build import build_sqlite, content_digest, table_row_counts
from react_agent.sample_data.dataset import TABLES
from react_agent.sample_data.load_postgres import TablesExistError, load_into_postgres

# Completed sales per region, in integer cents so both databases compare exactly.
_SQLITE_REGION_CENTS = """
    SELECT r.region_name, SUM(CAST(ROUND(o.total_amount * 100) AS INTEGER))
    FROM orders o
    JOIN stores s ON s.store_id = o.store_id
    JOIN regions r ON r.region_id = s.region_id
    WHERE o.status = '已完成'
    GROUP BY r.region_name
"""
_POSTGRES_REGION_CENTS = """
    SELECT r.region_name, SUM(o.total_amount * 100)::bigint
    FROM orders o
    JOIN stores s ON s.store_id = o.store_id
    JOIN regions r ON r.region_id = s.region_id
    WHERE o.status = '已完成'
    GROUP BY r.region_name
"""


@pytest.fixture(scope="module")
def fresh_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sqlite(tmp_path_factory.mktemp("fresh") / "sales.db")


@pytest.fixture
def sample_db() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(f"{SAMPLE_DB_PATH.as_uri()}?mode=ro", uri=True)
    try:
        yield connection
    finally:
        connection.close()


def _schema_sql(path: Path) -> list[tuple[str, str]]:
    connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"
        ).fetchall()
    finally:
        connection.close()


def test_building_twice_gives_the_same_content(tmp_path: Path) -> None:
    first = build_sqlite(tmp_path / "first.db")
    second = build_sqlite(tmp_path / "second.db")

    assert content_digest(first) == content_digest(second)


def test_building_over_an_existing_file_replaces_it(tmp_path: Path) -> None:
    target = tmp_path / "sales.db"
    target.write_bytes(b"not a database")

    build_sqlite(target)

    assert table_row_counts(target)["orders"] > 0
    assert [path.name for path in tmp_path.iterdir()] == ["sales.db"]  # no temp files left


def test_the_committed_database_matches_a_fresh_build(fresh_build: Path) -> None:
    assert SAMPLE_DB_PATH.exists(), "run `python -m react_agent.sample_data.build`"
    assert content_digest(SAMPLE_DB_PATH) == content_digest(fresh_build)
    assert _schema_sql(SAMPLE_DB_PATH) == _schema_sql(fresh_build)


def test_the_committed_database_stays_small() -> None:
    assert SAMPLE_DB_PATH.stat().st_size < 2 * 1024 * 1024


def test_every_region_has_completed_sales(sample_db: sqlite3.Connection) -> None:
    sales = dict(sample_db.execute(_SQLITE_REGION_CENTS).fetchall())
    regions = [name for (name,) in sample_db.execute("SELECT region_name FROM regions")]

    assert sorted(regions) == sorted(["华东", "华南", "华北", "华中", "西南", "西北", "东北"])
    assert all(sales.get(region, 0) > 0 for region in regions), sales


def test_orders_span_at_least_twelve_months(sample_db: sqlite3.Connection) -> None:
    first, last, months = sample_db.execute(
        "SELECT MIN(order_date), MAX(order_date), COUNT(DISTINCT substr(order_date, 1, 7)) "
        "FROM orders"
    ).fetchone()

    assert (date.fromisoformat(last) - date.fromisoformat(first)).days >= 365
    assert months >= 12


def test_the_shopping_season_is_busier_than_an_average_month(
    sample_db: sqlite3.Connection,
) -> None:
    per_month = dict(
        sample_db.execute(
            "SELECT substr(order_date, 1, 7), COUNT(*) FROM orders GROUP BY 1"
        ).fetchall()
    )
    average = sum(per_month.values()) / len(per_month)

    assert per_month["2024-11"] > average
    assert per_month["2024-12"] > average


def test_each_order_total_equals_the_sum_of_its_lines(sample_db: sqlite3.Connection) -> None:
    line_sums: dict[int, Decimal] = {}
    for order_id, line_amount in sample_db.execute("SELECT order_id, line_amount FROM order_items"):
        # str() of a float holding a cent amount is its shortest repr, i.e. the exact cents.
        line_sums[order_id] = line_sums.get(order_id, Decimal(0)) + Decimal(str(line_amount))
    totals = {
        order_id: Decimal(str(total))
        for order_id, total in sample_db.execute("SELECT order_id, total_amount FROM orders")
    }

    assert totals == line_sums


def test_every_order_has_between_one_and_five_lines(sample_db: sqlite3.Connection) -> None:
    fewest, most, orders_without_lines = sample_db.execute(
        "SELECT MIN(n), MAX(n), (SELECT COUNT(*) FROM orders WHERE order_id NOT IN "
        "(SELECT order_id FROM order_items)) "
        "FROM (SELECT COUNT(*) AS n FROM order_items GROUP BY order_id)"
    ).fetchone()

    assert (fewest, most, orders_without_lines) == (1, 5, 0)


def test_orders_come_after_the_store_opened_and_the_customer_joined(
    sample_db: sqlite3.Connection,
) -> None:
    impossible = sample_db.execute(
        "SELECT COUNT(*) FROM orders o "
        "JOIN stores s ON s.store_id = o.store_id "
        "JOIN customers c ON c.customer_id = o.customer_id "
        "WHERE o.order_date < s.opened_on OR o.order_date < c.joined_on"
    ).fetchone()[0]

    assert impossible == 0


def test_loading_into_postgres_matches_sqlite_counts_and_region_sales(
    postgres_database: str, sample_db: sqlite3.Connection
) -> None:
    loaded = load_into_postgres(postgres_database)

    sqlite_counts = table_row_counts(SAMPLE_DB_PATH)
    sqlite_region_cents = dict(sample_db.execute(_SQLITE_REGION_CENTS).fetchall())
    with psycopg.connect(postgres_database) as connection:
        postgres_counts = {
            table.name: connection.execute(f"SELECT COUNT(*) FROM {table.name}").fetchone()[0]
            for table in TABLES
        }
        postgres_region_cents = dict(connection.execute(_POSTGRES_REGION_CENTS).fetchall())

    assert loaded == sqlite_counts
    assert postgres_counts == sqlite_counts
    assert postgres_region_cents == sqlite_region_cents


def test_loading_refuses_to_overwrite_tables_unless_told_to_replace(
    postgres_database: str,
) -> None:
    load_into_postgres(postgres_database, schema="sales")
    with psycopg.connect(postgres_database) as connection:
        connection.execute("DELETE FROM sales.order_items WHERE order_item_id = 1")

    with pytest.raises(TablesExistError):
        load_into_postgres(postgres_database, schema="sales")
    counts = load_into_postgres(postgres_database, schema="sales", replace=True)

    with psycopg.connect(postgres_database) as connection:
        reloaded = connection.execute("SELECT COUNT(*) FROM sales.order_items").fetchone()[0]
        in_public = connection.execute("SELECT to_regclass('public.orders')").fetchone()[0]
    assert reloaded == counts["order_items"]
    assert in_public is None
