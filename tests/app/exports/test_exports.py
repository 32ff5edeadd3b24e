"""CSV export of a query result: every row, as the database has them, on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import sqlite3
from typing import Any

import psycopg
import pytest
from langchain_core.messages import ToolMessage

from config import Settings
from react_agent.results.exports import csv_cell
from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.sample_data.load_postgres import load_into_postgres
from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

EXPORT = "/api/v0/react/conversations/{}/results/{}.csv"
# 4000 rows, more than SQL_ROW_LIMIT keeps in the answer; dates, decimals, text, NULLs and a %.
ORDERS_SQL = (
    "SELECT o.order_id, o.order_date, s.store_name AS 门店, o.total_amount, "
    "CASE WHEN o.order_id % 3 = 0 THEN NULL ELSE o.status END AS 状态 "
    "FROM orders o JOIN stores s ON s.store_id = o.store_id "
    "WHERE s.store_name LIKE '%店' ORDER BY o.order_id"
)


@pytest.fixture(params=["sqlite", "postgres"])
def data_url(request: pytest.FixtureRequest) -> str | None:
    """Give the sample data's URL: None for the embedded SQLite, else a fresh PostgreSQL copy."""
    if request.param == "sqlite":
        return None
    url: str = request.getfixturevalue("postgres_database")
    load_into_postgres(url)
    return url


def database_rows(url: str | None, sql: str) -> list[list[str]]:
    """Return the query's rows read straight from the database, each value as a CSV cell."""
    if url is None:
        with sqlite3.connect(SAMPLE_DB_PATH) as connection:
            rows: list[Any] = connection.execute(sql).fetchall()
    else:
        with psycopg.connect(url) as connection:
            rows = connection.execute(sql).fetchall()
    return [[csv_cell(value) for value in row] for row in rows]


async def ask_with_query(service: ServiceClient, model: ScriptedChatModel, user_id: str) -> str:
    """Ask one question whose run_sql runs ORDERS_SQL; return the thread id."""
    model.replies = [call_tool("run_sql", sql=ORDERS_SQL), answer("4000 笔订单")]
    status, body = await service.ask(question="列出所有订单", user_id=user_id)
    assert status == 200, body
    return body["data"]["conversation_id"]


async def result_ids(service: ServiceClient, thread_id: str) -> list[str]:
    """Return the result ids recorded in a thread's run_sql results, oldest first."""
    runner = service.app.extensions["agent"].runner
    state = await runner.graph.aget_state(runner.config_for(thread_id))
    return [
        m.artifact["result_id"]
        for m in state.values["messages"]
        if isinstance(m, ToolMessage) and (m.artifact or {}).get("result_id")
    ]


def parse_csv(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode("utf-8-sig"), newline="")))


async def test_csv_export_holds_every_row_as_the_database_has_it(
    settings: Settings, data_url: str | None
) -> None:
    model = ScriptedChatModel()
    settings = settings.model_copy(update={"data_database_url": data_url})
    async with running_service(settings, model=model) as service:
        thread_id = await ask_with_query(service, model, "wu")
        (result_id,) = await result_ids(service, thread_id)
        response = await service.http.get(
            EXPORT.format(thread_id, result_id), params={"user_id": "wu"}
        )

    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert (
        response.headers["content-disposition"] == f'attachment; filename="result-{result_id}.csv"'
    )
    assert response.content.startswith("\ufeff".encode())
    header, *rows = parse_csv(response.content)
    assert header == ["order_id", "order_date", "门店", "total_amount", "状态"]
    assert len(rows) == 4000 > settings.sql_row_limit
    assert rows == database_rows(data_url, ORDERS_SQL)
    assert rows[0][1] == "2024-01-01" and rows[2][4] == "" and rows[0][4] == "已完成"
    assert float(rows[0][3]) > 0


