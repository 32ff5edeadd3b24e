"""The PostgreSQL data database: read-only queries, limits, timeouts, cancellation, outages."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import psycopg
import pytest

from config import Settings
from react_agent.databases.base import QueryFailed
from react_agent.databases.postgres.engine import PostgresDatabase
from react_agent.errors import ServiceError
from react_agent.sample_data.load_postgres import load_into_postgres
from react_agent.service import open_agent_service
from tests.support.postgres import unreachable_postgres_url
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool, prompt_text

REGION_SALES_SQL = (
    "SELECT r.region_name AS region, ROUND(SUM(o.total_amount), 2) AS sales "
    "FROM orders o JOIN stores s ON s.store_id = o.store_id "
    "JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name ORDER BY sales DESC"
)


@pytest.fixture
def sales_url(postgres_database: str) -> str:
    """Return the URL of a fresh database holding the sample sales data."""
    load_into_postgres(postgres_database)
    return postgres_database


@pytest.fixture
async def database(sales_url: str) -> AsyncIterator[PostgresDatabase]:
    database = await PostgresDatabase.open(sales_url, connect_timeout=5)
    try:
        yield database
    finally:
        await database.aclose()


def scalar(url: str, sql: str) -> object:
    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute(sql).fetchone()
        assert row is not None
        return row[0]


async def test_list_tables_names_tables_and_views_on_the_search_path_only(sales_url, database):
    with psycopg.connect(sales_url, autocommit=True) as connection:
        connection.execute("CREATE VIEW region_names AS SELECT region_name FROM regions")
        connection.execute("CREATE SCHEMA hidden")
        connection.execute("CREATE TABLE hidden.secrets (code text)")

    tables = await database.list_tables()

    assert tables == [
        "customers",
        "order_items",
        "orders",
        "products",
        "region_names",
        "regions",
        "stores",
    ]


async def test_describe_tables_gives_columns_and_exact_row_counts_in_the_order_asked(
    sales_url, database
):
    infos = await database.describe_tables(["regions", "no_such_table", "orders"])

    assert [info.name for info in infos] == ["regions", "orders"]
    regions, orders = infos
    assert regions.columns[:2] == [("region_id", "integer"), ("region_name", "text")]
    assert ("total_amount", "numeric(12,2)") in orders.columns
    assert orders.row_count == scalar(sales_url, "SELECT count(*) FROM orders")


async def test_run_query_returns_the_rows_with_json_values(database):
    result = await database.run_query(REGION_SALES_SQL, row_limit=100, timeout=5)

    assert result.columns == ["region", "sales"]
    assert len(result.rows) == 7 and result.total_row_count == 7
    assert result.is_limited is False
    assert all(isinstance(row["sales"], float) for row in result.rows)
    sales = [row["sales"] for row in result.rows]
    assert sales == sorted(sales, reverse=True)


async def test_a_result_without_rows_keeps_its_columns_made_unique(database):
    result = await database.run_query(
        "SELECT region_id AS id, store_id AS id FROM stores WHERE false", row_limit=10, timeout=5
    )

    assert result.columns == ["id", "id_2"]
    assert result.rows == [] and result.total_row_count == 0


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO regions (region_id, region_name) VALUES (99, 'nowhere')",
        "CREATE TABLE scratch (x integer)",
        "WITH renamed AS (UPDATE regions SET region_name = 'x' RETURNING *) SELECT * FROM renamed",
    ],
)
async def test_writes_are_refused_by_the_read_only_transaction(sales_url, database, statement):
    with pytest.raises(QueryFailed, match="read-only transaction"):
        await database.run_query(statement, row_limit=10, timeout=5)

    assert scalar(sales_url, "SELECT count(*) FROM regions WHERE region_name = 'x'") == 0
    assert scalar(sales_url, "SELECT to_regclass('scratch') IS NULL") is True


async def test_a_second_statement_cannot_ride_along_to_escape_the_transaction(sales_url, database):
    with pytest.raises(QueryFailed, match="multiple commands"):
        await database.run_query("SELECT 1; COMMIT; DELETE FROM regions", row_limit=10, timeout=5)

    assert scalar(sales_url, "SELECT count(*) FROM regions") == 7


async def test_session_settings_a_query_changes_do_not_reach_the_next_query(database):
    await database.run_query(
        "SELECT set_config('search_path', 'pg_catalog', false)", row_limit=1, timeout=5
    )

    result = await database.run_query(
        "SELECT current_setting('search_path') AS path", row_limit=1, timeout=5
    )
    assert "public" in result.rows[0]["path"]


async def test_statement_timeout_stops_a_long_query_with_a_clear_message(database):
    # A sleep far beyond the hang guard: ending at all is the statement timeout's doing.
    async with asyncio.timeout(30):
        with pytest.raises(QueryFailed) as stopped:
            await database.run_query("SELECT pg_sleep(600)", row_limit=10, timeout=0.5)

    assert str(stopped.value) == "query stopped: it ran longer than the 0.5 s statement timeout"


async def test_row_cap_marks_the_result_limited_and_counts_the_true_total(sales_url, database):
    result = await database.run_query(
        "SELECT order_id FROM orders ORDER BY order_id", row_limit=10, timeout=5
    )

    assert result.is_limited is True
    assert [row["order_id"] for row in result.rows] == list(range(1, 11))
    assert result.total_row_count == scalar(sales_url, "SELECT count(*) FROM orders")


async def test_cancelling_run_query_stops_the_query_on_the_server(sales_url, database):
    query = "SELECT pg_sleep(30) AS cancelled_by_the_test"
    task = asyncio.create_task(database.run_query(query, row_limit=1, timeout=60))
    active_sql = (
        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
        "AND query LIKE '%cancelled_by_the_test%' AND pid <> pg_backend_pid()"
    )
    deadline = time.monotonic() + 10
    while scalar(sales_url, active_sql) == 0:
        assert time.monotonic() < deadline, "the query never started"
        await asyncio.sleep(0.05)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    # run_query returns only after the server has stopped the query: no waiting here.
    assert scalar(sales_url, active_sql) == 0


async def test_explain_accepts_a_valid_query_and_reports_a_wrong_column(database):
    await database.explain("SELECT order_id FROM orders", timeout=5)

    with pytest.raises(QueryFailed, match='column "nope" does not exist'):
        await database.explain("SELECT nope FROM orders", timeout=5)


async def test_an_unreachable_server_is_a_503_with_the_reason_not_a_query_failure():
    database = await PostgresDatabase.open(unreachable_postgres_url(), connect_timeout=1)
    try:
        with pytest.raises(ServiceError) as failed:
            await database.run_query("SELECT 1", row_limit=1, timeout=1)
        assert failed.value.status == 503 and failed.value.error_type == "DATABASE_UNAVAILABLE"
        assert failed.value.can_retry is True

        with pytest.raises(ServiceError) as pinged:
            await database.ping(timeout=2)
        assert pinged.value.error_type == "DATABASE_UNAVAILABLE"
        assert "refused" in pinged.value.detail.lower()
    finally:
        await database.aclose()


async def test_the_agent_answers_a_question_from_postgres_data(settings: Settings, sales_url):
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=REGION_SALES_SQL), answer("华东最高")]
    )
    postgres_settings = settings.model_copy(update={"data_database_url": sales_url})

    async with open_agent_service(postgres_settings, model=model) as service:
        assert service.problems == {}
        assert service.database.dialect == "postgres"
        assert "orders" in service.tables
        result = await service.runner.ask("每个地区的销售额是多少", "wang1:pg")

    assert result.answer == "华东最高"
    assert result.sql == REGION_SALES_SQL
    assert result.records["columns"] == ["region", "sales"]
    assert len(result.records["rows"]) == 7
    assert "orders" in prompt_text(model.seen[0])  # the prompt names the Postgres tables
