"""Every engine that runs here, native and generic, keeps the one protocol the same way.

The same sample on SQLite, PostgreSQL, MariaDB and a DuckDB file, each opened by its
native engine and by the generic SQLAlchemy one (DATA_ENGINE=generic): tables, limits,
writes refused by the engine itself (no guard in the way), time limits, scope
parameters, exports in batches, the catalogue, error texts without values.
"""

from __future__ import annotations

import pytest
from sqlglot import exp

from react_agent.databases.base import QueryFailed, SQLDatabase
from react_agent.databases.row_streams import STREAM_BATCH_ROWS

SAMPLE_TABLES = ["customers", "order_items", "orders", "products", "regions", "stores"]
# Each runs for minutes unless stopped.
RUNAWAY = {
    "sqlite": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
    "SELECT count(*) FROM c",
    "postgres": "SELECT count(*) FROM generate_series(1, 10000000000) AS g",
    "mysql": "SELECT count(*) AS n FROM seq_1_to_1000000000 WHERE MD5(seq) LIKE 'abc%'",
    "duckdb": "SELECT count(*) FROM range(100000000000) t(x) WHERE x % 7 = 3",
}


def placeholder(database: SQLDatabase, name: str) -> str:
    """Return a scope placeholder as sqlglot writes it in the database's dialect."""
    return exp.Placeholder(this=name).sql(dialect=database.dialect)


async def test_tables_and_their_counts_are_the_samples(engine_database):
    assert await engine_database.list_tables() == SAMPLE_TABLES
    (orders, regions) = await engine_database.describe_tables(["orders", "regions", "nope"])
    assert (orders.row_count, regions.row_count) == (4000, 7)
    assert [name for name, _ in orders.columns][:2] == ["order_id", "customer_id"]


async def test_a_limited_result_keeps_its_order_and_counts_every_row(engine_database):
    result = await engine_database.run_query(
        "SELECT order_id FROM orders ORDER BY order_id DESC", row_limit=3, timeout=10
    )
    assert result.rows == [{"order_id": 4000}, {"order_id": 3999}, {"order_id": 3998}]
    assert result.is_limited and result.total_row_count == 4000


async def test_the_engine_itself_refuses_a_write(engine_database):
    for statement in ("DELETE FROM order_items", "UPDATE regions SET region_name = 'x'"):
        with pytest.raises(QueryFailed):
            await engine_database.run_query(statement, row_limit=5, timeout=10)
    counted = await engine_database.run_query(
        "SELECT count(*) AS n FROM order_items", row_limit=5, timeout=10
    )
    assert counted.rows == [{"n": 9134}]


async def test_a_runaway_query_stops_at_its_time_limit(engine_database):
    with pytest.raises(QueryFailed, match="statement timeout"):
        await engine_database.run_query(RUNAWAY[engine_database.dialect], row_limit=5, timeout=0.5)
    after = await engine_database.run_query("SELECT 1 AS one", row_limit=1, timeout=10)
    assert after.rows == [{"one": 1}]


async def test_scope_parameters_bind_and_a_percent_stays_literal(engine_database):
    name = "scope_0000_region"
    sql = (
        "SELECT region_name FROM regions WHERE region_id = "
        f"{placeholder(engine_database, name)} AND region_name LIKE '%'"
    )
    result = await engine_database.run_query(sql, row_limit=5, timeout=10, params={name: 1})
    assert len(result.rows) == 1 and result.rows[0]["region_name"]


async def test_exports_come_in_batches_up_to_the_cap_and_early_leavers_free_up(engine_database):
    sql = "SELECT order_item_id, line_amount FROM order_items ORDER BY order_item_id"
    async with engine_database.open_row_stream(sql, max_rows=2500, timeout=10) as stream:
        sizes = [len(batch) async for batch in stream.batches]
    assert sizes == [STREAM_BATCH_ROWS, STREAM_BATCH_ROWS, 500]
    for _ in range(6):  # more than the pool's four connections
        async with engine_database.open_row_stream(sql, max_rows=9134, timeout=10) as stream:
            first = await anext(stream.batches)
            assert first[0][0] == 1
    after = await engine_database.run_query(
        "SELECT count(*) AS n FROM regions", row_limit=1, timeout=10
    )
    assert after.rows == [{"n": 7}]


async def test_the_catalogue_has_keys_and_few_valued_texts(engine_database):
    catalog = await engine_database.introspect(sensitive={"customers.customer_name"})
    assert [table.name for table in catalog.tables] == SAMPLE_TABLES
    assert catalog.dialect == engine_database.dialect
    orders = catalog.table("orders")
    assert orders is not None
    if engine_database.dialect != "duckdb":  # DuckDB's copy is made from CSV: no keys
        assert orders.primary_key == ("order_id",)
    assert orders.column("status").values == ("已取消", "已完成", "已退款")
    assert catalog.table("customers").column("customer_name").values is None
    if engine_database.dialect in ("postgres", "mysql"):  # the loaders write comments there
        assert catalog.table("regions").comment == "Sales regions of mainland China (大区)"
        refs = {(fk.columns, fk.ref_table) for fk in orders.foreign_keys}
        assert refs == {(("customer_id",), "customers"), (("store_id",), "stores")}


async def test_an_error_names_the_statements_words_but_no_value(engine_database):
    with pytest.raises(QueryFailed) as failed:
        await engine_database.run_query(
            "SELECT regoin_name FROM regions WHERE region_name = '秘密'", row_limit=5, timeout=10
        )
    assert "regoin_name" in str(failed.value) and "秘密" not in str(failed.value)
