"""The ClickHouse engine on chdb (embedded ClickHouse 26): values, read-only, limits, cancels.

chdb stands in for a server: the engine class, its settings, its KILL QUERY and its
catalogue queries are the ones a `clickhouse://` server gets; only the transport differs
(clickhouse-connect's chdb backend instead of HTTP). What HTTP alone does is tested at the
end against a port nothing listens on (docs/databases.md says what was tested where).
"""

from __future__ import annotations

import asyncio
import socket
import sys
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from langchain_core.messages import ToolMessage

from react_agent.databases.base import QueryFailed
from react_agent.databases.clickhouse.connection import target_from_url
from react_agent.databases.open import open_database
from react_agent.databases.urls import database_kind
from react_agent.errors import ConfigurationError, ServiceError
from react_agent.results.exports import csv_lines
from react_agent.service import open_agent_service
from tests.support.clickhouse import chdb_url, run_admin, sample_database
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool
from tests.support.waiting import eventually

RUNAWAY = "SELECT count() FROM numbers(100000000000) WHERE cityHash64(number) % 7 = 3"
TYPED = """CREATE TABLE `{db}`.typed (
    id UInt32 COMMENT 'row number',
    amount Decimal(38, 10) COMMENT '金额',
    at DateTime64(3, 'Asia/Shanghai'),
    status LowCardinality(String),
    maybe Nullable(Int32),
    tags Array(String),
    prices Array(Nullable(Decimal(9, 2))),
    attrs Map(String, UInt8),
    uid UUID,
    ip IPv4,
    kind Enum8('a' = 1, 'b' = 2),
    big UInt64,
    huge Int128,
    day Date,
    flag Bool
) ENGINE = MergeTree ORDER BY id COMMENT 'values of every kind'"""
ROWS = (
    "INSERT INTO `{db}`.typed VALUES "
    "(1, 12345678901234567890.0123456789, '2024-02-29 23:59:59.123', 'paid', NULL, "
    "['a', 'b,c'], [1.10, NULL], {{'k': 1}}, '61f0c404-5cb3-11e7-907b-a6006ad3dba0', "
    "'10.0.0.1', 'b', 18446744073709551615, -170141183460469231731687303715884105728, "
    "'2024-01-02', true), "
    "(2, 0.5, '1970-01-01 08:00:00.000', '=SUM(A1)', 7, [], [], {{}}, "
    "'00000000-0000-0000-0000-000000000000', '0.0.0.0', 'a', 0, 0, '1970-01-01', false)"
)


