"""The MySQL/MariaDB backend on the real server: read-only, typed, timed, cancellable."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid

import pytest

from react_agent.databases.base import QueryFailed
from react_agent.databases.mysql.connection import write_privileges
from react_agent.databases.mysql.engine import MySQLDatabase
from tests.support.mysql import run_statements, with_database

BIG = 9007199254740993  # 2**53 + 1: a float would round it
# Ten million rows, each hashed: the sequence engine makes them without a table.
RUNAWAY_SCAN = (
    "SELECT count(*) AS n FROM seq_1_to_10000000 a, seq_1_to_1000 b "
    "WHERE MD5(a.seq + b.seq) LIKE 'abc%'"
)
"""Ten billion hashed rows: hours of work, so a scan that ends was stopped."""
HANG_GUARD = 30.0
"""Seconds after which a query that should have been stopped counts as hung; not a measure."""


@pytest.fixture
async def sample(mysql_sample_url: str):
    database = await MySQLDatabase.open(mysql_sample_url, max_size=4)
    yield database
    await database.aclose()


async def test_tables_columns_comments_and_counts_come_from_the_server(sample):
    assert await sample.list_tables() == [
        "customers",
        "order_items",
        "orders",
        "products",
        "regions",
        "stores",
    ]
    (orders, regions) = await sample.describe_tables(["orders", "regions", "nope"])
    assert orders.row_count == 4000 and regions.row_count == 7
    assert regions.comment == "Sales regions of mainland China (大区)"
    assert dict(regions.columns)["region_name"] == "varchar(191) COMMENT 'Region name, e.g. 华东'"
    assert [name for name, _ in orders.columns][:2] == ["order_id", "customer_id"]


async def test_a_limited_result_keeps_its_order_and_counts_every_row(sample):
    result = await sample.run_query(
        "SELECT order_id FROM orders ORDER BY order_id DESC", row_limit=3, timeout=5
    )
    assert result.rows == [{"order_id": 4000}, {"order_id": 3999}, {"order_id": 3998}]
    assert result.is_limited and result.total_row_count == 4000
    small = await sample.run_query("SELECT count(*) AS n FROM regions", row_limit=3, timeout=5)
    assert small.rows == [{"n": 7}] and not small.is_limited


async def test_the_engine_refuses_writes_without_the_guard(sample, mysql_sample_url):
    for statement in (
        "INSERT INTO regions VALUES (99, 'x')",
        "UPDATE orders SET total_amount = 0",
        "DELETE FROM order_items",
    ):
        with pytest.raises(QueryFailed, match="READ ONLY transaction"):
            await sample.run_query(statement, row_limit=5, timeout=5)
    [[(regions,)], [(items,)]] = await run_statements(
        mysql_sample_url, "SELECT count(*) FROM regions", "SELECT count(*) FROM order_items"
    )
    assert (regions, items) == (7, 9134)


async def test_values_of_every_type_come_back_as_json(mysql_database):
    await run_statements(
        mysql_database,
        "SET SESSION sql_mode = ''",  # lets the zero dates in
        "CREATE TABLE t (big BIGINT, dec_ DECIMAL(30,10), money DECIMAL(12,2), "
        "moment DATETIME(6), day DATE, zero_day DATE, zero_moment DATETIME, span TIME, "
        "flags BIT(10), doc JSON, bin BLOB, txt VARCHAR(50) CHARACTER SET utf8mb4, "
        "missing INT)",
        f"INSERT INTO t VALUES ({BIG}, 12345678901234567890.0123456789, 19.99, "
        "'2024-02-29 23:59:59.123456', '2024-02-29', '0000-00-00', "
        "'0000-00-00 00:00:00', '-01:02:03', b'1000000001', '{\"a\": [1, 2]}', "
        "X'00FF10', '销售额 🙂 \"q\"', NULL)",
    )
    database = await MySQLDatabase.open(mysql_database, max_size=2)
    try:
        result = await database.run_query("SELECT * FROM t", row_limit=5, timeout=5)
    finally:
        await database.aclose()
    row = json.loads(json.dumps(result.as_records(), allow_nan=False))["rows"][0]
    assert row["big"] == BIG
    assert row["dec_"] == "12345678901234567890.0123456789"  # a float would lose digits
    assert row["money"] == 19.99
    assert row["moment"] == "2024-02-29T23:59:59.123456" and row["day"] == "2024-02-29"
    assert row["zero_day"] == "0000-00-00" and row["zero_moment"] == "0000-00-00 00:00:00"
    assert row["span"] == "-1 day, 22:57:57"  # -01:02:03 as Python spells a negative span
    assert row["flags"] == 513
    # MariaDB's JSON is text with a check; MySQL's own type comes back parsed.
    assert row["doc"] in ({"a": [1, 2]}, '{"a": [1, 2]}')
    assert row["bin"] == "AP8Q"
    assert row["txt"] == '销售额 🙂 "q"'
    assert row["missing"] is None


async def test_a_runaway_scan_stops_at_the_time_limit(sample):
    async with asyncio.timeout(HANG_GUARD):
        with pytest.raises(QueryFailed) as failed:
            await sample.run_query(RUNAWAY_SCAN, row_limit=5, timeout=0.5)
    assert str(failed.value) == "query stopped: it ran longer than the 0.5 s statement timeout"
    # The time limit was the session's for that query only: the next one runs normally.
    result = await sample.run_query("SELECT count(*) AS n FROM orders", row_limit=5, timeout=5)
    assert result.rows == [{"n": 4000}]


async def test_a_cancelled_query_is_killed_on_the_server(sample, mysql_sample_url):
    marker = f"cancel_{uuid.uuid4().hex[:8]}"
    # A billion hashed rows: many minutes of work, so gone before the guard means killed.
    sql = (
        f"SELECT count(*) AS {marker} FROM seq_1_to_100000 a, seq_1_to_10000 b "
        "WHERE MD5(a.seq + b.seq) LIKE 'abc%'"
    )
    running: list[tuple[object, ...]] = []

    async def poll() -> None:
        [rows] = await run_statements(
            mysql_sample_url,
            "SELECT id, info FROM information_schema.processlist "
            f"WHERE info LIKE '%{marker}%' AND info NOT LIKE '%processlist%'",
        )
        running[:] = rows

    task = asyncio.create_task(sample.run_query(sql, row_limit=5, timeout=60))
    deadline = time.monotonic() + 10
    while not running and time.monotonic() < deadline:
        await poll()
    assert running, "the query never showed in the process list"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    cancelled_at = time.monotonic()
    while running and time.monotonic() < cancelled_at + HANG_GUARD:
        await poll()
    assert not running, f"still running on the server: {running}"
    result = await sample.run_query("SELECT count(*) AS n FROM regions", row_limit=5, timeout=5)
    assert result.rows == [{"n": 7}]


async def test_an_export_stream_reads_every_row_in_batches(sample):
    async with sample.open_row_stream(
        "SELECT order_item_id FROM order_items ORDER BY order_item_id", max_rows=2500, timeout=5
    ) as stream:
        sizes = [len(batch) async for batch in stream.batches]
    assert stream.columns == ["order_item_id"]
    assert sizes == [1000, 1000, 500]


async def test_explain_checks_names_without_running(sample):
    await sample.explain("SELECT * FROM orders", timeout=5)
    with pytest.raises(QueryFailed, match="doesn't exist"):
        await sample.explain("SELECT * FROM nope", timeout=5)


async def test_an_account_that_may_write_is_reported_at_start(
    mysql_sample_url, caplog: pytest.LogCaptureFixture
):
    user = f"ro_{uuid.uuid4().hex[:8]}"
    database_name = mysql_sample_url.rsplit("/", 1)[1]
    await run_statements(
        mysql_sample_url,
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT SELECT ON `{database_name}`.* TO '{user}'@'%'",
    )
    try:
        with caplog.at_level(logging.WARNING, "react_agent.databases.mysql.connection"):
            root = await MySQLDatabase.open(mysql_sample_url, max_size=1)
            await root.aclose()
            assert "holds privileges beyond reading (ALL PRIVILEGES" in caplog.text
            caplog.clear()
            read_only_url = with_database(
                mysql_sample_url.replace("root@", f"{user}:pw@"), database_name
            )
            reader = await MySQLDatabase.open(read_only_url, max_size=1)
            result = await reader.run_query(
                "SELECT count(*) AS n FROM regions", row_limit=2, timeout=5
            )
            await reader.aclose()
        assert caplog.text == "" and result.rows == [{"n": 7}]
    finally:
        await run_statements(mysql_sample_url, f"DROP USER '{user}'@'%'")


def test_write_privileges_are_read_from_grant_lines():
    assert (
        write_privileges(
            ["GRANT USAGE ON *.* TO `r`@`%`", "GRANT SELECT, SHOW VIEW ON `d`.* TO `r`@`%`"]
        )
        == []
    )
    assert write_privileges(
        [
            "GRANT SELECT (a, b), INSERT (c), UPDATE ON `d`.`t` TO `w`@`%`",
            "GRANT `role1` TO `w`@`%`",
        ]
    ) == ["INSERT", "UPDATE"]


async def test_an_unreachable_server_opens_and_answers_503_until_it_is_back(mysql_server_url):
    from react_agent.errors import ServiceError

    database = await MySQLDatabase.open("mysql://root@127.0.0.1:1/test", connect_timeout=1)
    try:
        with pytest.raises(ServiceError) as failed:
            await database.ping(timeout=2)
        with pytest.raises(ServiceError):
            await database.run_query("SELECT 1", row_limit=1, timeout=2)
    finally:
        await database.aclose()
    assert failed.value.status == 503 and failed.value.error_type == "DATABASE_UNAVAILABLE"
