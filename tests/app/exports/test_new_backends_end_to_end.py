"""A question and its CSV export over real HTTP, on MariaDB and on a folder of CSV files."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from config import Settings
from react_agent.sample_data import SAMPLE_DB_PATH
from tests.app.exports.test_exports import EXPORT, ORDERS_SQL, parse_csv, result_ids
from tests.support.data_files import write_sample_folder
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

SALES_BY_REGION = (
    "SELECT r.region_name AS 地区, count(*) AS 订单数 FROM orders o "
    "JOIN stores s ON s.store_id = o.store_id JOIN regions r ON r.region_id = s.region_id "
    "GROUP BY r.region_name ORDER BY 订单数 DESC, 地区"
)


@pytest.fixture(params=["mysql", "duckdb"])
def data_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Give the sample data on MariaDB (a throwaway database) or as a folder of CSV files."""
    if request.param == "mysql":
        return request.getfixturevalue("mysql_sample_url")
    return f"duckdb:///{write_sample_folder(tmp_path / 'files')}"


def sqlite_rows(sql: str) -> list[tuple]:
    """Return the rows the embedded SQLite sample gives for `sql`."""
    with sqlite3.connect(f"{SAMPLE_DB_PATH.as_uri()}?mode=ro", uri=True) as connection:
        return connection.execute(sql).fetchall()


async def test_a_question_and_its_export_on_the_new_backends(settings: Settings, data_url: str):
    model = ScriptedChatModel()
    settings = settings.model_copy(update={"data_database_url": data_url})
    async with running_service(settings, model=model) as service:
        model.replies = [
            call_tool("list_tables"),
            call_tool("describe_tables", table_names=["orders"]),
            call_tool("run_sql", sql=SALES_BY_REGION),
            answer("华东最多"),
        ]
        status, body = await service.ask(question="每个地区多少订单", user_id="wu")
        assert status == 200, body
        data = body["data"]
        listed = model.seen[1][-1].content
        described = model.seen[2][-1].content

        model.replies.extend([call_tool("run_sql", sql=ORDERS_SQL), answer("4000 笔订单")])
        status, body = await service.ask(question="列出所有订单", user_id="wu")
        assert status == 200, body
        thread_id = body["data"]["conversation_id"]
        (result_id,) = await result_ids(service, thread_id)
        export = await service.http.get(
            EXPORT.format(thread_id, result_id), params={"user_id": "wu"}
        )

    assert data["response"] == "华东最多" and data["sql"] == SALES_BY_REGION
    expected = [{"地区": name, "订单数": count} for name, count in sqlite_rows(SALES_BY_REGION)]
    assert data["records"]["rows"] == expected
    assert data["react_agent_meta"]["sql_execution_count"] == 1
    assert "orders (4000 rows)" in listed and "order_items (9134 rows)" in listed
    assert "total_amount" in described and "orders (4000 rows) -- " in described

    assert export.status_code == 200, export.text
    header, *rows = parse_csv(export.content)
    assert header == ["order_id", "order_date", "门店", "total_amount", "状态"]
    reference = sqlite_rows(ORDERS_SQL)
    assert len(rows) == len(reference) == 4000
    for row, (order_id, day, store, amount, state) in zip(rows, reference, strict=True):
        assert row[:3] == [str(order_id), day, store]
        assert Decimal(row[3]) == Decimal(str(amount)) and row[4] == (state or "")