@pytest.fixture(scope="module")
def typed_url() -> Iterator[str]:
    """Give a chdb database holding a table with ClickHouse's own types."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    run_admin(f"CREATE DATABASE `{name}`", TYPED.format(db=name), ROWS.format(db=name))
    try:
        yield chdb_url(name)
    finally:
        run_admin(f"DROP DATABASE IF EXISTS `{name}`")


@pytest.fixture
async def database(typed_url: str) -> AsyncIterator:
    opened = await open_database(typed_url)
    try:
        yield opened
    finally:
        await opened.aclose()


def running(marker: str = "cityHash64") -> list[tuple]:
    """Return the queries chdb is running whose text holds `marker`."""
    [rows] = run_admin(
        "SELECT query_id FROM system.processes WHERE query LIKE '%" + marker + "%' "
        "AND query NOT LIKE '%system.processes%'"
    )
    return rows


async def test_clickhouse_types_reach_results_intact(database):
    result = await database.run_query("SELECT * FROM typed ORDER BY id", row_limit=10, timeout=10)
    first, second = result.rows
    assert database.dialect == "clickhouse" and result.total_row_count == 2
    assert first == {
        "id": 1,
        "amount": "12345678901234567890.0123456789",  # no float holds it: kept as text
        "at": "2024-02-29T23:59:59.123000+08:00",
        "status": "paid",
        "maybe": None,
        "tags": ["a", "b,c"],
        "prices": [1.1, None],
        "attrs": {"k": 1},
        "uid": "61f0c404-5cb3-11e7-907b-a6006ad3dba0",
        "ip": "10.0.0.1",
        "kind": "b",
        "big": 18446744073709551615,
        "huge": -170141183460469231731687303715884105728,
        "day": "2024-01-02",
        "flag": True,
    }
    assert second["amount"] == 0.5 and second["maybe"] == 7 and second["tags"] == []


async def test_clickhouse_types_reach_exports_intact(database):
    async with database.open_row_stream(
        "SELECT id, amount, at, status, maybe, tags, prices, kind, flag FROM typed ORDER BY id",
        max_rows=100,
        timeout=10,
    ) as stream:
        batches = [batch async for batch in stream.batches]
    assert stream.columns[:3] == ["id", "amount", "at"]
    text = csv_lines([row for batch in batches for row in batch])
    assert text.splitlines() == [
        "1,12345678901234567890.0123456789,2024-02-29T23:59:59.123000+08:00,paid,,"
        '"[""a"", ""b,c""]","[1.1, null]",b,true',
        "2,0.5000000000,1970-01-01T08:00:00+08:00,'=SUM(A1),7,[],[],a,false",
    ]


async def test_a_limited_result_is_counted_and_cut(database):
    result = await database.run_query("SELECT number FROM numbers(250000)", row_limit=5, timeout=10)
    assert result.is_limited and result.total_row_count == 250000
    assert [row["number"] for row in result.rows] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO typed (id) VALUES (3)",
        "CREATE TABLE pwned (a Int8) ENGINE = Memory",
        "DROP TABLE typed",
        "ALTER TABLE typed DELETE WHERE 1",
        "TRUNCATE TABLE typed",
        "SELECT 1 SETTINGS readonly = 0",
        "SET readonly = 0",
    ],
)
async def test_the_engine_alone_refuses_writes(database, sql: str):
    # No guard here: the session's readonly=2 is the second wall.
    with pytest.raises(QueryFailed, match=r"readonly|READONLY"):
        await database.run_query(sql, row_limit=10, timeout=10)
    count = await database.run_query("SELECT count() AS n FROM typed", row_limit=1, timeout=10)
    assert count.rows == [{"n": 2}]


async def test_a_query_past_its_time_limit_is_stopped_by_the_server(database):
    with pytest.raises(QueryFailed) as failed:
        await database.run_query(RUNAWAY, row_limit=1, timeout=0.5)
    assert str(failed.value) == "query stopped: it ran longer than the 0.5 s statement timeout"
    assert running() == []


async def test_a_cancelled_question_kills_its_query_on_the_server(database):
    task = asyncio.create_task(database.run_query(RUNAWAY, row_limit=1, timeout=60))
    assert await eventually(lambda: len(running()) == 1, timeout=30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert running() == []  # KILL QUERY … SYNC returned: it is gone
    # The engine still answers (the killed query's client is not lent again).
    result = await database.run_query("SELECT 1 AS one", row_limit=1, timeout=10)
    assert result.rows == [{"one": 1}]


async def test_an_export_left_early_kills_its_query(database):
    async with database.open_row_stream(
        "SELECT number FROM numbers(100000000000)", max_rows=10**12, timeout=10
    ) as stream:
        first = await anext(stream.batches)
        assert first[0] == (0,) or first[0] == [0]
    assert await eventually(lambda: running("numbers(100000000000)") == [], timeout=30)


async def test_the_catalogue_has_comments_types_and_values(database):
    assert await database.list_tables() == ["typed"]
    [info] = await database.describe_tables(["typed", "missing"])
    assert info.comment == "values of every kind" and info.row_count == 2
    assert ("amount", "Decimal(38, 10) COMMENT '金额'") in info.columns
    catalog = await database.introspect()
    [table] = catalog.tables
    assert catalog.dialect == "clickhouse" and table.row_estimate == 2
    assert table.column("id").comment == "row number"
    assert table.column("status").type == "LowCardinality(String)"
    assert table.column("status").values == ("=SUM(A1)", "paid")
    assert table.column("kind").values == ("a", "b")
    assert table.column("maybe").nullable and not table.column("id").nullable


def test_clickhouse_urls_name_the_server_or_the_embedded_engine():
    server = target_from_url("clickhouse://reader:p%40ss@db.example:8123/sales", connect_timeout=3)
    assert server.options["host"] == "db.example" and server.options["password"] == "p@ss"
    assert server.options["database"] == "sales" and not server.options["secure"]
    assert "p@ss" not in server.shown and server.shown == "http://reader@db.example:8123/sales"
    assert target_from_url("clickhouse+https://h/x", connect_timeout=3).options["port"] == 8443
    assert target_from_url("clickhouse://h:8443/x", connect_timeout=3).options["secure"]
    assert target_from_url("clickhouse://h/x?secure=true", connect_timeout=3).options["secure"]
    embedded = target_from_url("chdb:///var/data/ch?database=sales", connect_timeout=3)
    assert embedded.embedded and embedded.options == {
        "dsn": "chdb:///var/data/ch",
        "database": "sales",
    }
    assert database_kind("clickhouse://h/x") == database_kind("chdb:///x") == "clickhouse"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_an_unreachable_server_opens_and_answers_503_until_it_is_back():
    # The HTTP transport for real (clickhouse-connect's client), against a port nobody serves.
    url = f"clickhouse://default@127.0.0.1:{_closed_port()}/default"
    database = await open_database(url, connect_timeout=1)
    try:
        with pytest.raises(ServiceError) as failed:
            await database.run_query("SELECT 1", row_limit=1, timeout=2)
        assert failed.value.status == 503 and failed.value.error_type == "DATABASE_UNAVAILABLE"
        assert "ClickHouse data database http://default@127.0.0.1:" in failed.value.detail
        with pytest.raises(ServiceError):
            await database.ping()
    finally:
        await database.aclose()


async def test_a_missing_driver_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch):
    for module in ("engine", "connection", "catalog"):
        monkeypatch.delitem(sys.modules, f"react_agent.databases.clickhouse.{module}", False)
    monkeypatch.setitem(sys.modules, "clickhouse_connect", None)  # import fails, as uninstalled
    with pytest.raises(ConfigurationError) as failed:
        await open_database("clickhouse://h:8123/db")
    assert failed.value.detail == (
        "DATA_DATABASE_URL: ClickHouse needs the clickhouse extra (clickhouse_connect is not "
        'installed): pip install ".[clickhouse]"'
    )


async def test_the_agent_asks_clickhouse_with_every_sql_tool(settings):
    # The service on a chdb URL: tables listed and described, a query checked and run.
    model = ScriptedChatModel()
    with sample_database() as url:
        overrides = {"data_database_url": url, "sql_timeout": 10}
        async with open_agent_service(settings.model_copy(update=overrides), model=model) as svc:
            assert svc.runner is not None, svc.problems
            assert svc.database is not None and svc.database.dialect == "clickhouse"
            sql = "SELECT status, count() AS n FROM orders GROUP BY status ORDER BY n DESC"
            model.replies = [
                call_tool("list_tables"),
                call_tool("describe_tables", table_names=["orders"]),
                call_tool("check_sql", sql=sql),
                call_tool("run_sql", sql=sql),
                answer("done"),
            ]
            result = await svc.runner.ask("orders by status?", "clickhouse:1")
    texts = [m for m in model.seen[-1] if isinstance(m, ToolMessage)]
    assert "orders (" in texts[0].content and "customers (" in texts[0].content
    assert "total_amount" in texts[1].content and "Float64" in texts[1].content
    assert texts[2].status != "error", texts[2].content
    rows = texts[3].artifact["records"]["rows"]
    assert sum(row["n"] for row in rows) == 4000 and result.sql == sql
    assert database_kind(url) == "clickhouse"


async def test_a_row_failing_mid_export_is_a_redacted_query_failure(database):
    # No guard here (it refuses throwIf): the engine's own translation of a late error.
    async with database.open_row_stream(
        "SELECT throwIf(number = 150000, 'secret 12345') AS x FROM numbers(300000)",
        max_rows=10**6,
        timeout=10,
    ) as stream:
        with pytest.raises(QueryFailed) as failed:
            async for _ in stream.batches:
                pass
    assert "12345" not in str(failed.value) and "FUNCTION_THROW_IF_VALUE_IS_NON_ZERO" in str(
        failed.value
    )
