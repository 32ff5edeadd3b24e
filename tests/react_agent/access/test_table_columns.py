"""The columns the scope rewrite reads are the asker's database's, whoever asked first."""

from __future__ import annotations

import asyncio
import contextvars
import sqlite3
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass

import pytest

from config import Settings
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import run_in_scope
from react_agent.databases.base import SQLDatabase
from react_agent.databases.routing import run_on
from react_agent.sample_data import SAMPLE_DATABASE_URL, SAMPLE_DB_PATH
from react_agent.service.data_sources import conversation_source, open_datasets, open_service_data
from react_agent.service.state import AgentService

# An upload whose table has the shared orders' name but columns of its own.
UPLOAD = b"order_id,amount_due,secret\n1,9.5,x\n2,3.0,y\n"


@dataclass
class Case:
    """How the shared data is configured and what each conversation asks."""

    settings: dict[str, str]
    shared_sql: str
    dataset_sql: str
    scope: Scope


CASES = {
    "one database": Case(
        {"data_database_url": SAMPLE_DATABASE_URL},
        "SELECT * FROM orders",
        "SELECT * FROM orders",
        Scope(
            tables=frozenset({"orders"}),
            denied_columns={"orders": frozenset({"secret", "status"})},
        ),
    ),
    "named sources": Case(
        {"data_sources": f"lite=sqlite:///{SAMPLE_DB_PATH}"},
        "SELECT * FROM lite.orders",
        "SELECT * FROM mine.orders",
        Scope(
            tables=frozenset({"lite.orders", "mine.orders"}),
            denied_columns={
                "mine.orders": frozenset({"secret"}),
                "lite.orders": frozenset({"status"}),
            },
        ),
    ),
}


def shared_orders_columns() -> list[str]:
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        found = [row[1] for row in connection.execute("PRAGMA table_info(orders)")]
    return [name for name in found if name != "status"]  # denied in both cases


@pytest.fixture
async def service(settings: Settings, request: pytest.FixtureRequest) -> AsyncIterator:
    case: Case = CASES[request.param]
    update = {"datasets_enabled": True, "data_database_url": None, **case.settings}
    service = AgentService(settings.model_copy(update=update))
    service.database = await open_service_data(service)
    async with AsyncExitStack() as stack:
        stack.push_async_callback(service.database.aclose)
        await open_datasets(service, stack)
        assert service.datasets is not None
        dataset = await service.datasets.create("ann", "orders.csv", UPLOAD)
        await service.datasets.bind("t-upload", "ann", dataset.dataset_id)
        yield service, case


async def ask(service: AgentService, thread_id: str, sql: str, scope: Scope, columns) -> list:
    """Run `sql` as the runner runs a question of `thread_id`: on the thread's source."""
    source: SQLDatabase | None = await conversation_source(service, thread_id)
    context = contextvars.copy_context()
    context.run(run_on, source)
    assert service.database is not None

    async def scoped() -> list[str]:
        _, result = await run_in_scope(
            service.database, sql, scope, columns, row_limit=5, timeout=30
        )
        return list(result.rows[0])

    return await asyncio.get_running_loop().create_task(scoped(), context=context)


@pytest.mark.parametrize("service", sorted(CASES), indirect=True)
@pytest.mark.parametrize("upload_first", [True, False], ids=["upload first", "shared first"])
async def test_each_conversation_reads_its_own_databases_columns(service, upload_first: bool):
    service, case = service
    columns = TableColumns(service.database)  # one for the service, as assembly keeps it
    asks = [
        ("t-upload", case.dataset_sql, ["order_id", "amount_due"]),
        ("t-shared", case.shared_sql, shared_orders_columns()),
    ]
    for thread_id, sql, expected in asks if upload_first else asks[::-1]:
        assert await ask(service, thread_id, sql, case.scope, columns) == expected
    # An export names its database itself: the upload's columns, not the router's default.
    dataset = await conversation_source(service, "t-upload")
    assert dataset is not None
    found = await columns.get(dataset)
    assert any(
        name.endswith("orders") and cols == ["order_id", "amount_due", "secret"]
        for name, cols in found.items()
    )
