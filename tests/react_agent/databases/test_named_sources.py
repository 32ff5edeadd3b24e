"""Named sources on this machine: PostgreSQL, MariaDB and a folder of CSV files, joined."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path

import pytest

from config import Settings
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import run_in_scope
from react_agent.access.scoping.rewrite import ScopeRefused
from react_agent.databases.base import QueryFailed
from react_agent.databases.federation.sources import NamedSources
from react_agent.databases.federation.specs import parse_sources
from react_agent.errors import ConfigurationError, ServiceError
from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.sample_data.export_files import write_sample_folder
from react_agent.sample_data.load_postgres import load_into_postgres
from react_agent.service.data_sources import open_named_sources

TWO_SOURCES = (
    "SELECT s.store_name, count(*) AS n FROM sales.orders o "
    "JOIN fin.stores s ON s.store_id = o.store_id GROUP BY s.store_name ORDER BY n DESC, 1"
)
TWO_SOURCES_ORACLE = (
    "SELECT s.store_name, count(*) AS n FROM orders o "
    "JOIN stores s ON s.store_id = o.store_id GROUP BY s.store_name ORDER BY n DESC, 1"
)
THREE_SOURCES = (
    "SELECT r.region_name, sum(o.total_amount) AS amount FROM sales.orders o "
    "JOIN fin.stores s ON s.store_id = o.store_id "
    "JOIN files.regions r ON r.region_id = s.region_id GROUP BY r.region_name ORDER BY 1"
)
THREE_SOURCES_ORACLE = THREE_SOURCES.replace("sales.", "").replace("fin.", "").replace("files.", "")


def oracle(sql: str, *params: object) -> list[tuple]:
    """Return the rows the embedded SQLite sample (the same data) gives for `sql`."""
    with sqlite3.connect(f"{SAMPLE_DB_PATH.as_uri()}?mode=ro", uri=True) as connection:
        return connection.execute(sql, params).fetchall()


@pytest.fixture
def sources_text(postgres_database: str, mysql_sample_url: str, tmp_path: Path) -> str:
    """Give DATA_SOURCES naming the sample on PostgreSQL, on MariaDB and as CSV files."""
    load_into_postgres(postgres_database)
    folder = write_sample_folder(tmp_path / "files")
    return f"sales={postgres_database};fin={mysql_sample_url};files=duckdb:///{folder}"


@pytest.fixture
async def sources(sources_text: str) -> AsyncIterator[NamedSources]:
    """Open the three sources as the service does."""
    database = await open_named_sources(Settings(data_sources=sources_text, _env_file=None))
    assert isinstance(database, NamedSources)
    try:
        yield database
    finally:
        await database.aclose()


def rows_of(result) -> list[tuple]:
    return [tuple(row.values()) for row in result.rows]


async def test_every_sources_tables_are_listed_qualified_with_their_description(tmp_path: Path):
    spec = tmp_path / "sources.yaml"
    spec.write_text(
        "sources:\n  - name: lite\n    url: sqlite:///"
        + str(SAMPLE_DB_PATH)
        + "\n    description: the shop's own copy\n"
    )
    database = await open_named_sources(Settings(data_sources=str(spec), _env_file=None))
    try:
        tables = await database.list_tables()
        catalog = await database.introspect()
    finally:
        await database.aclose()
    assert "lite.orders" in tables and "orders" not in tables
    orders = catalog.table("lite.orders")
    assert orders is not None and orders.comment.startswith("[lite: the shop's own copy]")
    assert {key.ref_table for key in orders.foreign_keys} <= {t for t in tables}


async def test_a_join_of_two_sources_equals_the_same_join_on_one_database(sources):
    result = await sources.run_query(TWO_SOURCES, row_limit=100, timeout=30)
    assert rows_of(result) == oracle(TWO_SOURCES_ORACLE)


async def test_a_join_of_three_sources_equals_the_same_join_on_one_database(sources):
    result = await sources.run_query(THREE_SOURCES, row_limit=100, timeout=30)
    got = [
        (name, Decimal(str(amount)).quantize(Decimal("0.01"))) for name, amount in rows_of(result)
    ]
    expected = [
        (name, Decimal(str(amount)).quantize(Decimal("0.01")))
        for name, amount in oracle(THREE_SOURCES_ORACLE)
    ]
    assert got == expected


async def test_a_statement_on_one_source_runs_there_in_its_own_dialect(sources):
    sql = "SELECT store_name FROM fin.stores WHERE store_id <= 3 ORDER BY store_id"
    result = await sources.run_query(sql, row_limit=10, timeout=30)
    assert rows_of(result) == oracle(sql.replace("fin.", ""))
    assert sources._federations == {}  # no DuckDB was needed


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM postgres_query('sales', 'SELECT 1') JOIN fin.stores ON true",
        "SELECT * FROM sales.orders JOIN read_csv('/etc/passwd') ON true",
        "SELECT * FROM sales.orders o JOIN stores s ON true",
        "SELECT mysql_execute('fin', 'DROP TABLE stores') FROM sales.orders",
    ],
)
async def test_the_federation_runs_only_the_attached_tables(sources, sql):
    with pytest.raises(QueryFailed):
        await sources.run_query(sql, row_limit=10, timeout=30)


POLICY_SCOPE = Scope(
    tables=frozenset({"sales.*", "files.*"}),
    row_filters={"sales.orders": "store_id = :store"},
    parameters={"store": 3},
    denied_columns={"files.customers": frozenset({"phone"})},
)


async def test_a_policy_holds_across_a_federated_statement(sources):
    columns = TableColumns(sources)
    sql = (
        "SELECT r.region_name, count(*) AS n FROM sales.orders o "
        "JOIN sales.stores s ON s.store_id = o.store_id "
        "JOIN files.regions r ON r.region_id = s.region_id GROUP BY 1 ORDER BY 1"
    )
    scoped, result = await run_in_scope(
        sources, sql, POLICY_SCOPE, columns, row_limit=100, timeout=30
    )
    expected = oracle(
        "SELECT r.region_name, count(*) AS n FROM orders o "
        "JOIN stores s ON s.store_id = o.store_id "
        "JOIN regions r ON r.region_id = s.region_id WHERE o.store_id = ? GROUP BY 1 ORDER BY 1",
        3,
    )
    assert rows_of(result) == expected and "sales.orders" in scoped.tables
    for refused in (
        "SELECT count(*) FROM sales.orders o JOIN fin.stores s ON s.store_id = o.store_id",
        "SELECT c.phone FROM files.customers c JOIN sales.orders o USING (customer_id)",
    ):
        with pytest.raises(ScopeRefused):
            await run_in_scope(sources, refused, POLICY_SCOPE, columns, row_limit=10, timeout=30)


async def test_a_source_down_at_start_up_is_named_and_the_others_serve(sources_text: str):
    text = sources_text + ";gone=postgresql://postgres@127.0.0.1:9/nothing?connect_timeout=2"
    database = await open_named_sources(Settings(data_sources=text, _env_file=None))
    try:
        tables = await database.list_tables()
        ok = await database.run_query(TWO_SOURCES, row_limit=100, timeout=30)
        with pytest.raises(ServiceError) as raised:
            await database.run_query(
                "SELECT count(*) FROM gone.orders JOIN sales.orders USING (order_id)",
                row_limit=10,
                timeout=30,
            )
    finally:
        await database.aclose()
    assert not any(t.startswith("gone.") for t in tables) and "sales.orders" in tables
    assert rows_of(ok) == oracle(TWO_SOURCES_ORACLE)
    assert raised.value.status == 503 and raised.value.error_type == "SOURCE_UNAVAILABLE"
    assert "gone" in raised.value.detail


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("sales=postgresql://x/y;sales=sqlite:///a.db", "given twice"),
        ("Main=sqlite:///a.db", "source name"),
        ("sales.yaml", "cannot read"),
    ],
)
def test_a_malformed_data_sources_says_what_is_wrong(text: str, words: str):
    with pytest.raises(ConfigurationError) as raised:
        parse_sources(text)
    assert words in raised.value.detail


async def test_a_source_down_mid_question_is_named_in_the_answer(restartable_postgres, tmp_path):
    load_into_postgres(restartable_postgres.url)
    folder = write_sample_folder(tmp_path / "files")
    text = f"sales={restartable_postgres.url};files=duckdb:///{folder}"
    database = await open_named_sources(Settings(data_sources=text, _env_file=None))
    joined = (
        "SELECT count(*) AS n FROM sales.orders o JOIN files.stores s ON s.store_id = o.store_id"
    )
    try:
        before = await database.run_query(joined, row_limit=10, timeout=30)
        restartable_postgres.stop()
        failures = []
        for sql in (joined, "SELECT count(*) AS n FROM sales.orders"):
            with pytest.raises(ServiceError) as raised:
                await database.run_query(sql, row_limit=10, timeout=30)
            failures.append(raised.value)
        on_files = await database.run_query(
            "SELECT count(*) AS n FROM files.orders", row_limit=10, timeout=30
        )
    finally:
        await database.aclose()
    assert rows_of(before) == [(4000,)] and rows_of(on_files) == [(4000,)]
    for failure in failures:
        assert failure.status == 503 and "sales" in failure.detail, failure.detail


async def test_the_sources_are_ready_while_one_answers_and_health_names_the_one_down(
    sources_text: str,
):
    text = sources_text + ";gone=postgresql://postgres@127.0.0.1:9/nothing?connect_timeout=2"
    database = await open_named_sources(Settings(data_sources=text, _env_file=None))
    try:
        await database.ping()  # does not raise: three of four answer
        states = {name: member.problem is None for name, member in database.members.items()}
    finally:
        await database.aclose()
    assert states == {"sales": True, "fin": True, "files": True, "gone": False}


def test_a_yaml_source_may_set_its_own_fair_share(tmp_path: Path):
    spec = tmp_path / "sources.yaml"
    spec.write_text(
        "sources:\n  crm: {url: 'sqlite:///a.db', max_concurrent: 3}\n  fin: 'sqlite:///b.db'\n",
        encoding="utf-8",
    )
    crm, fin = parse_sources(str(spec))
    assert (crm.max_concurrent, fin.max_concurrent) == (3, 0)
    spec.write_text("sources:\n  crm: {url: 'sqlite:///a.db', max_concurrent: 0}\n", "utf-8")
    with pytest.raises(ConfigurationError, match="max_concurrent must be a whole number"):
        parse_sources(str(spec))


async def test_each_named_source_has_its_own_fair_share(sources_text: str, settings: Settings):
    from react_agent.service.state import AgentService

    service = AgentService(settings.model_copy(update={"data_sources": sources_text}))
    database = await open_named_sources(service.settings, service)
    try:
        assert sorted(service.shares) == ["files", "fin", "sales"]
        pools = {name: share.max_concurrent for name, share in service.shares.items()}
        assert pools["sales"] == settings.postgres_pool_max_size
        assert pools["fin"] == settings.mysql_pool_max_size
        result = await database.run_query(
            "SELECT count(*) AS n FROM sales.orders", row_limit=1, timeout=30
        )
        assert result.rows[0]["n"] > 0
        assert all(share.counts().in_use == 0 for share in service.shares.values())
    finally:
        await database.aclose()
