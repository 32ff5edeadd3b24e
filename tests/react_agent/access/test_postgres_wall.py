"""The database's own wall: with the rewrite switched off, PostgreSQL alone keeps region 1's rows.

The recipe of docs/security.md on a real server: a role with column GRANTs and row level
security policies reading `current_setting('app.region_id')`. The service sets both inside
each query's read-only transaction (SET LOCAL ROLE, set_config(…, true)).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql as pg_sql

from react_agent.access.scope import Scope
from react_agent.access.scoping.executor import run_in_scope
from react_agent.databases.base import QueryFailed
from react_agent.databases.open import open_database
from react_agent.sample_data.load_postgres import load_into_postgres

REGION = "current_setting('app.region_id')::int"
RECIPE = [
    "CREATE ROLE {role} NOLOGIN",
    "GRANT USAGE ON SCHEMA public TO {role}",
    "GRANT SELECT ON regions, stores, customers, orders, order_items TO {role}",
    "GRANT SELECT (product_id, product_name, category, unit_price) ON products TO {role}",
    "ALTER TABLE regions ENABLE ROW LEVEL SECURITY",
    "ALTER TABLE stores ENABLE ROW LEVEL SECURITY",
    "ALTER TABLE customers ENABLE ROW LEVEL SECURITY",
    "ALTER TABLE orders ENABLE ROW LEVEL SECURITY",
    f"CREATE POLICY by_region ON regions USING (region_id = {REGION})",
    f"CREATE POLICY by_region ON stores USING (region_id = {REGION})",
    f"CREATE POLICY by_region ON customers USING (region_id = {REGION})",
    "CREATE POLICY by_region ON orders USING (store_id IN (SELECT store_id FROM stores))",
]


@pytest.fixture
def walled_database(postgres_database: str) -> Iterator[tuple[str, str]]:
    """Give the sample on PostgreSQL with the recipe applied, and the role's name."""
    load_into_postgres(postgres_database)
    role = f"east_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_database, autocommit=True) as connection:
        for statement in RECIPE:
            connection.execute(pg_sql.SQL(statement).format(role=pg_sql.Identifier(role)))
    try:
        yield postgres_database, role
    finally:
        with psycopg.connect(postgres_database, autocommit=True) as connection:
            connection.execute(pg_sql.SQL("DROP OWNED BY {}").format(pg_sql.Identifier(role)))
            connection.execute(pg_sql.SQL("DROP ROLE {}").format(pg_sql.Identifier(role)))


def _scope(role: str, region_id: int) -> Scope:
    # The rewrite off (the test-only hook) and no parse-tree filters: the database decides.
    return Scope(tables=None, parameters={"region_id": region_id}, db_role=role, rewrite=False)


async def test_postgres_alone_returns_only_the_users_region(walled_database):
    url, role = walled_database
    database = await open_database(url, connect_timeout=5)
    try:

        async def run(sql: str, scope: Scope):
            _, result = await run_in_scope(database, sql, scope, None, row_limit=10_000, timeout=10)
            return result.rows

        everything = await database.run_query(
            "SELECT count(*) AS n FROM orders", row_limit=1, timeout=10
        )
        east = await run("SELECT count(*) AS n FROM orders", _scope(role, 1))
        north = await run("SELECT count(*) AS n FROM orders", _scope(role, 2))
        assert 0 < east[0]["n"] < everything.rows[0]["n"]
        assert 0 < north[0]["n"] < everything.rows[0]["n"] and north != east
        customers = await run("SELECT region_id FROM customers", _scope(role, 1))
        assert customers and {row["region_id"] for row in customers} == {1}
        joined = await run(
            "SELECT DISTINCT s.region_id FROM orders o JOIN stores s USING (store_id)",
            _scope(role, 1),
        )
        assert [row["region_id"] for row in joined] == [1]
        with pytest.raises(QueryFailed, match="permission denied"):
            await run("SELECT unit_cost FROM products", _scope(role, 1))
        # The role and settings were transaction-local: the pooled connection is clean again.
        after = await database.run_query(
            "SELECT current_user AS who, current_setting('app.region_id', true) AS region",
            row_limit=1,
            timeout=10,
        )
        assert after.rows[0]["who"] != role and after.rows[0]["region"] in (None, "")
    finally:
        await database.aclose()
