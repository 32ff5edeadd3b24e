"""introspect() on SQLite and PostgreSQL: tables, keys, comments, estimates and kept values."""

from __future__ import annotations

import psycopg

from react_agent.databases.catalog_model import Catalog
from react_agent.databases.open import open_database
from react_agent.sample_data.load_postgres import load_into_postgres


async def test_introspect_reads_keys_and_values_of_every_sample_table(sample_database):
    catalog = await sample_database.introspect(sensitive={"customers.customer_name"})

    assert [t.name for t in catalog.tables] == [
        "customers",
        "order_items",
        "orders",
        "products",
        "regions",
        "stores",
    ]
    orders = catalog.table("orders")
    assert orders is not None and orders.primary_key == ("order_id",)
    assert {(fk.columns, fk.ref_table, fk.ref_columns) for fk in orders.foreign_keys} == {
        (("customer_id",), "customers", ("customer_id",)),
        (("store_id",), "stores", ("store_id",)),
    }
    regions = catalog.table("regions")
    assert regions is not None
    assert regions.column("region_name").values == tuple(
        sorted(["华东", "华南", "华北", "华中", "西南", "西北", "东北"])
    )
    assert orders.column("status").values == ("已取消", "已完成", "已退款")
    # Marked sensitive: its values are never read.
    assert catalog.table("customers").column("customer_name").values is None
    # Too many distinct values (545 dates; text in SQLite, a date in PostgreSQL).
    assert orders.column("order_date").values is None
    assert Catalog.from_json(catalog.as_json()) == catalog


async def test_introspect_keeps_no_values_above_the_distinct_limit(sample_database):
    catalog = await sample_database.introspect(max_distinct=5)

    assert catalog.table("orders").column("status").values == ("已取消", "已完成", "已退款")
    assert catalog.table("regions").column("region_name").values is None


async def test_postgres_comments_and_row_estimates_come_from_the_catalogs(postgres_database):
    load_into_postgres(postgres_database)
    with psycopg.connect(postgres_database, autocommit=True) as connection:
        connection.execute("COMMENT ON TABLE orders IS '每笔订单（one row per order）'")
        connection.execute("COMMENT ON COLUMN orders.total_amount IS '订单金额（元）'")
        connection.execute("ANALYZE orders")
    database = await open_database(postgres_database, connect_timeout=5)
    try:
        catalog = await database.introspect()
    finally:
        await database.aclose()

    orders = catalog.table("orders")
    assert orders.comment == "每笔订单（one row per order）"
    assert orders.column("total_amount").comment == "订单金额（元）"
    assert orders.column("total_amount").type == "numeric(12,2)"
    assert orders.row_estimate == 4000
    assert catalog.table("regions").comment == "Sales regions of mainland China (大区)"
    assert not orders.column("order_id").nullable and orders.column("order_id").primary_key