async def test_csv_export_stops_at_the_export_row_limit(settings: Settings) -> None:
    model = ScriptedChatModel()
    async with running_service(
        settings.model_copy(update={"export_row_limit": 25}), model=model
    ) as service:
        thread_id = await ask_with_query(service, model, "wu")
        (result_id,) = await result_ids(service, thread_id)
        response = await service.http.get(
            EXPORT.format(thread_id, result_id), params={"user_id": "wu"}
        )

    _, *rows = parse_csv(response.content)
    assert response.status_code == 200 and response.headers["x-export-row-limit"] == "25"
    assert len(rows) == 25
    assert rows == database_rows(None, ORDERS_SQL)[:25]


async def test_csv_export_of_another_users_thread_is_refused(service, model) -> None:
    thread_id = await ask_with_query(service, model, "owner")
    (result_id,) = await result_ids(service, thread_id)

    intruder = await service.http.get(
        EXPORT.format(thread_id, result_id), params={"user_id": "intruder"}
    )
    anonymous = await service.http.get(EXPORT.format(thread_id, result_id))

    assert intruder.status_code == 400
    assert intruder.json()["data"]["error_type"] == "THREAD_OWNERSHIP_MISMATCH"
    assert "门店" not in intruder.text
    # Without user_id the owner is the thread id's user, as on every read endpoint.
    assert anonymous.status_code == 200 and "门店" in anonymous.text


async def test_unknown_result_or_thread_is_a_404_envelope(service, model) -> None:
    thread_id = await ask_with_query(service, model, "zhao")

    unknown_result = await service.http.get(
        EXPORT.format(thread_id, "call_nope"), params={"user_id": "zhao"}
    )
    unknown_thread = await service.http.get(
        EXPORT.format("zhao:1", "call_nope"), params={"user_id": "zhao"}
    )

    body = unknown_result.json()
    assert unknown_result.status_code == 404 and body["success"] is False
    assert body["data"]["error_type"] == "RESULT_NOT_FOUND" and "call_nope" in body["message"]
    assert unknown_thread.status_code == 404
    assert unknown_thread.json()["data"]["error_type"] == "THREAD_NOT_FOUND"


async def test_csv_export_goes_through_the_sql_guard_again(settings: Settings) -> None:
    model = ScriptedChatModel()
    async with running_service(settings, model=model) as service:
        thread_id = await ask_with_query(service, model, "qian")
        (result_id,) = await result_ids(service, thread_id)
    # The same conversations, but orders may no longer be read.
    narrowed = settings.model_copy(update={"sql_allowed_tables": "regions"})
    async with running_service(narrowed, model=model) as service:
        response = await service.http.get(
            EXPORT.format(thread_id, result_id), params={"user_id": "qian"}
        )

    assert response.status_code == 403
    assert response.json()["data"]["error_type"] == "EXPORT_REFUSED"
    assert "not in the allowed list" in response.json()["data"]["error"]


async def test_an_abandoned_download_gives_its_connection_back(
    settings: Settings, postgres_database: str
) -> None:
    load_into_postgres(postgres_database)
    big_sql = "SELECT o.order_id, p.order_id AS other FROM orders o CROSS JOIN orders p"
    model = ScriptedChatModel()
    narrow = settings.model_copy(
        update={"data_database_url": postgres_database, "postgres_pool_max_size": 2}
    )
    async with running_service(narrow, model=model) as service:
        model.replies = [call_tool("run_sql", sql=big_sql), answer("很多行")]
        status, body = await service.ask(question="所有组合", user_id="sun")
        assert status == 200, body
        thread_id = body["data"]["conversation_id"]
        (result_id,) = await result_ids(service, thread_id)
        url = EXPORT.format(thread_id, result_id)
        # More abandoned downloads than the pool has connections: a kept one would make
        # the last request wait for a connection and fail with 503.
        for _ in range(3):
            async with service.http.stream("GET", url, params={"user_id": "sun"}) as response:
                assert response.status_code == 200
                first = await anext(response.aiter_bytes())
                assert first.startswith("\ufeff".encode())
        complete = await service.http.get(url, params={"user_id": "sun"})

    assert complete.status_code == 200
    assert complete.text.count("\n") == 1 + settings.export_row_limit
