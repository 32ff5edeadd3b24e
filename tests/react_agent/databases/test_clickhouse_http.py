"""The ClickHouse engine over HTTP: clickhouse-connect's HTTP client, chdb behind a front.

tests/support/chdb_http.py answers ClickHouse's HTTP interface with this process's chdb
engine, applying each request's URL settings itself: what these tests show is what the
engine sends on the wire (settings, parameters, the query's marker) and that the answers
(Native blocks, errors with their code) are read as from a server. What only a server
does with them — `query_id`, its HTTP handler's own rules — is not shown here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from react_agent.databases.base import QueryFailed
from react_agent.databases.open import open_database
from tests.support.chdb_http import chdb_over_http
from tests.support.clickhouse import run_admin, sample_database
from tests.support.waiting import eventually

RUNAWAY = "SELECT count() FROM numbers(100000000000) WHERE cityHash64(number) % 7 = 3"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Give a `clickhouse://` URL of the sample behind the HTTP front, and its requests."""
    with sample_database() as url, chdb_over_http() as (port, requests):
        yield f"clickhouse://default@127.0.0.1:{port}/{url.rsplit('=', 1)[1]}", requests


@pytest.fixture
async def database(served) -> AsyncIterator:
    opened = await open_database(served[0], connect_timeout=5)
    try:
        yield opened
    finally:
        await opened.aclose()


def running() -> list[tuple]:
    [rows] = run_admin(
        "SELECT query_id FROM system.processes WHERE query LIKE '%cityHash64%' "
        "AND query NOT LIKE '%system.processes%'"
    )
    return rows


async def test_each_query_carries_its_settings_marker_and_parameters(database, served):
    _, requests = served
    result = await database.run_query(
        "SELECT region_name FROM regions WHERE region_id = {p: }",
        row_limit=10,
        timeout=7,
        params={"p": 1},
    )
    assert result.rows == [{"region_name": "华东"}]
    sent = next(r for r in reversed(requests) if "param_p" in r)
    assert sent["readonly"] == "2" and sent["max_execution_time"] == "7"
    assert sent["max_result_rows"] == "11" and sent["result_overflow_mode"] == "break"
    assert sent["query_id"] == sent["log_comment"] and sent["query_id"].startswith("sql-agent-")
    assert sent["param_p"] == "1" and sent["database"] == served[0].rsplit("/", 1)[1]


async def test_values_and_a_limited_count_come_over_http(database):
    result = await database.run_query(
        "SELECT order_id, total_amount, [store_id] AS s FROM orders ORDER BY order_id",
        row_limit=2,
        timeout=10,
    )
    assert result.is_limited and result.total_row_count == 4000
    assert result.rows[0]["order_id"] == 1 and isinstance(result.rows[0]["s"], list)


async def test_writes_are_refused_over_http(database):
    with pytest.raises(QueryFailed, match="READONLY"):
        await database.run_query("INSERT INTO regions VALUES (9, 'x')", row_limit=1, timeout=5)
    count = await database.run_query("SELECT count() AS n FROM regions", row_limit=1, timeout=5)
    assert count.rows == [{"n": 7}]


async def test_a_timeout_and_a_cancel_end_the_query_over_http(database):
    with pytest.raises(QueryFailed, match="statement timeout"):
        await database.run_query(RUNAWAY, row_limit=1, timeout=0.5)
    task = asyncio.create_task(database.run_query(RUNAWAY, row_limit=1, timeout=60))
    assert await eventually(lambda: len(running()) == 1, timeout=30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert running() == []


async def test_an_export_streams_over_http(database):
    async with database.open_row_stream(
        "SELECT order_item_id FROM order_items ORDER BY order_item_id", max_rows=9000, timeout=10
    ) as stream:
        rows = [row async for batch in stream.batches for row in batch]
    assert stream.columns == ["order_item_id"] and len(rows) == 9000
