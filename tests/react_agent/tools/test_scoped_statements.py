"""Under a policy, every statement a database sees is the scoped one: check_sql, run_sql, exports.

SQLite's trace callback lists each statement the engine compiles (EXPLAIN, the query, the
count of a capped result, an export's stream); none may be the model's own text. On
MariaDB, which runs constant subqueries while planning, check_sql's EXPLAIN of an XPath
error over other regions' stores gives none of their names.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from react_agent.access.current import CURRENT_SCOPE
from react_agent.access.policy_file.policy import load_policy
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.databases.base import SQLDatabase
from react_agent.databases.open import open_database
from react_agent.databases.sqlite.engine import SQLiteDatabase
from react_agent.results.exports import start_csv_export
from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.tools.sql_tools import SqlTools

POLICY_FILE = Path(__file__).resolve().parents[3] / "config" / "policy.sample.yaml"
MODEL_SQL = [
    "SELECT * FROM orders WHERE CAST(status AS int) = 1",
    "SELECT c.city, count(*) AS n FROM customers c JOIN orders o USING (customer_id) "
    "GROUP BY c.city",
    "SELECT store_name FROM stores WHERE region_id <> 1",
    "SELECT (SELECT group_concat(store_name) FROM stores) AS names",
    "SELECT * FROM order_items WHERE order_id IN (SELECT order_id FROM orders)",
]


async def _alice(database: SQLDatabase) -> tuple[Scope, TableColumns]:
    columns = TableColumns(database)
    policy = load_policy(POLICY_FILE, await columns.get())
    return policy.scope_for(policy.actor_for("alice")), columns


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Record every statement SQLite runs on the connections the model's SQL runs on."""
    seen: list[str] = []
    connect = SQLiteDatabase._connect_for_query

    def traced_connect(self: SQLiteDatabase) -> sqlite3.Connection:
        connection = connect(self)
        connection.set_trace_callback(seen.append)
        return connection

    # SQLite traces no EXPLAIN: what check_sql plans is recorded where it is sent.
    explain = SQLiteDatabase._explain

    def traced_explain(self: SQLiteDatabase, sql: str, params: dict[str, Any]) -> None:
        seen.append(f"EXPLAIN {sql}")
        explain(self, sql, params)

    monkeypatch.setattr(SQLiteDatabase, "_connect_for_query", traced_connect)
    monkeypatch.setattr(SQLiteDatabase, "_explain", traced_explain)
    yield seen


async def test_no_statement_the_database_sees_is_the_models_own_text(
    traced: list[str], tmp_path: Path
):
    path = tmp_path / "sales.db"
    path.write_bytes(SAMPLE_DB_PATH.read_bytes())
    database = await open_database(f"sqlite:///{path}", connect_timeout=5)
    scope, columns = await _alice(database)
    # row_limit 1: a result of more rows is capped and counted, a statement of its own.
    tools = SqlTools(database, 1, 1, 10.0, None, None, columns)
    token = CURRENT_SCOPE.set(scope)
    try:
        for number, sql in enumerate(MODEL_SQL):
            await tools.check_sql(sql, f"check-{number}")
            await tools.run_sql(sql, f"run-{number}")
            chunks = await start_csv_export(
                database,
                sql,
                allowed_tables=None,
                max_rows=10,
                timeout=10,
                scope=scope,
                columns=columns,
            )
            async for _ in chunks:
                pass
    finally:
        CURRENT_SCOPE.reset(token)
        await database.aclose()
    statements = [s for s in traced if "FROM" in s.upper()]
    assert any(s.startswith("EXPLAIN ") for s in statements)
    assert any(s.startswith("SELECT COUNT(*) FROM (") for s in statements)
    assert len(statements) >= 3 * len(MODEL_SQL)
    for statement in statements:
        assert not any(sql in statement for sql in MODEL_SQL), statement
        assert "LIMIT -1 OFFSET 0" in statement, statement


async def test_mariadb_check_sql_plans_only_the_scope(mysql_sample_url: str):
    database = await open_database(mysql_sample_url, connect_timeout=5)
    try:
        scope, columns = await _alice(database)
        outside = await database.run_query(
            "SELECT store_name FROM stores WHERE region_id <> 1", row_limit=1000, timeout=10
        )
        names = {row["store_name"] for row in outside.rows}
        tools = SqlTools(database, 100, 10, 10.0, None, None, columns)
        token = CURRENT_SCOPE.set(scope)
        try:
            answers = [
                await tools.check_sql(sql, f"check-{number}")
                for number, sql in enumerate(
                    [
                        "SELECT extractvalue(1, concat('~', (SELECT group_concat(store_name) "
                        "FROM stores WHERE region_id <> 1)))",
                        "SELECT updatexml(1, concat('~', (SELECT group_concat(store_name) "
                        "FROM stores)), 1)",
                        "SELECT extractvalue(1, concat('~', (SELECT max(city) FROM stores "
                        "WHERE store_id > 0)))",
                        "SELECT extractvalue(1, concat('~', (SELECT group_concat(s.store_name) "
                        "FROM orders o JOIN stores s USING (store_id))))",
                        "SELECT 1 FROM regions WHERE extractvalue(1, concat('~', "
                        "(SELECT min(store_name) FROM stores WHERE region_id = 2)))",
                    ]
                )
            ]
        finally:
            CURRENT_SCOPE.reset(token)
        texts = [str(getattr(answer, "content", answer)) for answer in answers]
        assert any("XPATH syntax error" in text for text in texts), texts
        for text in texts:
            assert not any(name in text for name in names), text
    finally:
        await database.aclose()
