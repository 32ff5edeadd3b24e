"""Streaming reads for exports: batches, the row cap, per-batch timeouts, released connections."""

from __future__ import annotations

import pytest

from react_agent.databases.base import QueryFailed, SQLDatabase
from react_agent.databases.postgres.engine import PostgresDatabase
from react_agent.databases.row_streams import STREAM_BATCH_ROWS
from react_agent.sample_data.load_postgres import load_into_postgres

ORDERS = "SELECT order_id, order_date, total_amount FROM orders ORDER BY order_id"
RUNAWAY = {
    "sqlite": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
    "SELECT count(*) FROM c",
    "postgres": "SELECT pg_sleep(5)",
}


async def read_all(database: SQLDatabase, sql: str, **options: float) -> tuple[list, list[int]]:
    rows: list = []
    sizes: list[int] = []
    async with database.open_row_stream(sql, **options) as stream:
        async for batch in stream.batches:
            sizes.append(len(batch))
            rows.extend(batch)
    return rows, sizes


async def test_every_row_comes_in_batches_as_run_query_sees_them(sample_database):
    rows, sizes = await read_all(sample_database, ORDERS, max_rows=100_000, timeout=10)
    expected = await sample_database.run_query(ORDERS, row_limit=10_000, timeout=10)

    assert len(rows) == 4000 == expected.total_row_count
    assert sizes == [STREAM_BATCH_ROWS] * 4
    assert [row[0] for row in rows] == [row["order_id"] for row in expected.rows]


async def test_the_row_cap_stops_reading(sample_database):
    rows, sizes = await read_all(sample_database, ORDERS, max_rows=1500, timeout=10)
    assert len(rows) == 1500 and sizes == [1000, 500]
    async with sample_database.open_row_stream(ORDERS, max_rows=5, timeout=10) as stream:
        assert stream.columns == ["order_id", "order_date", "total_amount"]


async def test_a_batch_that_runs_too_long_is_stopped(sample_database):
    with pytest.raises(QueryFailed, match="statement timeout"):
        await read_all(sample_database, RUNAWAY[sample_database.dialect], max_rows=10, timeout=0.3)


async def test_the_query_connection_keeps_its_guards(sample_database):
    forbidden = {
        "sqlite": "SELECT * FROM sqlite_master",
        "postgres": "WITH gone AS (DELETE FROM regions RETURNING *) SELECT * FROM gone",
    }
    with pytest.raises(QueryFailed):
        await read_all(sample_database, forbidden[sample_database.dialect], max_rows=10, timeout=5)
    regions = await sample_database.run_query("SELECT * FROM regions", row_limit=50, timeout=5)
    assert regions.total_row_count == 7


async def test_leaving_a_stream_early_gives_its_connection_back(postgres_database):
    load_into_postgres(postgres_database)
    database = await PostgresDatabase.open(
        postgres_database, min_size=1, max_size=2, connect_timeout=3
    )
    try:
        for _ in range(4):  # more than the pool holds: a kept connection would time out
            async with database.open_row_stream(ORDERS, max_rows=4000, timeout=10) as stream:
                first = await anext(stream.batches)
                assert len(first) == STREAM_BATCH_ROWS
        result = await database.run_query("SELECT 1 AS one", row_limit=1, timeout=5)
    finally:
        await database.aclose()
    assert result.rows == [{"one": 1}]
