"""introspect() on MySQL/MariaDB and on DuckDB files: keys, comments, estimates and values."""

from __future__ import annotations

from pathlib import Path

from react_agent.databases.catalog_model import Catalog
from react_agent.databases.duckdb.files import DuckDBFiles
from react_agent.databases.mysql.engine import MySQLDatabase
from react_agent.sample_data.export_files import write_sample_folder

REGIONS = tuple(sorted(["华东", "华南", "华北", "华中", "西南", "西北", "东北"]))


async def test_mysql_catalogue_has_keys_comments_and_values(mysql_sample_url: str):
    database = await MySQLDatabase.open(mysql_sample_url, max_size=2)
    try:
        catalog = await database.introspect(sensitive={"customers.customer_name"})
    finally:
        await database.aclose()

    assert catalog.dialect == "mysql"
    assert [t.name for t in catalog.tables] == [
        "customers",
        "order_items",
        "orders",
        "products",
        "regions",
        "stores",
    ]
    orders = catalog.table("orders")
    assert orders.primary_key == ("order_id",)
    assert {(fk.columns, fk.ref_table, fk.ref_columns) for fk in orders.foreign_keys} == {
        (("customer_id",), "customers", ("customer_id",)),
        (("store_id",), "stores", ("store_id",)),
    }
    assert orders.comment == "Sales orders (订单), one per checkout"
    assert orders.column("total_amount").type == "decimal(12,2)"
    assert orders.column("total_amount").comment.startswith("Order amount in CNY")
    assert not orders.column("order_id").nullable and orders.column("order_id").primary_key
    assert orders.row_estimate is not None and orders.row_estimate > 0
    assert orders.column("status").values == ("已取消", "已完成", "已退款")
    assert catalog.table("regions").column("region_name").values == REGIONS
    assert catalog.table("customers").column("customer_name").values is None
    assert Catalog.from_json(catalog.as_json()) == catalog


async def test_duckdb_catalogue_has_each_file_its_counts_and_values(tmp_path: Path):
    database = await DuckDBFiles.open(f"duckdb:///{write_sample_folder(tmp_path / 'files')}")
    try:
        catalog = await database.introspect(max_distinct=10)
    finally:
        await database.aclose()

    assert catalog.dialect == "duckdb" and len(catalog.tables) == 6
    regions = catalog.table("regions")
    assert regions.comment == "from regions.csv" and regions.row_estimate == 7
    assert regions.column("region_name").values == REGIONS
    assert regions.column("region_id").type == "BIGINT"
    assert catalog.table("orders").column("status").values == ("已取消", "已完成", "已退款")
    assert catalog.table("orders").column("order_date").type == "DATE"
    assert catalog.table("customers").column("customer_name").values is None  # > 10 names
    assert Catalog.from_json(catalog.as_json()) == catalog
